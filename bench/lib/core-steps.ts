/**
 * The steps between `npm run bench:layers`' floor and its core layer, for taking the core's share
 * apart (issue 25): run only when named, `BENCH_LAYERS=floor,json-ends,client,adapter,core`, and
 * best counted (`BENCH_COUNT=1`), since each step is a few µs. Each step adds one thing to the one
 * before it:
 *
 *   json-ends  the floor with both ends read and written as JSON (`c.req.json()`, the upstream's
 *              `body.json()`, `c.json()`), as any protocol gateway must
 *   client     the upstream call through nlgate's UpstreamClient (the call's signal, timeouts, the
 *              capped body reader) in place of a bare undici Pool
 *   adapter    the NLWeb adapter's ask (the upstream request built, the reply mapped to canonical
 *              events) collected by `collectRun`, as the core collects it
 *
 * and the `core` layer then adds `gateway.ask`'s own work: routing, admission, the call's context,
 * the conversation begun and recorded.
 */
import { Hono } from 'hono';
import { Pool } from 'undici';
import { builtinAdapters } from '../../adapters/index.ts';
import { silentLogger } from '../../src/base/logger.ts';
import type { CommonAgentConfig } from '../../src/core/agent.ts';
import { collectRun } from '../../src/core/collect.ts';
import { newRequestId } from '../../src/core/ids.ts';
import { UpstreamClient } from '../../src/core/upstream/index.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';

/** A step's app, served on the layers' path (`POST /agents/up/ask`). */
export interface Step {
  app: Hono;
  close(): Promise<void>;
}

const ASK_PATH = '/agents/up/ask';

/** The steps, by name, for the agent `agent` (the layers' one NLWeb agent) at `upstreamUrl`. */
export function coreSteps(upstreamUrl: string, agent: CommonAgentConfig & Record<string, unknown>): Array<{ name: string; build(): Promise<Step> }> {
  return [
    {
      name: 'json-ends',
      build: async () => {
        const upstream = new URL(`${upstreamUrl}/ask`);
        const pool = new Pool(upstream.origin, { connections: 64 });
        const app = new Hono();
        app.post(ASK_PATH, async (c) => {
          const body: unknown = await c.req.json();
          // The same upstream URL the client and adapter steps post to.
          const r = await pool.request({ path: upstream.pathname, method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
          return c.json((await r.body.json()) as object);
        });
        return { app, close: () => pool.close() };
      },
    },
    {
      name: 'client',
      build: async () => {
        const http = new UpstreamClient({ agent: agent.name, kind: agent.kind });
        const app = new Hono();
        app.post(ASK_PATH, async (c) => {
          const body: unknown = await c.req.json();
          const signal = new AbortController().signal;
          const headers = { 'content-type': 'application/json', accept: 'application/json' };
          const res = await http.request({ url: `${upstreamUrl}/ask`, method: 'POST', headers, body: JSON.stringify(body), signal, requestId: newRequestId() });
          return c.json((await res.json()) as object);
        });
        return { app, close: () => http.close() };
      },
    },
    {
      name: 'adapter',
      build: async () => {
        const factory = builtinAdapters.find((a) => a.kind === agent.kind)!;
        const upstream = new UpstreamClient({ agent: agent.name, kind: agent.kind });
        const nlweb = factory.create(agent, { log: silentLogger, baseDir: process.cwd(), upstream });
        const app = new Hono();
        app.post(ASK_PATH, async (c) => {
          const request = (await c.req.json()) as AskRequest;
          const controller = new AbortController();
          const ctx = { signal: controller.signal, requestId: newRequestId(), log: silentLogger };
          const collected = await collectRun(() => nlweb.ask(request, ctx), controller.signal, silentLogger);
          return c.json(collected.response);
        });
        return { app, close: () => upstream.close() };
      },
    },
  ];
}

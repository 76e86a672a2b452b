/**
 * The example kitchen webtool on a real loopback port, with the knobs the fault tests need: the
 * served versions can be edited (a silent schema change), extra faulty actions can be added, and
 * every execution request is recorded.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { kitchenVersions } from '../../examples/webtools/kitchen.ts';
import { WebtoolFailure } from '../../examples/webtools/failure.ts';
import { createWebtoolApp, type ActionDefinition, type WebtoolVersion } from '../../examples/webtools/webtool-app.ts';
import { listenApp, type TestServer } from '../support/http.ts';

/** Actions that misbehave on purpose (added to the served 1.1.0 when `faults` is set). */
export const faultyActions: ActionDefinition[] = [
  {
    name: 'explode',
    description: 'Always fails with an internal error',
    request: z.object({}),
    response: z.object({}),
    run: () => {
      throw new Error('secret stack detail /etc/passwd');
    },
  },
  {
    name: 'lie',
    description: 'Returns data that breaks its own responseSchema',
    request: z.object({}),
    response: z.object({ value: z.number() }),
    run: () => ({ value: 'not a number', leaked: 'upstream-internal' }),
  },
  {
    name: 'busy',
    description: 'Always rate limited',
    request: z.object({}),
    response: z.object({}),
    run: () => {
      throw new WebtoolFailure('RATE_LIMIT', 'Too many requests', 7);
    },
  },
];

export interface KitchenUpstream extends TestServer {
  /** The webtool URL (`…/kitchen`). */
  webtoolUrl: string;
  /** The versions served; edit freely (read per request). */
  versions: WebtoolVersion[];
  /** Every execution request body received, in order. */
  posts: Array<Record<string, unknown>>;
  /** Headers of every request received (metadata and execution). */
  headers: Array<Record<string, string>>;
  /** While true, metadata requests (GET) answer 503: the metadata endpoint is down. */
  metadataDown: boolean;
}

/** Starts the kitchen webtool (optionally with the faulty actions) on a free loopback port. */
export async function startKitchen(opts: { faults?: boolean } = {}): Promise<KitchenUpstream> {
  const versions: WebtoolVersion[] = kitchenVersions.map((v) => ({ ...v, actions: [...v.actions] }));
  if (opts.faults) versions[1]!.actions.push(...faultyActions);
  const posts: Array<Record<string, unknown>> = [];
  const headers: Array<Record<string, string>> = [];
  const app = new Hono();
  const upstream: KitchenUpstream = { url: '', port: 0, close: async () => {}, webtoolUrl: '', versions, posts, headers, metadataDown: false };
  app.use(async (c, next) => {
    headers.push(c.req.header());
    if (c.req.method === 'GET' && upstream.metadataDown) return c.json({ status: 'error', error: { code: 'INTERNAL_ERROR', message: 'down' } }, 503);
    if (c.req.method === 'POST') posts.push(await c.req.raw.clone().json().catch(() => ({})));
    await next();
  });
  app.route('/', createWebtoolApp('/kitchen', () => versions));
  const server = await listenApp(app);
  return Object.assign(upstream, server, { webtoolUrl: `${server.url}/kitchen` });
}

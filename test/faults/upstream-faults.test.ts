/**
 * Upstream faults (issue "Faults and scale-out", item 1): every adapter kind that speaks HTTP sits
 * behind the project's fault proxy in front of a real upstream process; for each fault, a client on
 * every inbound protocol gets its protocol's own failure within the agent's timeout. No request
 * hangs (each client has a deadline), the gateway stays up, and no socket or timer is left behind.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, RESPONSE_FAULTS, type FaultMatch, type FaultProxy, type ResponseFault } from '../support/fault-proxy.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startLegacyServer, type LegacyServer } from '../legacy/legacy-server.ts';
import { startHttpFixture, type HttpFixture } from '../mcp/fixtures/http-server.ts';
import { startSseFixture, type SseFixture } from '../mcp/fixtures/sse-server.ts';
import { startNlipTestAgent, type NlipTestAgent } from '../nlip/nlip-test-agent.ts';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startKitchen, type KitchenUpstream } from '../webtool/kitchen-upstream.ts';
import { askVia, FAULT_TIMEOUT_MS, INBOUND, type Verdict } from './clients.ts';

/** The agent timeout (clients.ts says why 3 s). */
const TIMEOUT_MS = FAULT_TIMEOUT_MS;

interface Upstream {
  kind: string;
  proxy: FaultProxy;
  /** The requests a fault applies to: the call itself, not the handshake or metadata before it. */
  match: FaultMatch;
  agent: (url: string, name: string) => Record<string, unknown>;
}

const isPost: FaultMatch = (req) => req.method === 'POST';
const isToolCall: FaultMatch = (_req, body) => body.includes('"tools/call"');
/** The legacy SSE transport posts a call (202) and answers it on its GET stream: fault the stream. */
const isEventStream: FaultMatch = (req) => req.method === 'GET';

let gw: TestGateway;
let plain: Server;
const upstreams: Upstream[] = [];
const closers: Array<() => Promise<void>> = [];
let resourcesBefore: Record<string, number>;

function resourceCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  resourcesBefore = resourceCounts();
  const v055 = await startV055Agent();
  const legacy: LegacyServer = await startLegacyServer('C');
  const nlip: NlipTestAgent = await startNlipTestAgent();
  const kitchen: KitchenUpstream = await startKitchen();
  const mcpHttp: HttpFixture = await startHttpFixture();
  const mcpSse: SseFixture = await startSseFixture();
  closers.push(v055.close, legacy.close, nlip.close, kitchen.close, mcpHttp.close, mcpSse.close);
  const ask = { tool: 'search', arguments: { query: '{{query.text}}' } };
  const defs: Array<Omit<Upstream, 'proxy'> & { target: string; path?: string }> = [
    { kind: 'nlweb', target: v055.url, match: isPost, agent: (url, name) => ({ name, kind: 'nlweb', url }) },
    { kind: 'nlweb-legacy', target: legacy.url, match: (req) => (req.url ?? '').startsWith('/ask'), agent: (url, name) => ({ name, kind: 'nlweb-legacy', url, generation: 'C' }) },
    { kind: 'nlip', target: nlip.url, match: isPost, agent: (url, name) => ({ name, kind: 'nlip', url }) },
    {
      kind: 'webtool',
      target: kitchen.url,
      match: isPost,
      agent: (url, name) => ({ name, kind: 'webtool', url: url + new URL(kitchen.webtoolUrl).pathname, ask: { action: 'convert_text', request: { text: '{{query.text}}' } } }),
    },
    { kind: 'mcp-http', target: mcpHttp.url, match: isToolCall, agent: (url, name) => ({ name, kind: 'mcp', url: url + new URL(mcpHttp.mcpUrl).pathname, ask }) },
    { kind: 'mcp-sse', target: mcpSse.url, match: isEventStream, agent: (url, name) => ({ name, kind: 'mcp', transport: 'sse', url: url + new URL(mcpSse.sseUrl).pathname, ask }) },
  ];
  // A server that answers plain HTTP where the gateway expects TLS: the handshake fails.
  plain = createServer((_req, res) => res.end('plain http'));
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  const plainPort = (plain.address() as AddressInfo).port;

  const agents: Record<string, unknown>[] = [];
  for (const d of defs) {
    const proxy = await startFaultProxy(d.target);
    closers.push(proxy.close);
    upstreams.push({ ...d, proxy });
    agents.push(d.agent(proxy.url, `${d.kind}-faulty`));
    // Connection-level faults need no proxy: the URL itself is broken.
    agents.push(d.agent('http://127.0.0.1:9', `${d.kind}-refused`));
    agents.push(d.agent('http://nlgate-faults.invalid', `${d.kind}-dns`));
    agents.push(d.agent(`https://127.0.0.1:${plainPort}`, `${d.kind}-tls`));
  }
  agents.push({ name: 'slow-promise', kind: 'nlweb', url: upstreams[0]!.proxy.url, promiseAfterMs: 100 });
  agents.push({ name: 'stdio-die', kind: 'mcp', command: process.execPath, args: ['--import', 'tsx', 'test/faults/fixtures/stdio-faulty.ts'], ask: { tool: 'die', arguments: { query: '{{query.text}}' } } });
  agents.push({ name: 'stdio-garbage', kind: 'mcp', command: process.execPath, args: ['--import', 'tsx', 'test/faults/fixtures/stdio-faulty.ts'], ask: { tool: 'garbage', arguments: { query: '{{query.text}}' } } });
  gw = await startGateway({ defaults: { timeoutMs: TIMEOUT_MS, promiseAfterMs: 60_000 }, agents: agents.map((a) => ({ timeoutMs: TIMEOUT_MS, ...a })) });
  // One round before the tests, its verdicts ignored: the first call on each path loads its SDKs
  // (lazily, issue 23), which on a loaded machine can take longer than the 3 s agent timeout; the
  // tests are about faults, not about a cold start.
  await Promise.all(upstreams.map((u) => everyProtocol(`${u.kind}-faulty`)));
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await new Promise<void>((r) => (plain ? plain.close(() => r()) : r()));
  await Promise.all(closers.map((c) => c()));
});

/** Asks on every inbound protocol at once; returns each protocol's verdict. */
async function everyProtocol(agent: string): Promise<Record<string, Verdict>> {
  const verdicts = await Promise.all(INBOUND.map(async (p) => [p, await askVia(p, gw.url, agent, '2 cups pumpkin soup').catch((e: unknown) => ({ outcome: 'failure', detail: `CLIENT: ${String(e)}` }) as Verdict)] as const));
  return Object.fromEntries(verdicts);
}

/** A protocol-proper failure: the client parsed its own protocol's error, it did not time out or choke. */
function expectProtocolFailures(verdicts: Record<string, Verdict>, kind: string): void {
  for (const [protocol, v] of Object.entries(verdicts)) {
    expect({ kind, protocol, ...v }).toMatchObject({ kind, protocol, outcome: 'failure' });
    expect(v.detail, `${protocol}: ${v.detail}`).not.toMatch(/^(CLIENT|NOT MCP)/);
  }
}

describe('upstream faults reach every inbound client as its own protocol failure', () => {
  it('passes answers through when no fault is set (the set-up itself works)', async () => {
    const answers = await Promise.all(upstreams.map(async (u) => [u.kind, await everyProtocol(`${u.kind}-faulty`)] as const));
    for (const [kind, verdicts] of answers) {
      for (const [protocol, v] of Object.entries(verdicts)) expect({ kind, protocol, ...v }).toMatchObject({ outcome: 'answer' });
    }
  }, 90_000);

  for (const fault of RESPONSE_FAULTS) {
    it(`${fault}: every adapter kind, every inbound protocol`, async () => {
      const failures: string[] = [];
      // Each kind has its own proxy, so the kinds are faulted side by side.
      await Promise.all(upstreams.map(async (u) => {
        u.proxy.setFault(fault as ResponseFault, u.match);
        const verdicts = await everyProtocol(`${u.kind}-faulty`);
        u.proxy.setFault(undefined);
        failures.push(...Object.entries(verdicts).filter(([, v]) => fault !== 'sse-garbage' && v.outcome !== 'failure').map(([p, v]) => `${u.kind} ${fault} ${p}: ${v.outcome} ${v.detail}`));
        // Garbage between SSE events may be skipped by a tolerant reader: an answer is fine then,
        // as long as the client got a well-formed reply of its protocol.
        if (fault === 'sse-garbage') {
          for (const v of Object.values(verdicts)) expect(v.detail).not.toMatch(/^(CLIENT|NOT MCP)/);
        }
      }));
      expect(failures).toEqual([]);
    }, 90_000);
  }

  for (const broken of ['refused', 'dns', 'tls'] as const) {
    it(`${broken}: every adapter kind, every inbound protocol`, async () => {
      const all = await Promise.all(upstreams.map(async (u) => [u.kind, await everyProtocol(`${u.kind}-${broken}`)] as const));
      for (const [kind, verdicts] of all) expectProtocolFailures(verdicts, `${kind} ${broken}`);
    }, 90_000);
  }

  it('a stdio MCP child killed mid-call, or writing garbage to stdout, fails the call cleanly', async () => {
    expectProtocolFailures(await everyProtocol('stdio-die'), 'stdio die');
    const garbage = await everyProtocol('stdio-garbage');
    for (const v of Object.values(garbage)) expect(v.detail).not.toMatch(/^(CLIENT|NOT MCP)/);
  }, 90_000);

  it('a promise whose upstream hangs ends failed, not running', async () => {
    upstreams[0]!.proxy.setFault('hang', isPost);
    try {
      const res = await fetch(`${gw.url}/agents/slow-promise/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'pumpkin' }, prefer: { streaming: false } }) });
      const body = (await res.json()) as { _meta: { response_type: string }; promise?: { token: string } };
      expect(body._meta.response_type).toBe('promise');
      const checkin = await fetch(`${gw.url}/await`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ promise_token: body.promise!.token, action: 'checkin', wait_ms: TIMEOUT_MS + 10_000 }) });
      const settled = (await checkin.json()) as { _meta: { response_type: string }; error?: { code: string } };
      expect(settled._meta.response_type).toBe('failure');
      expect(settled.error?.code).toBe('TIMEOUT');
    } finally {
      upstreams[0]!.proxy.setFault(undefined);
    }
  }, 60_000);

  it('the gateway is still up and leaves no socket or timer behind once closed', async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    await gw.close();
    await new Promise<void>((r) => plain.close(() => r()));
    await Promise.all(closers.splice(0).map((c) => c()));
    await new Promise((r) => setTimeout(r, 200));
    const after = resourceCounts();
    for (const kind of ['TCPSocketWrap', 'TCPServerWrap', 'Timeout', 'ProcessWrap']) {
      expect({ kind, count: after[kind] ?? 0 }).toEqual({ kind, count: expect.any(Number) });
      expect(after[kind] ?? 0, `${kind} left behind`).toBeLessThanOrEqual(resourcesBefore[kind] ?? 0);
    }
  }, 30_000);
});

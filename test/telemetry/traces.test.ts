/**
 * Issue 13 item 2: one trace crosses NLIP client → gateway → NLWeb upstream with the client's trace
 * id. A real OTLP/HTTP receiver (JSON encoding) on loopback collects what the gateway process
 * exports; the upstream test agent records the `traceparent` it was sent. The client's context
 * arrives as a W3C header, as an NLIP token submessage, and as MCP `params._meta`.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../mcp/support.ts';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { listenRaw, readBody, type TestServer } from '../support/http.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}
const SERVER = 2;
const CLIENT = 3;

/** An OTLP/HTTP trace receiver: collects every span of every `POST /v1/traces` (JSON encoding). */
async function startOtlpReceiver(): Promise<TestServer & { spans: OtlpSpan[]; services: Set<string> }> {
  const spans: OtlpSpan[] = [];
  const services = new Set<string>();
  const server = await listenRaw(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
    expect(req.url).toBe('/v1/traces');
    for (const rs of body.resourceSpans) {
      const name = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
      if (typeof name === 'string') services.add(name);
      for (const ss of rs.scopeSpans) spans.push(...ss.spans);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  return Object.assign(server, { spans, services });
}

const attr = (span: OtlpSpan, key: string) => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return v ? (v.stringValue ?? v.intValue ?? v.boolValue) : undefined;
};

const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
};

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let upstream: Awaited<ReturnType<typeof startV055Agent>>;
let gw: GatewayProcess;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startV055Agent();
  gw = await spawnGateway(
    { agents: [{ name: 'remote', kind: 'nlweb', url: upstream.url, streaming: false }] },
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'nlgate-trace-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  );
}, 30_000);
afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
  await receiver?.close();
});

/** The spans of one trace, once the gateway exported its server, core and upstream client spans. */
async function traceOf(traceId: string): Promise<OtlpSpan[]> {
  await expect
    .poll(() => receiver.spans.filter((s) => s.traceId === traceId).map((s) => s.kind), { timeout: 10_000, interval: 100 })
    .toEqual(expect.arrayContaining([SERVER, CLIENT]));
  return receiver.spans.filter((s) => s.traceId === traceId);
}

/** Checks the chain client → server span → core span → upstream client span → upstream's traceparent. */
function expectChain(spans: OtlpSpan[], client: { traceId: string; parentId: string }, received: string | undefined) {
  const server = spans.find((s) => s.kind === SERVER)!;
  expect(server.parentSpanId).toBe(client.parentId);
  const core = spans.find((s) => s.name === 'ask remote')!;
  expect(core.parentSpanId).toBe(server.spanId);
  expect(attr(core, 'gen_ai.operation.name')).toBe('invoke_agent');
  const upstreamCall = spans.find((s) => s.kind === CLIENT)!;
  expect(upstreamCall.parentSpanId).toBe(core.spanId);
  expect(upstreamCall.name).toBe('POST');
  expect(attr(upstreamCall, 'url.full')).toBe(`${upstream.url}/ask`);
  expect(attr(upstreamCall, 'http.response.status_code')).toBe(200);
  // The upstream continued the same trace, as a child of the gateway's client span.
  expect(received).toBe(`00-${client.traceId}-${upstreamCall.spanId}-01`);
  return server;
}

describe('traces (OTLP/HTTP to a real receiver)', () => {
  it('NLIP with a W3C traceparent header: one trace from the client through the gateway to the NLWeb upstream', async () => {
    const client = newTraceparent();
    const res = await fetch(`${gw.url}/agents/remote/nlip`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: client.header, tracestate: 'vendor=abc' },
      body: JSON.stringify({ format: 'text', subformat: 'english', content: 'pasta' }),
    });
    expect(res.status).toBe(200);
    const received = upstream.received.at(-1)!;
    const server = expectChain(await traceOf(client.traceId), client, received.headers.traceparent);
    expect(server.name).toBe('POST /agents/:agent/nlip');
    expect(attr(server, 'http.route')).toBe('/agents/:agent/nlip');
    expect(attr(server, 'http.request.method')).toBe('POST');
    expect(attr(server, 'http.response.status_code')).toBe(200);
    expect(received.headers.tracestate).toBe('vendor=abc');
    expect(receiver.services).toContain('nlgate-trace-test');
  }, 30_000);

  it('NLIP with the trace context in a token submessage (subformat traceparent)', async () => {
    const client = newTraceparent();
    const res = await fetch(`${gw.url}/agents/remote/nlip`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'text', subformat: 'english', content: 'soup', submessages: [{ format: 'token', subformat: 'traceparent', content: client.header }] }),
    });
    expect(res.status).toBe(200);
    expectChain(await traceOf(client.traceId), client, upstream.received.at(-1)!.headers.traceparent);
  }, 30_000);

  it('MCP with the trace context in params._meta: the server span follows the MCP conventions', async () => {
    const client = newTraceparent();
    const mcp = await connectClient(`${gw.url}/mcp`, '2026-07-28');
    const result = await mcp.callTool({ name: 'ask', arguments: { query: { text: 'stew' } }, _meta: { traceparent: client.header } });
    expect(result.isError).toBeFalsy();
    await mcp.close();
    const server = expectChain(await traceOf(client.traceId), client, upstream.received.at(-1)!.headers.traceparent);
    expect(server.name).toBe('tools/call ask');
    expect(attr(server, 'mcp.method.name')).toBe('tools/call');
    expect(attr(server, 'gen_ai.tool.name')).toBe('ask');
  }, 30_000);

  it('a request without trace context starts a new trace and still propagates it upstream', async () => {
    const before = upstream.received.length;
    const res = await fetch(`${gw.url}/agents/remote/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'bread' } }) });
    expect(res.status).toBe(200);
    const sent = upstream.received.slice(before).at(-1)!.headers.traceparent;
    expect(sent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = sent!.split('-')[1]!;
    const spans = await traceOf(traceId);
    expect(spans.find((s) => s.kind === SERVER)?.parentSpanId ?? '').toBe('');
  }, 30_000);
});

/**
 * Issue 18 "MCP fidelity", items 2–7: what real MCP servers exposed, each pinned by a regression test
 * named after the finding, through a real gateway, the SDK's real clients of both revisions and a
 * real Streamable HTTP upstream (test/mcp/fixtures/http-server.ts). Item 1 is in
 * fidelity-sessions.test.ts (server-everything restarted).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseSseText } from '../support/http.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.ts';
import { ERAS, STDIO_FIXTURE, connectClient, eventually, modernHeaders } from './support.ts';

let fixture: HttpFixture;
let gw: TestGateway;
let bare: TestGateway;

beforeAll(async () => {
  fixture = await startHttpFixture();
  gw = await startGateway({
    agents: [
      { name: 'pantry', kind: 'mcp', url: fixture.mcpUrl, ask: { tool: 'search', arguments: { query: '{{query.text}}' } } },
      { name: 'counter', kind: 'mcp', url: fixture.mcpUrl, protocol: 'legacy', ask: { tool: 'count', arguments: { n: 3 } } },
      { name: 'local', kind: 'mcp', ...STDIO_FIXTURE, protocol: 'legacy' },
      { name: 'jobs', kind: 'mcp', command: process.execPath, args: ['--import', 'tsx', 'test/mcp/fixtures/task-server.ts'], protocol: 'legacy' },
    ],
  });
  bare = await startGateway({ agents: [{ name: 'recipes', kind: 'scripted' }] });
});
afterAll(async () => {
  await gw?.close();
  await bare?.close();
  await fixture?.close();
});

const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text?: string }>)[0]?.text;

describe.each(ERAS)('a %s client', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectClient(`${gw.url}/mcp`, era);
  });
  afterAll(() => client?.close());

  it('upstream error data dropped (item 2): resources/read of an unknown URI keeps the upstream data.uri', async () => {
    const err = (await client.readResource({ uri: 'fixture://missing' }).catch((e: unknown) => e)) as { code?: number; data?: { uri?: string } };
    expect(err.code).toBe(-32602);
    expect(err.data).toMatchObject({ uri: 'fixture://missing' });
  });

  it("upstream progress total dropped (item 7): a tool's total and an ask's total reach the client", async () => {
    const seen: Array<{ progress: number; total?: number }> = [];
    await client.callTool({ name: 'pantry__count', arguments: { n: 3 } }, { onprogress: (p) => seen.push(p) });
    expect(seen).toEqual([expect.objectContaining({ progress: 1, total: 3 }), expect.objectContaining({ progress: 2, total: 3 }), expect.objectContaining({ progress: 3, total: 3 })]);
    const asked: Array<{ progress: number; total?: number }> = [];
    const r = await client.callTool({ name: 'ask', arguments: { query: { text: 'count', site: 'counter' } } }, { onprogress: (p) => asked.push(p) });
    expect(r.isError).toBeFalsy();
    expect(asked.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it('execution.taskSupport "required" is stripped (item 4): the tool is kept and its calls answer, run as a task upstream', async () => {
    const report = (await client.listTools()).tools.find((t) => t.name === 'jobs__report');
    expect(report).toBeDefined();
    expect(report?.execution?.taskSupport).not.toBe('required'); // the gateway serves it as a plain call
    const r = await client.callTool({ name: 'jobs__report', arguments: { topic: 'soup' } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toBe('report on soup');
  });

  it('a 2025 upstream\'s taskSupport "required" tool runs as a 2026-07-28 task for a client with the tasks extension', async () => {
    const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const call = async (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const res = await modernRequest(`${gw.url}/mcp`, method, params, headers, caps);
      const text = await res.text();
      const body = (res.headers.get('content-type') ?? '').includes('text/event-stream') ? parseSseText(text).map((e) => e.data as Record<string, any>).find((m) => m && 'id' in m)! : JSON.parse(text);
      expect(body.error, JSON.stringify(body)).toBeUndefined();
      return body.result as Record<string, any>;
    };
    const created = await call('tools/call', { name: 'jobs__report', arguments: { topic: 'stew' } });
    expect(created.resultType).toBe('task');
    let task: Record<string, any> = {};
    await eventually(async () => {
      task = await call('tasks/get', { taskId: created.taskId }, { 'mcp-name': created.taskId });
      return task.status === 'completed';
    }, 15_000);
    expect(JSON.stringify(task.result)).toContain('report on stew');
  });

  it('server/discover lists only 2026-07-28 (item 7): it names the 2025 revisions the endpoint also serves', async () => {
    const res = await modernRequest(`${gw.url}/mcp`, 'server/discover', {});
    const body = (await res.json()) as { result?: { supportedVersions?: string[] }; error?: unknown };
    expect(body.error, JSON.stringify(body)).toBeUndefined();
    expect(body.result?.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']));
  });
});

const UNDECLARED = [
  ['resources/list', {}],
  ['resources/templates/list', {}],
  ['prompts/list', {}],
  ['resources/read', { uri: 'x://y' }],
  ['prompts/get', { name: 'p' }],
] as const;

/** A 2026-07-28 request as it travels (per-request envelope in `_meta`, MCP-Protocol-Version header). */
function modernRequest(url: string, method: string, params: Record<string, unknown>, extraHeaders: Record<string, string> = {}, capabilities: Record<string, unknown> = {}): Promise<Response> {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': capabilities };
  return fetch(url, {
    method: 'POST',
    headers: { ...modernHeaders(method, typeof params.uri === 'string' || typeof params.name === 'string' ? String(params.uri ?? params.name) : undefined), ...extraHeaders },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  });
}

describe('undeclared methods', () => {
  it('undeclared resources/prompts methods answer [] (item 7): both revisions get -32601 from a gateway without them', async () => {
    for (const [method, params] of UNDECLARED) {
      const body = (await (await modernRequest(`${bare.url}/mcp`, method, params)).json()) as { error?: { code?: number } };
      expect(body.error?.code, method).toBe(-32601);
    }
    // Sent raw: the SDK client answers some undeclared lists locally without asking the server.
    const client = await connectClient(`${bare.url}/mcp`, '2025-11-25');
    try {
      for (const [method, params] of UNDECLARED) await expect(client.request({ method, params } as never, z.looseObject({})), method).rejects.toMatchObject({ code: -32601 });
    } finally {
      await client.close();
    }
  });
});

describe('Mcp-Param headers (SEP-2243)', () => {
  it("a published tool's x-mcp-header parameter must come as its header too: missing or different is 400 / -32020", async () => {
    const call = (headers: Record<string, string>) =>
      modernRequest(`${gw.url}/mcp`, 'tools/call', { name: 'pantry__by_region', arguments: { region: 'eu-west' } }, headers);
    const ok = await call({ 'mcp-param-region': 'eu-west' });
    expect(ok.status).toBe(200);
    expect(JSON.stringify(await ok.json())).toContain('region eu-west');
    for (const headers of [{}, { 'mcp-param-region': 'us-east' }] as Array<Record<string, string>>) {
      const refused = await call(headers);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error?: { code?: number } }).error?.code).toBe(-32020);
    }
  });
});

describe('elicitation modes', () => {
  it('URL-mode elicitation sent to a form-only client (item 3): the gateway declines for it', async () => {
    const asked: Array<Record<string, unknown>> = [];
    const client = await connectClient(`${gw.url}/mcp`, '2025-11-25', { onElicit: (p) => (asked.push(p), { action: 'accept', content: {} }) });
    try {
      // A shared upstream session (stdio) declares both modes: the gateway itself declines for the client.
      expect(textOf(await client.callTool({ name: 'local__open_link', arguments: {} }))).toBe('link decline');
      // A session of its own (HTTP) declares only the client's form mode: the upstream does not even ask.
      const own = (await client.callTool({ name: 'pantry__open_link', arguments: {} }).catch((e: unknown) => e)) as { message?: string };
      expect(own.message).toContain('do not declare the required capability');
      expect(asked).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a client that declared url mode gets the URL elicitation', async () => {
    const client = new Client({ name: 'url-client', version: '1' }, { versionNegotiation: { mode: 'legacy' }, capabilities: { elicitation: { form: {}, url: {} } } });
    const asked: Array<Record<string, unknown>> = [];
    client.setRequestHandler('elicitation/create', async (req) => (asked.push(req.params as Record<string, unknown>), { action: 'accept' }) as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    try {
      expect(textOf(await client.callTool({ name: 'pantry__open_link', arguments: {} }))).toBe('link accept');
      expect(asked[0]).toMatchObject({ mode: 'url', url: 'https://example.com/sign-in' });
    } finally {
      await client.close();
    }
  });
});

describe('cancellation', () => {
  it('cancel reason reads "GatewayError: The client went away" (item 7): the upstream gets the plain message', async () => {
    const client = await connectClient(`${gw.url}/mcp`, '2025-11-25');
    const before = fixture.state.cancelReasons?.length ?? 0;
    try {
      const abort = new AbortController();
      // A 2025 upstream session: cancels travel as notifications/cancelled with a reason (2026 closes the stream).
      const call = client.callTool({ name: 'counter__wait', arguments: {} }, { signal: abort.signal }).catch(() => undefined);
      await eventually(() => (fixture.state.waiting ?? 0) > 0);
      abort.abort('the user gave up');
      await call;
      await eventually(() => (fixture.state.cancelReasons?.length ?? 0) > before);
      const reason = fixture.state.cancelReasons!.at(-1)!;
      expect(reason).not.toMatch(/GatewayError/);
      expect(reason).toBe('The client went away');
    } finally {
      await client.close();
    }
  });
});

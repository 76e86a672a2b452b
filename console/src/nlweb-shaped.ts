import { isSummary, type ConversationState, type Item, type TurnHooks } from './model.ts';
import { parseJson, sleep, wireFetch } from './wire-fetch.ts';

/** The three protocols whose payload is an NLWeb v0.55 response: plain JSON, MCP, webtool. */
export type NlwebTransport = 'nlweb-json' | 'mcp' | 'webtool';

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };
const MCP_REVISION = '2026-07-28';
let rpcId = 0;

/** Calls `ask` or `await` over one transport and returns the NLWeb response it carries. */
export async function callNlweb(transport: NlwebTransport, agent: string, tool: 'ask' | 'await', args: Record<string, unknown>, conv: ConversationState, hooks: TurnHooks): Promise<any> {
  const a = encodeURIComponent(agent);
  if (transport === 'nlweb-json') {
    const { text } = await wireFetch(hooks, `/agents/${a}/${tool}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(args) });
    return parseJson(text) ?? failure('INVALID_RESPONSE', text.slice(0, 200));
  }
  if (transport === 'webtool') {
    conv.webtoolSession ??= crypto.randomUUID();
    const body = { sessionId: conv.webtoolSession, action: tool, request: args };
    const { text } = await wireFetch(hooks, `/webtools/${a}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
    const env = parseJson(text);
    if (env?.status === 'ok') return env.data;
    return failure(env?.error?.code ?? 'INVALID_RESPONSE', env?.error?.message ?? text.slice(0, 200));
  }
  // MCP 2026-07-28: a self-contained tools/call (no session); the revision travels in _meta and headers.
  const request = {
    jsonrpc: '2.0',
    id: ++rpcId,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MCP_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'nlgate-console', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': MCP_REVISION, 'Mcp-Method': 'tools/call', 'Mcp-Name': tool };
  const { text } = await wireFetch(hooks, `/agents/${a}/mcp`, { method: 'POST', headers, body: JSON.stringify(request) });
  const rpc = parseJson(text) ?? lastSseJson(text);
  if (rpc?.error) return failure(`JSON-RPC ${rpc.error.code}`, rpc.error.message);
  const result = rpc?.result;
  if (result?.structuredContent?._meta) return result.structuredContent;
  const said = (result?.content ?? []).map((c: any) => c.text).filter(Boolean).join('\n');
  return failure(result?.isError ? 'TOOL_ERROR' : 'INVALID_RESPONSE', said || text.slice(0, 200));
}

function lastSseJson(text: string): any {
  const lines = text.split('\n').filter((l) => l.startsWith('data:'));
  for (const line of lines.reverse()) {
    const v = parseJson(line.slice(5).trim());
    if (v?.jsonrpc) return v;
  }
  return undefined;
}

const failure = (code: string, message?: string) => ({ _meta: { response_type: 'failure' }, error: { code, message } });

/** Shows an NLWeb response in the turn (v0.55 4.1): answer, elicitation, promise or failure. */
export function applyNlweb(resp: any, conv: ConversationState, hooks: TurnHooks): 'answer' | 'elicitation' | 'promise' | 'failure' {
  if (resp?._meta?.response_type === 'promise' && !resp.promise?.token) resp = failure('INVALID_RESPONSE', 'a promise without a token');
  const meta = resp?._meta ?? {};
  if (meta.session_context) conv.sessionContext = meta.session_context;
  switch (meta.response_type) {
    case 'answer': {
      const items: Item[] = resp.results ?? resp.structuredData ?? [];
      const summary = items.find(isSummary);
      hooks.update({ status: 'done', results: items.filter((i) => !isSummary(i)), ...(summary ? { summary: String(summary.text) } : {}) });
      return 'answer';
    }
    case 'elicitation':
      hooks.update({ status: 'elicitation', elicitation: resp.elicitation ?? {} });
      return 'elicitation';
    case 'promise':
      hooks.update({ status: 'promise', promise: resp.promise });
      return 'promise';
    default:
      hooks.update({ status: resp?.error?.code === 'CANCELLED' ? 'cancelled' : 'failed', failure: { code: resp?.error?.code ?? 'UNKNOWN', message: resp?.error?.message } });
      return 'failure';
  }
}

/** Asks over an NLWeb-shaped transport, then checks the promise in until it settles or is cancelled (4.2). */
export async function runNlwebShaped(transport: NlwebTransport, agent: string, askBody: Record<string, unknown>, conv: ConversationState, hooks: TurnHooks): Promise<void> {
  let resp = await callNlweb(transport, agent, 'ask', askBody, conv, hooks);
  let outcome = applyNlweb(resp, conv, hooks);
  let cancel = false;
  void hooks.cancelled.then(() => (cancel = true));
  while (outcome === 'promise' && !hooks.signal.aborted) {
    const token = String(resp.promise.token);
    const action = cancel ? 'cancel' : 'checkin';
    const body = action === 'cancel' ? { promise_token: token, action } : { promise_token: token, action, wait_ms: 1000 };
    const next = await callNlweb(transport, agent, 'await', body, conv, hooks);
    // A check-in answers the promise again without its token in some transports: keep the one we have.
    if (next?._meta?.response_type === 'promise') next.promise = { token, ...next.promise };
    resp = next;
    outcome = applyNlweb(resp, conv, hooks);
    // A webtool reports a cancelled promise as an error of its own: the user asked, so it is cancelled.
    if (action === 'cancel' && outcome === 'failure') hooks.update({ status: 'cancelled' });
    if (outcome === 'promise' && !cancel) await Promise.race([sleep(300, hooks.signal), hooks.cancelled]);
  }
}


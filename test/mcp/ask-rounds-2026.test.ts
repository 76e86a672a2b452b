/**
 * The `ask` tool's elicitation round for 2026-07-28 clients (SEP-2322 `input_required`): the
 * questions go out with a `requestState`, the answers come back with it and reach the agent. The
 * state is the client's to hold (not signed); regression: a tampered state that is not an
 * elicitation crashed the round into an internal error, and is now ignored (the agent asks again).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { parseSseText } from '../support/http.ts';
import { modernHeaders } from './support.ts';

let gw: TestGateway;
let upstream: Awaited<ReturnType<typeof startV055Agent>>;

beforeAll(async () => {
  upstream = await startV055Agent();
  gw = await startGateway({ agents: [{ name: 'remote', kind: 'nlweb', url: upstream.url, streaming: false }] });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

/** One stateless 2026-07-28 `tools/call ask` from a client that answers form elicitations. */
async function ask(extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await fetch(`${gw.url}/agents/remote/mcp`, {
    method: 'POST',
    headers: modernHeaders('tools/call', 'ask'),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'ask',
        arguments: { query: { text: 'elicit a dinner' } },
        ...extra,
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
      },
    }),
  });
  const text = await res.text();
  const body = (res.headers.get('content-type') ?? '').includes('text/event-stream') ? parseSseText(text).map((e) => e.data as Record<string, any>).find((m) => m && 'id' in m)! : JSON.parse(text);
  return body.result;
}

const lastUpstreamBody = () => upstream.received.at(-1)!.body as { query: { text: string }; context?: { answers?: unknown } };

describe('ask rounds for 2026-07-28 clients', () => {
  it('sends the questions with a requestState and brings the answers back to the agent', async () => {
    const first = await ask();
    expect(first.resultType).toBe('input_required');
    expect(typeof first.requestState).toBe('string');
    const [key] = Object.keys(first.inputRequests);
    await ask({ inputResponses: { [key!]: { action: 'accept', content: { diet: 'vegan' } } }, requestState: first.requestState });
    expect(lastUpstreamBody().context?.answers).toEqual({ diet: 'vegan' });
    expect(lastUpstreamBody().query.text).toContain('Any dietary restrictions? vegan');
  });

  it('ignores a requestState that is not an elicitation (tampered), without an internal error', async () => {
    const first = await ask();
    const [key] = Object.keys(first.inputRequests);
    for (const requestState of [Buffer.from('{"questions":"not a list"}').toString('base64url'), '%%% not base64 %%%']) {
      const again = await ask({ inputResponses: { [key!]: { action: 'accept', content: { diet: 'vegan' } } }, requestState });
      expect(again.isError).toBeFalsy();
      expect(again.resultType).toBe('input_required');
      expect(lastUpstreamBody().context?.answers).toBeUndefined();
    }
  });
});

/**
 * One question asked on every inbound protocol, each reduced to a verdict: did the client get its
 * protocol's own answer or its protocol's own failure? (issue "Faults and scale-out", item 1).
 * Every call carries its own deadline so a hang is a failed assertion, not a stuck suite.
 */
import type { Client } from '@modelcontextprotocol/client';
import { parseSseText } from '../support/http.ts';
import { connectClient } from '../mcp/support.ts';

export type Verdict = { outcome: 'answer' | 'failure'; detail: string };
export const INBOUND = ['nlweb-json', 'nlweb-sse', 'nlip', 'mcp', 'webtool', 'legacy'] as const;
export type Inbound = (typeof INBOUND)[number];

/**
 * The agent timeout of the fault suites: every fault must surface as a failure well before the
 * clients' deadline. A loopback answer takes milliseconds even on a loaded 2-core CI machine, so
 * 3 s never mistakes an answer for a hang; each fault that hangs waits it out once per test (it was
 * 6 s, which made the two fault suites a minute and a half of CI's time).
 */
export const FAULT_TIMEOUT_MS = 3_000;

/** A client gives up after this long: longer than any agent timeout the suite configures. */
const CLIENT_DEADLINE_MS = 20_000;

async function post(url: string, body: unknown, accept = 'application/json'): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(CLIENT_DEADLINE_MS),
  });
}

/** Asks `agent` on the gateway at `base` through `inbound`, and says what the client saw. */
export async function askVia(inbound: Inbound, base: string, agent: string, text: string): Promise<Verdict> {
  switch (inbound) {
    case 'nlweb-json': {
      const res = await post(`${base}/agents/${agent}/ask`, { query: { text }, prefer: { streaming: false } });
      const body = (await res.json()) as { _meta: { response_type: string }; error?: { code: string } };
      return body._meta.response_type === 'failure' ? { outcome: 'failure', detail: body.error?.code ?? '' } : { outcome: 'answer', detail: body._meta.response_type };
    }
    case 'nlweb-sse': {
      const res = await post(`${base}/agents/${agent}/ask`, { query: { text }, prefer: { streaming: true } }, 'text/event-stream');
      const events = parseSseText(await res.text());
      const last = events.at(-1);
      if (last?.event !== 'complete') return { outcome: 'failure', detail: `stream did not end with complete: ${JSON.stringify(last)}` };
      const error = events.find((e) => e.event === 'error');
      return error ? { outcome: 'failure', detail: (error.data as { error?: { code?: string } }).error?.code ?? 'error' } : { outcome: 'answer', detail: `${events.length} events` };
    }
    case 'nlip': {
      const res = await post(`${base}/agents/${agent}/nlip/`, { format: 'text', subformat: 'english', content: text });
      const body = (await res.json()) as { submessages?: Array<{ format: string; content: unknown }> };
      const error = body.submessages?.find((s) => s.format === 'error');
      return error ? { outcome: 'failure', detail: String(error.content) } : { outcome: 'answer', detail: 'nlip reply' };
    }
    case 'mcp': {
      const client: Client = await connectClient(`${base}/agents/${agent}/mcp`, '2026-07-28');
      try {
        const result = (await client.callTool({ name: 'ask', arguments: { query: { text } } }, { timeout: CLIENT_DEADLINE_MS })) as { isError?: boolean; content?: Array<{ text?: string }> };
        return result.isError ? { outcome: 'failure', detail: result.content?.[0]?.text ?? '' } : { outcome: 'answer', detail: 'tool result' };
      } catch (err) {
        // A JSON-RPC error is MCP's own failure too (interop.md): anything else is not.
        const code = (err as { code?: unknown }).code;
        return typeof code === 'number' ? { outcome: 'failure', detail: `json-rpc ${code}` } : { outcome: 'failure', detail: `NOT MCP: ${String(err)}` };
      } finally {
        await client.close().catch(() => undefined);
      }
    }
    case 'webtool': {
      const res = await post(`${base}/webtools/${agent}`, { action: 'ask', request: { query: { text } } });
      const body = (await res.json()) as { status: string; error?: { code?: string } };
      return body.status === 'error' ? { outcome: 'failure', detail: body.error?.code ?? '' } : { outcome: 'answer', detail: body.status };
    }
    case 'legacy': {
      const res = await fetch(`${base}/agents/${agent}/ask?query=${encodeURIComponent(text)}&streaming=false`, { signal: AbortSignal.timeout(CLIENT_DEADLINE_MS) });
      const body = (await res.json()) as { error?: { message_type?: string; code?: string } };
      return body.error ? { outcome: 'failure', detail: body.error.code ?? 'error' } : { outcome: 'answer', detail: 'legacy reply' };
    }
  }
}

import type { ConversationState, Elicitation, Protocol, TurnHooks } from './model.ts';
import { runNlip } from './nlip.ts';
import { runNlwebShaped } from './nlweb-shaped.ts';
import { runLegacy, runNlwebSse } from './streamed.ts';

/** Answers to an elicitation's questions, keyed by question id. */
export type Answers = Record<string, unknown>;

/** The query text with the answers appended, as the MCP binding continues an elicitation. */
export function withAnswers(query: string, e: Elicitation | undefined, answers: Answers): string {
  const parts = (e?.questions ?? []).map((q) => `${q.text} ${Array.isArray(answers[q.id]) ? (answers[q.id] as unknown[]).join(', ') : String(answers[q.id] ?? '')}`);
  return parts.length > 0 ? `${query} (${parts.join('; ')})` : query;
}

/** Runs one turn over the chosen protocol, carrying the conversation in that protocol's own way. */
export async function runTurn(protocol: Protocol, agent: string, query: string, conv: ConversationState, hooks: TurnHooks, answers?: Answers): Promise<void> {
  const askBody: Record<string, unknown> = {
    query: { text: query },
    prefer: { mode: 'list, summarize' },
    ...(answers ? { context: { answers, prev: conv.prev } } : {}),
    ...(conv.sessionContext ? { meta: { session_context: conv.sessionContext } } : {}),
  };
  try {
    if (protocol === 'nlweb-sse') await runNlwebSse(agent, askBody, conv, hooks);
    else if (protocol === 'nlip') await runNlip(agent, query, conv, hooks, answers ? [{ format: 'structured', subformat: 'json', label: 'context', content: { answers } }] : []);
    else if (protocol === 'nlweb-legacy') await runLegacy(agent, query, conv, hooks);
    else await runNlwebShaped(protocol, agent, askBody, conv, hooks);
  } catch (err) {
    if (hooks.signal.aborted) hooks.update({ status: 'cancelled' });
    else hooks.update({ status: 'failed', failure: { code: 'NETWORK_ERROR', message: String((err as Error).message ?? err) } });
  }
  if (protocol !== 'nlweb-legacy') conv.prev = [...conv.prev, query];
}

import { isSummary, type ConversationState, type Item, type TurnHooks } from './model.ts';
import { parseJson, sseParser, wireFetch } from './wire-fetch.ts';

/**
 * NLWeb v0.55 6.1 SSE: named events `start`, `result` ({index, item}), `error`, `complete`; an
 * elicitation arrives on `complete`. Results render as they arrive.
 */
export async function runNlwebSse(agent: string, askBody: Record<string, unknown>, conv: ConversationState, hooks: TurnHooks): Promise<void> {
  let failed = false;
  let elicited = false;
  const onEvent = (event: string, data: string) => {
    const v = parseJson(data);
    if (!v) return;
    if (v._meta?.session_context) conv.sessionContext = v._meta.session_context;
    if (event === 'result' && v.item) {
      if (isSummary(v.item)) hooks.update({ summary: String(v.item.text) });
      else hooks.addResult(v.item);
    } else if (event === 'error' && v.error) {
      failed = true;
      hooks.update({ status: 'failed', failure: { code: v.error.code, message: v.error.message } });
    } else if (event === 'complete' && v._meta?.response_type === 'elicitation') {
      elicited = true;
      hooks.update({ status: 'elicitation', elicitation: v.elicitation ?? {} });
    }
  };
  const { status, text } = await wireFetch(
    hooks,
    `/agents/${encodeURIComponent(agent)}/ask`,
    { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body: JSON.stringify(askBody) },
    sseParser(onEvent),
  );
  // A request refused before the stream starts is a plain JSON failure (v0.55 7.4).
  const plain = parseJson(text);
  if (plain?._meta?.response_type === 'failure') {
    hooks.update({ status: 'failed', failure: { code: plain.error?.code ?? `HTTP ${status}`, message: plain.error?.message } });
  } else if (!failed && !elicited) hooks.update({ status: 'done' });
}

/**
 * The older NLWeb REST `GET /ask` (streaming `data:` frames with `message_type`): results carry the
 * item in `schema_object`; the conversation continues with `conversation_id` and `prev`.
 */
export async function runLegacy(agent: string, query: string, conv: ConversationState, hooks: TurnHooks): Promise<void> {
  const params = new URLSearchParams({ query, generate_mode: 'summarize', streaming: 'true' });
  if (conv.prev.length > 0) params.set('prev', JSON.stringify(conv.prev));
  if (conv.legacyConversationId) params.set('conversation_id', conv.legacyConversationId);
  let failed = false;
  let elicited = false;
  const onEvent = (_event: string, data: string) => {
    const v = parseJson(data);
    if (!v) return;
    const type = v.message_type ?? v['message-type'];
    if (type === 'begin-nlweb-response' && v.conversation_id) conv.legacyConversationId = v.conversation_id;
    else if (type === 'result' && v['@type'] === 'Summary') hooks.update({ summary: String(v.content) });
    else if (type === 'summary') hooks.update({ summary: String(v.message ?? v.content) });
    else if (type === 'result' && Array.isArray(v.content)) for (const it of v.content) hooks.addResult((it.schema_object ?? it) as Item);
    else if (type === 'ask_user') {
      elicited = true;
      hooks.update({ status: 'elicitation', elicitation: { text: String(v.message ?? v.content ?? '') } });
    } else if (type === 'no_results') {
      failed = true;
      hooks.update({ status: 'failed', failure: { code: 'NO_RESULTS', message: String(v.message ?? v.content ?? '') } });
    } else if (type === 'error') {
      failed = true;
      hooks.update({ status: 'failed', failure: { code: String(v.code ?? 'ERROR'), message: String(v.error ?? v.message ?? '') } });
    }
  };
  const { status, text } = await wireFetch(hooks, `/agents/${encodeURIComponent(agent)}/ask?${params}`, { method: 'GET', headers: { Accept: 'text/event-stream' } }, sseParser(onEvent));
  if (status >= 400 && !failed) {
    const v = parseJson(text);
    hooks.update({ status: 'failed', failure: { code: String(v?.code ?? `HTTP ${status}`), message: String(v?.error ?? v?.message ?? text.slice(0, 200)) } });
  } else if (!failed && !elicited) hooks.update({ status: 'done' });
  conv.prev = [...conv.prev, query];
}

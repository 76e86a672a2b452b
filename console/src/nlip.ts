import type { ConversationState, Item, TurnHooks } from './model.ts';
import { parseJson, sleep, wireFetch } from './wire-fetch.ts';

/** An NLIP message part (ECMA-430 5). */
interface Part {
  format: string;
  subformat: string;
  content: unknown;
  label?: string;
}

const send = async (agent: string, message: Record<string, unknown>, hooks: TurnHooks) => {
  const { status, text } = await wireFetch(hooks, `/agents/${encodeURIComponent(agent)}/nlip/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(message),
  });
  return { status, reply: parseJson(text) ?? { format: 'text', subformat: 'english', content: text.slice(0, 200) } };
};

/** Shows an NLIP reply: text, `result-N` items, the conversation token, a promise, an elicitation or an error. */
function apply(reply: any, conv: ConversationState, hooks: TurnHooks): { promise?: string } {
  const parts: Part[] = Array.isArray(reply.submessages) ? reply.submessages : [];
  const text = typeof reply.content === 'string' ? reply.content : '';
  const conversation = parts.find((p) => p.format === 'token' && p.subformat.startsWith('conversation'));
  if (conversation) conv.nlipToken = String(conversation.content);
  const error = parts.find((p) => p.format === 'error');
  if (error) {
    const message = text.replace(/^The request failed \([A-Z_]+\): /, '');
    hooks.update({ status: String(error.content) === 'CANCELLED' ? 'cancelled' : 'failed', failure: { code: String(error.content), message } });
    return {};
  }
  const promise = parts.find((p) => p.format === 'token' && p.subformat.startsWith('promise'));
  if (promise) {
    const status = parts.find((p) => p.label === 'promise')?.content as { progress?: number; message?: string } | undefined;
    hooks.update({ status: 'promise', promise: { token: String(promise.content), ...(status ?? {}), message: status?.message ?? text } });
    return { promise: String(promise.content) };
  }
  const elicitation = parts.find((p) => p.label === 'elicitation');
  if (elicitation) {
    hooks.update({ status: 'elicitation', elicitation: elicitation.content as any });
    return {};
  }
  const results = parts.filter((p) => p.format === 'structured' && /^result-\d+$/.test(p.label ?? '')).map((p) => p.content as Item);
  hooks.update({ status: 'done', summary: text, results });
  return {};
}

/**
 * NLIP (ECMA-430): a text message; the conversation token goes back as a `token` submessage (6.2);
 * a promise token is sent back to check in, or in a control message with `cancel` to cancel.
 */
export async function runNlip(agent: string, text: string, conv: ConversationState, hooks: TurnHooks, extra: Part[] = []): Promise<void> {
  const tokens: Part[] = conv.nlipToken ? [{ format: 'token', subformat: 'conversation', content: conv.nlipToken }] : [];
  const message = { format: 'text', subformat: 'english', content: text, ...(tokens.length + extra.length > 0 ? { submessages: [...extra, ...tokens] } : {}) };
  let { promise } = apply((await send(agent, message, hooks)).reply, conv, hooks);
  let cancel = false;
  void hooks.cancelled.then(() => (cancel = true));
  while (promise && !hooks.signal.aborted) {
    await Promise.race([sleep(700, hooks.signal), hooks.cancelled]);
    const token: Part = { format: 'token', subformat: 'promise', content: promise };
    const next = cancel
      ? { messagetype: 'control', format: 'text', subformat: 'english', content: 'cancel', submessages: [token] }
      : { format: 'text', subformat: 'english', content: 'checkin', submessages: [token] };
    const { reply } = await send(agent, next, hooks);
    const outcome = apply(reply, conv, hooks);
    promise = outcome.promise;
    // The reply to a cancel is the promise's end, whatever words it uses: show it as cancelled.
    if (cancel && !promise) hooks.update({ status: 'cancelled', failure: { code: errorCode(reply) ?? 'CANCELLED', message: typeof reply.content === 'string' ? reply.content : '' } });
  }
}

const errorCode = (reply: any): string | undefined => (Array.isArray(reply?.submessages) ? reply.submessages.find((p: Part) => p.format === 'error')?.content : undefined);

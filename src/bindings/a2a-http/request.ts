import { describeIssues, GatewayError } from '../../base/errors.ts';
import type { Message, SendMessageRequest } from '@a2a-js/sdk';
import { AskRequestSchema, inConversation, type AskRequest } from '../../protocol/nlweb/index.ts';

/**
 * An A2A message as a canonical ask (docs/a2a.md "Mapping"): the text parts, joined, are the query;
 * the fields of object data parts are query filters (`site`, `itemType`, domain filters), exactly as
 * NLWeb's `query` takes them. File parts (`url`, `raw`) are refused: no adapter takes them yet.
 */

/** Output modes the gateway produces: text for the summary, JSON data for result items. */
const OUTPUT_MODES = ['text', 'text/plain', 'data', 'application/json', '*/*', 'application/a2a+json'];

/** The question text of a message: its text parts, in order. */
export function messageText(message: Message): string {
  return message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : undefined))
    .filter((t): t is string => typeof t === 'string')
    .join('\n')
    .trim();
}

/** A2A 1.0 §3.1.1 SendMessage → NLWeb ask (with the conversation when the context has one). */
export function askFromMessage(params: SendMessageRequest, conversationId: string | undefined): AskRequest {
  const message = params.message;
  if (!message) throw new GatewayError('INVALID_REQUEST', 'message is required');
  if (message.parts.some((p) => p.content?.$case === 'url' || p.content?.$case === 'raw')) {
    throw new GatewayError('UNSUPPORTED_MEDIA_TYPE', 'This agent takes text and data parts only (no files)');
  }
  const accepted = params.configuration?.acceptedOutputModes ?? [];
  if (accepted.length > 0 && !accepted.some((m) => OUTPUT_MODES.includes(m.toLowerCase()))) {
    throw new GatewayError('UNSUPPORTED_FORMAT', `The gateway answers with text/plain and application/json parts, not ${accepted.join(', ')}`);
  }
  const text = messageText(message);
  if (!text) throw new GatewayError('INVALID_QUERY', 'The message has no text part with a question');
  const ask = message.parts.some((p) => p.content?.$case === 'data') ? askWithFilters(message, text) : askOfText(text);
  return conversationId ? inConversation(ask, conversationId) : ask;
}

/**
 * The ask of a question without filters, as AskRequestSchema gives `{ query: { text } }` back for a
 * trimmed, non-empty text (messageText's): unchanged (request.test.ts holds the two to that, for any
 * such text). askFromMessage took 5-6 µs of a SendMessage in place with the parse, 2 without; most
 * messages carry text only (issue 25).
 */
export function askOfText(text: string): AskRequest {
  return { query: { text } };
}

/** The ask of a question and the fields of the message's object data parts, validated by AskRequestSchema. */
function askWithFilters(message: Message, text: string): AskRequest {
  const filters = Object.fromEntries(
    message.parts
      .flatMap((p) => {
        const data: unknown = p.content?.$case === 'data' ? p.content.value : undefined;
        return data !== null && typeof data === 'object' && !Array.isArray(data) ? Object.entries(data) : [];
      })
      .filter(([k]) => k !== '__proto__'),
  );
  const parsed = AskRequestSchema.safeParse({ query: { ...filters, text } });
  if (!parsed.success) throw new GatewayError('INVALID_QUERY', `The message's data parts are not valid query filters: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

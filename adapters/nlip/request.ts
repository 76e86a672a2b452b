import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import {
  ATTACHMENTS_KEY,
  contextAttachments,
  fromAttachment,
  jsonPart,
  nlipMessage,
  textPart,
  tokenPart,
  TOKEN_PREFIX,
  type NlipMessage,
  type NlipPart,
} from '../../src/protocol/nlip/index.ts';

/**
 * The canonical ask as an NLIP message (design.md mapping table, right to left):
 * `query.text` is the first (text) submessage; `query.location` a `location` submessage; other
 * filters a `structured`/`json` submessage labelled `filters`; the conversation so far (when the
 * upstream holds no token for it yet) a `structured`/`json` submessage labelled `context`;
 * `context.attachments` `binary` submessages; the upstream's conversation tokens echoed (6.2).
 */

/** Labels the gateway uses for its structured submessages (the NLIP binding reads the same ones). */
export const PART_LABEL = { filters: 'filters', context: 'context', elicitation: 'elicitation' } as const;

function locationPart(location: unknown): NlipPart | undefined {
  if (typeof location === 'string' && location.trim() !== '') return { format: 'location', subformat: 'text', content: location.trim() };
  if (typeof location === 'object' && location !== null) {
    const o = location as Record<string, unknown>;
    if (typeof o.latitude === 'number' && typeof o.longitude === 'number') {
      return { format: 'location', subformat: 'GPS', content: `${o.latitude},${o.longitude}` };
    }
  }
  return undefined;
}

/** Builds the message for one ask. `tokens` are the upstream's conversation tokens to echo. */
export function buildAskMessage(request: AskRequest, tokens: NlipPart[], opts: { label?: string; withContext: boolean }): NlipMessage {
  const { text, location, ...filters } = request.query;
  const parts: NlipPart[] = [];
  const loc = locationPart(location);
  if (loc) parts.push(loc);
  else if (location !== undefined) filters.location = location;
  if (Object.keys(filters).length > 0) parts.push(jsonPart(filters, PART_LABEL.filters));

  const { [ATTACHMENTS_KEY]: _attachments, ...context } = (request.context ?? {}) as Record<string, unknown>;
  const prev = Array.isArray(context.prev) ? context.prev : [];
  const hasContext = prev.length > 0 || typeof context.text === 'string' || typeof context.memory === 'string';
  if (opts.withContext && hasContext) parts.push(jsonPart(context, PART_LABEL.context));

  for (const att of contextAttachments(request.context)) {
    const part = fromAttachment(att);
    if (part) parts.push(part);
  }
  parts.push(...tokens);
  return nlipMessage(textPart(text, opts.label !== undefined ? { label: opts.label } : {}), parts);
}

/** A check-in on the upstream's promise: the promise token sent back (plus the conversation tokens). */
export function buildCheckinMessage(promiseToken: string, tokens: NlipPart[]): NlipMessage {
  return nlipMessage(textPart('Checking in on the pending answer.'), [tokenPart(TOKEN_PREFIX.promise, promiseToken), ...tokens]);
}

/** Asks the upstream to stop working on a promise (a control message: non-functional, 5.1.1). */
export function buildCancelMessage(promiseToken: string, tokens: NlipPart[]): NlipMessage {
  return nlipMessage(textPart('cancel'), [tokenPart(TOKEN_PREFIX.promise, promiseToken), ...tokens], { control: true });
}

/** 6.5 The same message again, with the gateway's credential as an `authentication` token. */
export function withAuthentication(msg: NlipMessage, credential: string): NlipMessage {
  return { ...msg, submessages: [...(msg.submessages ?? []), tokenPart(TOKEN_PREFIX.authentication, credential)] };
}

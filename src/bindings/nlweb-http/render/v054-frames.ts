import { normalizeResponseFormat, type ResultItem } from '../../../protocol/nlweb/index.ts';
import { ERROR_TABLE, isErrorCode } from '../../../base/errors.ts';
import type { AgentEvent } from '../../../core/events.ts';
import { passThroughMeta } from '../../../core/run.ts';
import { v054Item, v054Meta } from './v054-shape.ts';

/** One piece of a v0.54 stream: a `data:` frame (no event name) or an SSE comment. */
export type V054Frame = { data: Record<string, unknown> } | { comment: string };

/** What the frames of one stream share. */
export interface V054StreamContext {
  sessionContext: Record<string, unknown>;
  format: string | undefined;
  decorate: (item: ResultItem) => ResultItem;
}

const nlwebCode = (code: string): string => (isErrorCode(code) ? ERROR_TABLE[code].nlweb : code);

/**
 * A canonical event stream as v0.54 frames (v0.54 8.4, interop.md "v0.54 upstream streams"): first
 * `{"_meta": ...}` (Answer, version 0.54, session_context, decontextualized_query when known), then
 * one `{"results": [item]}` frame per result (the summary as a Summary item among them), an
 * `{"_meta": Elicitation, "elicitation"}` or `{"_meta": Failure, "error"}` frame when the call ends
 * that way, and no terminal frame: the stream just ends. `_meta` fields that only arrive with
 * `complete` (an upstream's late decontextualized query) go out in one last `_meta` frame.
 */
export async function* v054Frames(events: AsyncIterable<AgentEvent>, sc: V054StreamContext): AsyncGenerator<V054Frame> {
  const response_format = normalizeResponseFormat(sc.format);
  let sent: Record<string, unknown> = {};
  let ended = false;
  for await (const e of events) {
    switch (e.type) {
      case 'start':
        sent = passThroughMeta(e.meta);
        yield { data: { _meta: v054Meta({ ...sent, response_type: 'answer', response_format, session_context: sc.sessionContext }) } };
        break;
      case 'result':
        yield { data: { results: [v054Item(sc.decorate(e.item))] } };
        break;
      case 'progress':
        yield { comment: `progress ${e.progress ?? ''} ${e.message ?? ''}`.trimEnd() };
        break;
      case 'error': {
        const error = { code: nlwebCode(e.code), message: e.message };
        if (e.recoverable) {
          yield { data: { error } };
        } else {
          ended = true;
          yield { data: { _meta: v054Meta({ response_type: 'failure', session_context: sc.sessionContext }), error } };
        }
        break;
      }
      case 'elicitation':
        ended = true;
        yield { data: { _meta: v054Meta({ ...sent, response_type: 'elicitation', session_context: sc.sessionContext }), elicitation: e.elicitation } };
        break;
      case 'promise':
        break; // followed by the core; never reaches a streaming client
      case 'complete': {
        const late = passThroughMeta(e.meta);
        const fresh = Object.keys(late).some((k) => JSON.stringify(late[k]) !== JSON.stringify(sent[k]));
        if (!ended && fresh) {
          sent = { ...sent, ...late };
          yield { data: { _meta: v054Meta({ ...sent, response_type: 'answer', response_format, session_context: sc.sessionContext }) } };
        }
        break;
      }
    }
  }
}

import type { Context } from 'hono';
import { sseResponse } from '../../sse-stream.ts';
import { NLWEB_VERSION, normalizeResponseFormat } from '../../../protocol/nlweb/index.ts';
import { isErrorCode, ERROR_TABLE } from '../../../base/errors.ts';
import type { AskStream } from '../../../core/gateway-types.ts';
import { passThroughMeta } from '../../../core/run.ts';
import type { ItemDecorator } from '../actions.ts';

/**
 * Section 6: renders a live answer as named SSE events. `start` carries `_meta` with
 * `streaming: true`; each result is `{index, item}`; failures are `error` events; `complete` repeats
 * `session_context`. An elicitation (no SSE event of its own in 6.1) arrives on `complete`, whose
 * `_meta.response_type` is then `elicitation`.
 */
export function renderSse(c: Context, live: AskStream, format: string | undefined, abort: AbortController, decorate: ItemDecorator): Response {
  const response_format = normalizeResponseFormat(format);
  return sseResponse(c, async (sse) => {
    sse.onAbort(() => abort.abort());
    let index = 0;
    let extraMeta: Record<string, unknown> = {};
    let terminal: Record<string, unknown> | undefined;
    for await (const e of live.events) {
      switch (e.type) {
        case 'start':
          extraMeta = passThroughMeta(e.meta);
          await sse.writeSSE({
            event: 'start',
            data: JSON.stringify({
              _meta: { ...extraMeta, response_type: 'answer', response_format, version: NLWEB_VERSION, streaming: true, session_context: live.sessionContext },
            }),
          });
          break;
        case 'result':
          await sse.writeSSE({ event: 'result', data: JSON.stringify({ index: index++, item: decorate(e.item) }) });
          break;
        case 'progress':
          // Not an event of 6.1: sent as an SSE comment so the connection stays visibly alive.
          await sse.write(`: progress ${e.progress ?? ''} ${e.message ?? ''}`.trimEnd() + '\n\n');
          break;
        case 'error': {
          const code = isErrorCode(e.code) ? ERROR_TABLE[e.code].nlweb : e.code;
          await sse.writeSSE({
            event: 'error',
            data: JSON.stringify({ _meta: { response_type: 'failure', version: NLWEB_VERSION }, error: { code, message: e.message } }),
          });
          break;
        }
        case 'elicitation':
          terminal = { _meta: { response_type: 'elicitation' }, elicitation: e.elicitation };
          break;
        case 'promise':
          break; // followed by the core; never reaches a streaming client
        case 'complete': {
          const meta = { ...extraMeta, ...passThroughMeta(e.meta) };
          const responseType = (terminal?._meta as { response_type?: string } | undefined)?.response_type ?? 'answer';
          await sse.writeSSE({
            event: 'complete',
            data: JSON.stringify({
              ...terminal,
              _meta: { ...meta, response_type: responseType, version: NLWEB_VERSION, session_context: live.sessionContext },
            }),
          });
          break;
        }
      }
    }
  });
}

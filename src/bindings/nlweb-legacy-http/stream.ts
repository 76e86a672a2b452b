import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { AgentEvent } from '../../core/events.ts';
import type { AskStream } from '../../core/gateway-types.ts';
import { formatSse } from '../../protocol/sse.ts';
import {
  askUserFrame,
  beginFrame,
  decontextualizedFrame,
  endFrame,
  failureFrame,
  resultFrame,
  type FrameContext,
  type LegacyFrame,
} from './render.ts';

const decontextualized = (e: AgentEvent): string | undefined => {
  const v = e.type === 'start' || e.type === 'complete' ? e.meta?.decontextualized_query : undefined;
  return typeof v === 'string' ? v : undefined;
};

/**
 * Writes a live answer in the late-2025 legacy wire format (interop.md): `data:` lines only, no
 * `event:` names; `begin-nlweb-response`, one `result` per item, then `end-nlweb-response`. A final
 * failure is `end-nlweb-response` with `"error": true` followed by its `error` frame, as those servers
 * did; NO_RESULTS is `no_results`. Progress reports become `: keepalive` comments.
 */
export function renderLegacySse(c: Context, live: AskStream, query: string, fc: FrameContext, abort: AbortController): Response {
  c.set('eventStream', true);
  c.header('content-type', 'text/event-stream; charset=utf-8');
  c.header('cache-control', 'no-cache');
  c.header('x-accel-buffering', 'no');
  return stream(c, async (out) => {
    out.onAbort(() => abort.abort());
    const write = (frame: LegacyFrame) => out.write(formatSse(frame));
    let dqSent = false;
    let failure: LegacyFrame | undefined;
    for await (const e of live.events) {
      const dq = decontextualized(e);
      switch (e.type) {
        case 'start':
          await write(beginFrame(query, fc));
          if (dq) await write(decontextualizedFrame(dq, query, fc));
          dqSent = dq !== undefined;
          break;
        case 'result':
          await write(resultFrame(e.item, fc));
          break;
        case 'elicitation':
          await write(askUserFrame(e.elicitation, fc));
          break;
        case 'error':
          if (e.code === 'NO_RESULTS') await write(failureFrame(e.code, e.message, fc));
          else if (e.recoverable) await write(failureFrame(e.code, e.message, fc));
          else failure = failureFrame(e.code, e.message, fc);
          break;
        case 'progress':
          await out.write(': keepalive\n\n');
          break;
        case 'promise':
          break; // followed by the core; never reaches a streaming client
        case 'complete':
          if (dq && !dqSent) await write(decontextualizedFrame(dq, query, fc));
          await write(endFrame(fc, failure !== undefined));
          if (failure) await write(failure);
          break;
      }
    }
  });
}

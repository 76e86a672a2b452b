import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { sseResponse } from '../../sse-stream.ts';
import type { CanonicalResponse } from '../../../protocol/nlweb/index.ts';
import type { GatewayError } from '../../../base/errors.ts';
import type { AskStream } from '../../../core/gateway-types.ts';
import { failureFromError } from '../../../core/responses.ts';
import { v054Frames } from './v054-frames.ts';
import { toV054Response } from './v054-shape.ts';
import { statusFor } from './v055.ts';
import type { NlwebWire, StreamRendering } from './wire.ts';

/** Streams v0.54 frames as unnamed `data:` lines (v0.54 8.4: the client ignores event names). */
function renderV054Sse(c: Context, live: AskStream, r: StreamRendering): Response {
  return sseResponse(c, async (sse) => {
    sse.onAbort(() => r.abort.abort());
    const frames = v054Frames(live.events, { sessionContext: live.sessionContext, format: r.format, decorate: r.decorate });
    for await (const frame of frames) {
      if ('comment' in frame) await sse.write(`: ${frame.comment}\n\n`);
      else await sse.writeSSE({ data: JSON.stringify(frame.data) });
    }
  });
}

/**
 * v0.54, for the clients deployed today (the official browser client among them): the same answers
 * in the older shape (capitalised `response_type`, `Summary` items, unnamed SSE `data:` frames).
 * Status codes are v0.55's: a promise is 202, other answers 200, refusals per ERROR_TABLE.
 */
export const v054Wire: NlwebWire = {
  version: '0.54',
  json: (c: Context, response: CanonicalResponse, format: string | undefined) => c.json(toV054Response(response, format), statusFor(response)),
  stream: renderV054Sse,
  error: (c: Context, err: GatewayError) => {
    const headers: Record<string, string> = {};
    if (err.retryAfter !== undefined) headers['Retry-After'] = String(err.retryAfter);
    return c.json(toV054Response(failureFromError(err), undefined), err.mapping.http as ContentfulStatusCode, headers);
  },
};

import { upstreamChannels, type UpstreamChunkEvent, type UpstreamEndEvent, type UpstreamExchange, type UpstreamResponseEvent } from '../core/upstream-events.ts';
import type { CaptureRing } from './capture.ts';

/**
 * Feeds the capture ring from the upstream diagnostics channels (src/core/upstream-events.ts).
 * Returns the unsubscribe function (called when the app closes).
 */
export function subscribeCapture(ring: CaptureRing): () => void {
  const onRequest = (m: unknown) => {
    const ex = m as UpstreamExchange;
    if (!ring.isMarked(ex.requestId)) return;
    ex.follow = true;
    ring.onRequest(ex);
  };
  const onResponse = (m: unknown) => {
    const e = m as UpstreamResponseEvent;
    ring.onResponse(e.exchange.id, e.status, e.headers);
  };
  const onChunk = (m: unknown) => {
    const e = m as UpstreamChunkEvent;
    ring.onChunk(e.exchange.id, e.chunk);
  };
  const onEnd = (m: unknown) => {
    const e = m as UpstreamEndEvent;
    ring.onEnd(e.exchange.id, e.error, e.durationMs);
  };
  upstreamChannels.request.subscribe(onRequest);
  upstreamChannels.response.subscribe(onResponse);
  upstreamChannels.chunk.subscribe(onChunk);
  upstreamChannels.end.subscribe(onEnd);
  return () => {
    upstreamChannels.request.unsubscribe(onRequest);
    upstreamChannels.response.unsubscribe(onResponse);
    upstreamChannels.chunk.unsubscribe(onChunk);
    upstreamChannels.end.unsubscribe(onEnd);
  };
}

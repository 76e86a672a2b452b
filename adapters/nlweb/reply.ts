import type { AgentEvent } from '../../src/core/events.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { Logger } from '../../src/base/logger.ts';
import { cancelledError, isTooLarge, type UpstreamResponse } from '../../src/core/upstream/index.ts';
import type { SseMessage } from '../../src/protocol/sse.ts';
import { SseReplyMapper } from './sse-reply.ts';

/** What reading a reply needs besides the response. */
export interface ReplyContext {
  agent: string;
  signal: AbortSignal;
  log: Logger;
}

export { cancelledError };

/**
 * Reads an upstream SSE reply (spec 6, v0.54 8.4) as canonical events, frame by frame as it
 * arrives (a JSON reply is mapped whole by json-reply.ts). A caller abort throws CANCELLED; a stream
 * that breaks after it began ends in an `error` event and `complete` instead, so results already
 * delivered stand.
 */
export async function* readSseReply(res: UpstreamResponse, rc: ReplyContext): AsyncGenerator<AgentEvent> {
  const mapper = new SseReplyMapper(rc.agent);
  const frames = res.sse();
  try {
    while (true) {
      let step: IteratorResult<SseMessage>;
      try {
        step = await frames.next();
      } catch (err) {
        if (rc.signal.aborted) throw cancelledError(rc.signal);
        rc.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'upstream stream broke off');
        const code = err instanceof GatewayError && (err.code === 'TIMEOUT' || isTooLarge(err)) ? err.code : undefined;
        yield* code
          ? mapper.broken(code, (err as GatewayError).message)
          : mapper.broken('INTERNAL_ERROR', `The stream from agent "${rc.agent}" broke off before the answer was complete`);
        return;
      }
      if (step.done) break;
      yield* mapper.frame(step.value);
      if (mapper.done) return;
    }
    yield* mapper.end();
  } finally {
    // Stops the upstream body when we are done early (complete, garbage, consumer gone).
    await frames.return(undefined).catch(() => undefined);
  }
}

import type { AgentEvent } from '../../src/core/events.ts';
import { GatewayError } from '../../src/core/errors.ts';
import type { Logger } from '../../src/core/logger.ts';
import { readUpstreamJson } from '../../src/core/upstream.ts';
import { readSse, type SseMessage } from '../../src/protocol/sse.ts';
import { mapJsonReply } from './json-reply.ts';
import { SseReplyMapper } from './sse-reply.ts';

/** What reading a reply needs besides the response. */
export interface ReplyContext {
  agent: string;
  signal: AbortSignal;
  log: Logger;
}

/** The error a caller abort becomes: the core's own reason when it gave a GatewayError, else CANCELLED. */
export function cancelledError(signal: AbortSignal): GatewayError {
  return signal.reason instanceof GatewayError ? signal.reason : new GatewayError('CANCELLED', 'The call was cancelled');
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}

/**
 * Reads an upstream reply as canonical events as it arrives: SSE (spec 6, v0.54 8.4) frame by frame,
 * anything else as one JSON reply (4). A caller abort throws CANCELLED; a stream that breaks after
 * it began ends in an `error` event and `complete` instead, so results already delivered stand.
 */
export async function* readReply(res: Response, rc: ReplyContext): AsyncGenerator<AgentEvent> {
  const type = res.headers.get('content-type') ?? '';
  if (type.toLowerCase().includes('text/event-stream')) yield* readSseReply(res, rc);
  else yield* mapJsonReply(await readJsonBody(res, rc), rc.agent);
}

async function readJsonBody(res: Response, rc: ReplyContext): Promise<unknown> {
  try {
    return await readUpstreamJson(res, rc.agent);
  } catch (err) {
    if (rc.signal.aborted) throw cancelledError(rc.signal);
    if (err instanceof GatewayError) throw err;
    if (isTimeout(err)) throw new GatewayError('TIMEOUT', `Agent "${rc.agent}" did not finish its answer in time`, { cause: err });
    throw new GatewayError('UPSTREAM_ERROR', `The connection to agent "${rc.agent}" broke before its answer was complete`, { cause: err });
  }
}

async function* readSseReply(res: Response, rc: ReplyContext): AsyncGenerator<AgentEvent> {
  const mapper = new SseReplyMapper(rc.agent);
  if (!res.body) {
    yield* mapper.end();
    return;
  }
  const frames = readSse(res.body, rc.signal);
  try {
    while (true) {
      let step: IteratorResult<SseMessage>;
      try {
        step = await frames.next();
      } catch (err) {
        if (rc.signal.aborted) throw cancelledError(rc.signal);
        rc.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'upstream stream broke off');
        yield* isTimeout(err)
          ? mapper.broken('TIMEOUT', `Agent "${rc.agent}" did not finish its answer in time`)
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

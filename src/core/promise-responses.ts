import type { CanonicalResponse } from '../protocol/nlweb/index.ts';
import type { PromiseRecord } from '../store/store.ts';
import { Conversations } from './conversations.ts';
import { promiseResponse, withSessionContext } from './responses.ts';

/** 4.1.2 The promise state of `record` as a response, with the latest progress known. */
export function asPromise(record: PromiseRecord, state: { estimatedTime?: number | undefined; message?: string | undefined; progress?: number | undefined }): CanonicalResponse {
  return promiseResponse({
    token: record.token,
    ...(state.estimatedTime !== undefined ? { estimated_time: state.estimatedTime } : {}),
    ...(state.message ? { message: state.message } : {}),
    ...(state.progress !== undefined ? { progress: state.progress } : {}),
  });
}

/** Every /await answer carries its conversation (`_meta.session_context`), like the /ask that made it. */
export function present(record: PromiseRecord, response: CanonicalResponse): CanonicalResponse {
  return record.conversationId ? withSessionContext(response, Conversations.sessionContext(record.conversationId)) : response;
}

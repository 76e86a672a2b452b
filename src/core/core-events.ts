import { channel } from 'node:diagnostics_channel';

/**
 * What the core does that operators count (issue 13 "Metrics"), published on `node:diagnostics_channel`
 * like the upstream exchanges (upstream-events.ts): telemetry subscribes, the core knows nothing of
 * it, and publishing costs a `hasSubscribers` check when no one listens.
 *
 * Payloads carry only bounded values (agent names from config, fixed state names), never a token,
 * a query or a conversation id, so a subscriber may use every field as a metric label.
 */

/** A promise's life (NLWeb 4.1.2/4.2): created, then one of done/failed/cancelled/lost; re-run and released on the way. */
export type PromiseState = 'created' | 'done' | 'failed' | 'cancelled' | 'lost' | 'rerun' | 'released';

export interface PromiseEvent {
  state: PromiseState;
  agent: string;
}

/** A conversation the gateway had not seen (a new `conversation_id`), or a protocol session (MCP) created. */
export interface CreatedEvent {
  /** `conversation`, or the protocol whose session was created (`mcp`). */
  kind: string;
  /** The agent of the conversation's first turn; absent for protocol sessions. */
  agent?: string;
}

/** A request refused by a limit: a rate limit (429) or a cap from the config's `limits` section. */
export interface RejectionEvent {
  /** `rate_limit`, or the name of the cap in `limits` / `server` (`bodyLimitBytes`, `maxQueryChars`, ...). */
  limit: string;
  agent?: string;
}

export const coreChannels = Object.freeze({
  promise: channel('nlgate:core:promise'),
  created: channel('nlgate:core:created'),
  rejection: channel('nlgate:core:rejection'),
});

/** Publishes a promise state change (cheap when nobody subscribes). */
export function publishPromise(state: PromiseState, agent: string): void {
  if (coreChannels.promise.hasSubscribers) coreChannels.promise.publish({ state, agent } satisfies PromiseEvent);
}

/** Publishes a new conversation or protocol session. */
export function publishCreated(kind: string, agent?: string): void {
  if (coreChannels.created.hasSubscribers) coreChannels.created.publish({ kind, ...(agent ? { agent } : {}) } satisfies CreatedEvent);
}

/** Publishes a request refused by a limit. */
export function publishRejection(limit: string, agent?: string): void {
  if (coreChannels.rejection.hasSubscribers) coreChannels.rejection.publish({ limit, ...(agent ? { agent } : {}) } satisfies RejectionEvent);
}

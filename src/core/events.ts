import type { Elicitation, PromiseInfo, ResultItem } from '../protocol/nlweb/index.ts';

/**
 * The canonical event stream (NLWeb v0.55 section 6, plus what a non-streaming answer can be).
 * Every agent call is an AsyncIterable of these; `collect` folds one into a single response.
 *
 * - `start`: the stream began; `meta` carries upstream `_meta` fields worth keeping
 *   (e.g. `decontextualized_query`).
 * - `result`: one result item (a SearchSummary item is a result too, 4.1.1).
 * - `elicitation`: the agent needs more information (4.1.3). Terminal for the answer.
 * - `promise`: the upstream answered with its own promise (4.1.2); `token` is the upstream's token,
 *   never shown to a client: the core mints its own and maps it.
 * - `progress`: a progress report for a long call (0..1 and/or a message).
 * - `error`: a failure (4.1.4). `recoverable: true` means the stream goes on (6.1).
 * - `complete`: the stream ended normally; `meta.session_context` is what the upstream wants back.
 */
export type AgentEvent =
  | { type: 'start'; meta?: Record<string, unknown> }
  | { type: 'result'; item: ResultItem }
  | { type: 'elicitation'; elicitation: Elicitation }
  | { type: 'promise'; promise: PromiseInfo }
  | { type: 'progress'; progress?: number; message?: string }
  | { type: 'error'; code: string; message: string; recoverable?: boolean }
  | { type: 'complete'; meta?: Record<string, unknown> };

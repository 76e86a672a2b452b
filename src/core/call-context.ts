import type { CallContext } from './agent.ts';
import type { AgentEntry } from './agents.ts';
import type { Conversations, Turn } from './conversations.ts';
import { GatewayError } from '../base/errors.ts';
import type { CallOptions } from './gateway-types.ts';
import { newRequestId } from './ids.ts';
import { lazyChild, type Logger } from '../base/logger.ts';
import { CallSlots, type FreeSlot } from './call-slots.ts';

/** One agent call's context and the handles that end it. */
export interface CallHandle {
  ctx: CallContext;
  controller: AbortController;
  /** The call no longer follows the client's signal (it became a promise). */
  detach(): void;
  /** The call is over: its timer and its listener on the client's signal go. */
  release(): void;
}

/**
 * A CallContext with its own abort controller (design.md "The core"): the agent's timeout, and the
 * client's signal until detached. The context's logger is made on first use (logger.ts).
 *
 * `slot` (admission.ts) is freed when the call is released or when its timeout fires, whichever
 * comes first: a stream no one reads to its end never holds its caller's slot past the timeout.
 */
export function callContext(
  entry: AgentEntry,
  opts: CallOptions,
  deps: { log: Logger; timeoutMs: number; conversations: Conversations },
  turn?: Turn,
  slot: FreeSlot = CallSlots.uncounted,
): CallHandle {
  const controller = new AbortController();
  const timeoutMs = entry.config.timeoutMs ?? deps.timeoutMs;
  const timer = setTimeout(() => {
    slot();
    controller.abort(new GatewayError('TIMEOUT', `Agent "${entry.config.name}" did not finish within ${timeoutMs} ms`));
  }, timeoutMs);
  timer.unref();
  const onClientGone = () => controller.abort(new GatewayError('CANCELLED', 'The client went away'));
  // The closures below (and the timer's) share one V8 context: it must not hold `opts`, which can
  // carry a binding's callbacks (AskOptions.recordWithAnswer) and through them the binding's whole
  // request. Holding it, every A2A SendMessage's objects outlived two scavenges and went to the old
  // generation: about 11 KB promoted a request against 2 without (`npm run bench:promotion`; issue 25).
  const clientSignal = opts.signal;
  clientSignal?.addEventListener('abort', onClientGone, { once: true });
  const requestId = opts.requestId ?? newRequestId();
  // Optional fields only when present (never a key holding undefined), set on one object rather
  // than spread from a temporary one each (issue 25).
  const ctx: CallContext = { signal: controller.signal, requestId, log: lazyChild(deps.log, { agent: entry.config.name, requestId }) };
  if (turn) {
    ctx.conversation = turn.view;
    ctx.setConversationAttr = (k: string, v: string) => deps.conversations.setAttr(turn, k, v);
  }
  if (entry.config.forwardCredentials && opts.credentials) ctx.credentials = opts.credentials;
  if (opts.client) ctx.client = opts.client;
  if (opts.session) ctx.session = opts.session;
  return {
    ctx,
    controller,
    detach: () => clientSignal?.removeEventListener('abort', onClientGone),
    release: () => {
      slot();
      clearTimeout(timer);
      clientSignal?.removeEventListener('abort', onClientGone);
    },
  };
}

import { GatewayError } from '../base/errors.ts';
import { publishRejection } from './core-events.ts';
import type { Principal } from './principal.ts';

/** Gives a taken slot back; calling it again does nothing. */
export type FreeSlot = () => void;

/** What a slot is counted by: the principal, its class, and its own cap (API key, JWT issuer). */
export type SlotHolder = Pick<Principal, 'id' | 'verified' | 'maxCalls'>;

export interface CallSlotLimits {
  /** `limits.maxCallsPerPrincipal`: calls one principal keeps running; its own `maxCalls` replaces it. */
  perPrincipal: number;
  /** `limits.maxCallsInFlight`: calls running for anonymous callers, and for verified principals, each. */
  perClass: number;
}

/**
 * The agent calls running at once on this replica (the standard's "connections" bound): per
 * principal (`limits.maxCallsPerPrincipal`), and in all (`limits.maxCallsInFlight`). A call holds
 * its slot from admission until it ends, also after it became a promise, a stream or a task, so
 * neither the per-address connection cap (a promise frees its connection) nor the rate limit (a
 * slow agent keeps each call for its whole timeout) lets one caller hold a slow agent's upstream
 * pool, or many callers the replica's memory.
 *
 * The total is kept for anonymous callers and for verified principals apart, as the store's caps
 * are (state.md): a flood of anonymous calls, from however many addresses, never leaves a verified
 * principal without a slot.
 *
 * Counted per replica, in memory, on purpose: the slots stand for this replica's own sockets and
 * memory, and a count kept in the store would outlive a replica that died holding it.
 */
export class CallSlots {
  private readonly running = new Map<string, number>();
  /** Slots held by anonymous callers (index 0) and by verified principals (index 1). */
  private readonly classTotals = [0, 0];

  constructor(private readonly limits: CallSlotLimits) {}

  /**
   * Takes one slot for `holder`, or refuses with RATE_LIMITED (429 + Retry-After: NLWeb 2.5, 7.4)
   * when it holds its cap already or its class holds `perClass`. Nothing is taken on a refusal.
   */
  take(holder: SlotHolder, agent: string): FreeSlot {
    const held = this.running.get(holder.id) ?? 0;
    if (held >= (holder.maxCalls ?? this.limits.perPrincipal)) {
      publishRejection('maxCallsPerPrincipal', agent);
      throw new GatewayError('RATE_LIMITED', `This caller already has ${held} calls running on this gateway; wait for one to finish`, { retryAfter: 1 });
    }
    const cls = holder.verified ? 1 : 0;
    if (this.classTotals[cls]! >= this.limits.perClass) {
      publishRejection('maxCallsInFlight', agent);
      throw new GatewayError('RATE_LIMITED', `This gateway is running as many ${holder.verified ? 'verified' : 'anonymous'} callers' calls as it takes; try again shortly`, { retryAfter: 1 });
    }
    this.running.set(holder.id, held + 1);
    this.classTotals[cls]!++;
    let free = false;
    return () => {
      if (free) return;
      free = true;
      this.classTotals[cls]!--;
      const left = this.running.get(holder.id)! - 1;
      if (left > 0) this.running.set(holder.id, left);
      else this.running.delete(holder.id);
    };
  }

  /** Slots `principalId` holds now (tests, diagnostics). */
  heldBy(principalId: string): number {
    return this.running.get(principalId) ?? 0;
  }

  /** Slots held by the anonymous or the verified class now (tests, diagnostics). */
  heldByClass(verified: boolean): number {
    return this.classTotals[verified ? 1 : 0]!;
  }

  /** A slot for a call that is not counted (no cap configured: embedders, older tests). */
  static readonly uncounted: FreeSlot = () => {};
}

import { GatewayError } from '../base/errors.ts';
import { publishRejection } from './core-events.ts';

/** Gives a taken slot back; calling it again does nothing. */
export type FreeSlot = () => void;

/**
 * Agent calls one principal keeps running at once on this replica (`limits.maxCallsPerPrincipal`,
 * the standard's "connections" bound). A call holds its slot from admission until it ends, also
 * after it became a promise, a stream or a task, so neither the per-address connection cap (a
 * promise frees its connection) nor the rate limit (a slow agent keeps each call for its whole
 * timeout) lets one caller hold a slow agent's upstream pool.
 *
 * Counted per replica, in memory, on purpose: the slots stand for this replica's own sockets and
 * memory, and a count kept in the store would outlive a replica that died holding it.
 */
export class CallSlots {
  private readonly running = new Map<string, number>();

  /** `max`: slots per principal; a principal's own `maxCalls` (API key, JWT issuer) replaces it. */
  constructor(private readonly max: number) {}

  /**
   * Takes one slot for `principalId`, or refuses with RATE_LIMITED (429 + Retry-After: NLWeb 2.5)
   * when it already holds `limit` of them. Nothing is taken on a refusal.
   */
  take(principalId: string, agent: string, limit: number = this.max): FreeSlot {
    const held = this.running.get(principalId) ?? 0;
    if (held >= limit) {
      publishRejection('maxCallsPerPrincipal', agent);
      throw new GatewayError('RATE_LIMITED', `This caller already has ${held} calls running on this gateway; wait for one to finish`, { retryAfter: 1 });
    }
    this.running.set(principalId, held + 1);
    let free = false;
    return () => {
      if (free) return;
      free = true;
      const left = this.running.get(principalId)! - 1;
      if (left > 0) this.running.set(principalId, left);
      else this.running.delete(principalId);
    };
  }

  /** Slots `principalId` holds now (tests, diagnostics). */
  heldBy(principalId: string): number {
    return this.running.get(principalId) ?? 0;
  }

  /** A slot for a call that is not counted (no cap configured: embedders, older tests). */
  static readonly uncounted: FreeSlot = () => {};
}

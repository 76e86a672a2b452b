import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientChannel } from '../../src/core/agent.ts';

/** One progress report (MCP `notifications/progress` params without the token). */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** One upstream call in flight: whose channel an upstream request or notification belongs to. */
export interface CallScope {
  channel: ClientChannel | undefined;
  signal: AbortSignal;
  /** The inbound request the call serves (for the upstream diagnostics events). */
  requestId?: string;
}

/**
 * Finds the call an upstream's server→client message belongs to. MCP carries no "related request"
 * on elicitation, sampling or log messages, so the gateway relies on two things: on Streamable HTTP
 * the message arrives on the POST stream the call opened, inside the call's async context
 * (AsyncLocalStorage); elsewhere (stdio, the GET stream) it goes to the one call in flight, and is
 * declined when several are (never guessed).
 */
export class CallScopes {
  private readonly storage = new AsyncLocalStorage<CallScope>();
  private readonly active = new Set<CallScope>();
  private readonly progress = new Map<string, (p: Progress) => void>();
  private nextToken = 0;

  /** Runs `fn` as the call `scope`. */
  async run<T>(scope: CallScope, fn: () => Promise<T>): Promise<T> {
    this.active.add(scope);
    try {
      return await this.storage.run(scope, fn);
    } finally {
      this.active.delete(scope);
    }
  }

  /**
   * Runs `fn` with a progress token of its own whose reports go to `onProgress` (MCP "Progress").
   * The gateway routes progress itself instead of using the SDK client's per-request handler: the
   * client dispatches notifications a microtask after responses, so a report sent just before the
   * result would be dropped. Here the token stays registered until the caller has the result.
   */
  async withProgress<T>(onProgress: (p: Progress) => void, fn: (token: string) => Promise<T>): Promise<T> {
    const token = `nlgate-${++this.nextToken}`;
    this.progress.set(token, onProgress);
    try {
      return await fn(token);
    } finally {
      this.progress.delete(token);
    }
  }

  /** Delivers an upstream `notifications/progress` to the call that owns its token. */
  deliverProgress(params: { progressToken: string | number; progress: number; total?: number; message?: string }): void {
    const { progressToken, progress, total, message } = params;
    this.progress.get(String(progressToken))?.({ progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) });
  }

  /** The call an inbound upstream message belongs to, or undefined when it cannot be told. */
  /** The call whose async context this is, if any (never guessed). */
  here(): CallScope | undefined {
    return this.storage.getStore();
  }

  owner(): CallScope | undefined {
    const here = this.storage.getStore();
    if (here && this.active.has(here)) return here;
    return this.active.size === 1 ? [...this.active][0] : undefined;
  }
}

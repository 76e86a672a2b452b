import type { Server, ServerOptions } from 'node:http';
import type { Limits } from '../config/schema.ts';

/** How long an idle keep-alive connection stays open (below common load-balancer idle timeouts of 60 s). */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * node:http options for the edge's connection limits (issue 11 item 3): a client must send its
 * headers within `headersTimeoutMs` and its whole request (a slow-drip body too) within
 * `requestTimeoutMs`, or node answers 408 and closes the connection. The checks run at least once
 * a second so a short timeout is enforced close to when it is due.
 */
export function connectionOptions(limits: Limits): ServerOptions {
  return {
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs, limits.requestTimeoutMs),
  };
}

/** Caps open connections (`limits.maxConnections`): further ones are closed as they arrive until one ends. */
export function capConnections(server: Server, limits: Limits): void {
  server.maxConnections = limits.maxConnections;
}

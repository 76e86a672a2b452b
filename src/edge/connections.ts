import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey, normalizeAddress, trustedPeer } from './client-address.ts';
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

/**
 * Caps open connections (issue 11 item 3, issue 24 hole 2): `limits.maxConnections` in all, and
 * `limits.maxConnectionsPerAddress` from any one client address (trusted proxies excepted; an IPv6
 * client by its `server.ipv6ClientPrefix`), so one address cannot hold every connection; a
 * connection that sends no byte within `limits.firstByteTimeoutMs` is closed, well before the
 * headers timeout would cut it.
 */
export function capConnections(server: Server, limits: Limits, trustedProxies: readonly string[] = [], ipv6Prefix = 128): void {
  server.maxConnections = limits.maxConnections;
  const isProxy = trustedPeer(trustedProxies);
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const peer = normalizeAddress(socket.remoteAddress ?? '');
    if (!isProxy(peer)) {
      const address = clientKey(peer, ipv6Prefix);
      const count = (open.get(address) ?? 0) + 1;
      if (count > limits.maxConnectionsPerAddress) {
        socket.destroy();
        return;
      }
      open.set(address, count);
      socket.once('close', () => {
        const left = open.get(address)! - 1;
        if (left > 0) open.set(address, left);
        else open.delete(address);
      });
    }
    // Node's parser reads the socket's handle directly (no 'data' events): bytesRead tells.
    const idle = setTimeout(() => socket.bytesRead === 0 && socket.destroy(), limits.firstByteTimeoutMs);
    idle.unref();
    socket.once('close', () => clearTimeout(idle));
  });
}

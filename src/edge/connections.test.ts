import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LimitsSchema } from '../config/schema.ts';
import { capConnections } from './connections.ts';

/**
 * The per-address share by IPv6 prefix. Real connections from many IPv6 addresses cannot be opened
 * here (loopback has only ::1, and adding addresses needs network privileges CI may not have), so
 * the server is handed stand-in sockets: what capConnections reads of one is its peer address, and
 * what it does is destroy it or watch for its close. test/security/connections.test.ts covers real
 * sockets from two IPv4 loopback addresses.
 */
class StandInSocket extends EventEmitter {
  destroyed = false;
  bytesRead = 1;
  constructor(readonly remoteAddress: string) {
    super();
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

function connect(server: ReturnType<typeof createServer>, address: string): StandInSocket {
  const socket = new StandInSocket(address);
  server.emit('connection', socket as unknown as Socket);
  return socket;
}

describe('capConnections by client key', () => {
  const limits = LimitsSchema.parse({ maxConnectionsPerAddress: 2 });

  it('regression "an IPv6 client holds every connection through many addresses of its /64": they share one share', () => {
    const server = createServer();
    capConnections(server, limits, [], 64);
    const sockets = [1, 2, 3].map((i) => connect(server, `2001:db8:1:2::${i}`));
    expect(sockets.map((s) => s.destroyed)).toEqual([false, false, true]);
    expect(connect(server, '2001:db8:1:3::1').destroyed).toBe(false);
    // A closed connection gives its place back to the prefix.
    sockets[0]!.destroy();
    expect(connect(server, '2001:db8:1:2::9').destroyed).toBe(false);
  });

  it('with prefix 128 each address has its own share; a trusted proxy is matched by its whole address and not counted', () => {
    const server = createServer();
    capConnections(server, limits, ['2001:db8::1'], 128);
    expect([1, 2, 3].map((i) => connect(server, `2001:db8:1:2::${i}`).destroyed)).toEqual([false, false, false]);
    expect([1, 2, 3].map(() => connect(server, '2001:db8::1').destroyed)).toEqual([false, false, false]);
  });
});

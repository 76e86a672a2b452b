import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { closeServer } from './server.ts';

describe('closeServer', () => {
  it('closes the server and its transport, and leaves stack capture as it found it', async () => {
    const before = Error.stackTraceLimit;
    const server = new Server({ name: 't', version: '1' }, { capabilities: {} });
    const [, serverSide] = InMemoryTransport.createLinkedPair();
    let closed = 0;
    server.onclose = () => closed++;
    await server.connect(serverSide);
    await closeServer(server);
    expect(closed).toBe(1);
    expect(server.transport).toBeUndefined();
    expect(Error.stackTraceLimit).toBe(before);
    // Errors made afterwards still carry their stacks.
    expect(new Error('after').stack).toContain('server.test.ts');
  });
});

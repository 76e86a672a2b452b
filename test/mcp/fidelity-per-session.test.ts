/**
 * Issue 18 items 5 and 6 and subscriptions: each 2025 MCP session gets an upstream session of its
 * own; messages an upstream sends between calls (logs, `resources/updated`) reach the session that
 * asked for them, on whichever replica holds its GET stream — two replicas, round-robin, no affinity.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/gateway.ts';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.ts';
import { connectClient, eventually, roundRobin, startReplicas } from './support.ts';

let fixture: HttpFixture;
let a: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  fixture = await startHttpFixture();
  [a, b] = await startReplicas({ agents: [{ name: 'pantry', kind: 'mcp', url: fixture.mcpUrl, protocol: 'legacy' }] });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await fixture?.close();
});

const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text?: string }>)[0]?.text;

/** A 2025 client spread over both replicas, recording what arrives outside its calls. */
async function spreadClient() {
  const logs: unknown[] = [];
  const updates: string[] = [];
  const client = await connectClient(`${a.url}/mcp`, '2025-11-25', { fetch: roundRobin([a.url, b.url]) });
  client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params.data));
  client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
  return { client, logs, updates };
}

/**
 * Calls `later_log` until its message reaches `c`. A message sent outside a call reaches only a
 * client whose GET stream is already open, and the SDK client opens it in the background after
 * `initialize`: on a loaded machine the first message can go out before it is (regression: a CI
 * run on two workers lost it and waited out the timeout). The test is about where it goes.
 */
async function loggedBetweenCalls(c: Awaited<ReturnType<typeof spreadClient>>, message: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await c.client.callTool({ name: 'later_log', arguments: { message } });
    const arrived = await eventually(() => c.logs.includes(message), 1_500).then(() => true, () => false);
    if (arrived) return;
  }
  throw new Error(`"${message}" never reached the client that caused it`);
}

describe('one upstream session per client session', () => {
  it('every downstream client shares one upstream session (item 6): each gets its own, kept across calls and replicas', async () => {
    const one = await spreadClient();
    const two = await spreadClient();
    try {
      const first = textOf(await one.client.callTool({ name: 'session_id', arguments: {} }));
      const again = textOf(await one.client.callTool({ name: 'session_id', arguments: {} }));
      const other = textOf(await two.client.callTool({ name: 'session_id', arguments: {} }));
      expect(first).toMatch(/^[0-9a-f-]{36}$/);
      // The two calls of one client may land on different replicas: each replica opens its own
      // upstream session for it, but never shares one with another client.
      expect(other).not.toBe(first);
      expect(other).not.toBe(again);
    } finally {
      await one.client.close();
      await two.client.close();
    }
  });

  it('the tool list follows the gateway, not the client (item 6): elicitation-only tools only for clients that can answer', async () => {
    const plain = await connectClient(`${a.url}/mcp`, '2025-11-25');
    const capable = await connectClient(`${a.url}/mcp`, '2025-11-25', { onElicit: () => ({ action: 'decline' }) });
    try {
      expect((await plain.listTools()).tools.map((t) => t.name)).not.toContain('needs_elicitation');
      expect((await capable.listTools()).tools.map((t) => t.name)).toContain('needs_elicitation');
      await expect(plain.callTool({ name: 'needs_elicitation', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      expect(textOf(await capable.callTool({ name: 'needs_elicitation', arguments: {} }))).toBe('asked');
    } finally {
      await plain.close();
      await capable.close();
    }
  });

  it('a client session that ends closes its upstream session (DELETE upstream)', async () => {
    const client = await connectClient(`${a.url}/mcp`, '2025-11-25');
    const upstream = textOf(await client.callTool({ name: 'session_id', arguments: {} }));
    await (client.transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
    await eventually(() => fixture.seen.some((s) => s.httpMethod === 'DELETE' && s.sessionId === upstream));
    await client.close();
  });
});

describe('answers to an upstream request, no sticky sessions (issue 16 item 4)', () => {
  it('an elicitation answer posted to the other replica reaches the exchange that asked', async () => {
    // Every request goes to the replica after the previous one's: a call and its answer never share one.
    let turn = 0;
    const bases = [a.url, b.url];
    const seen: string[] = [];
    const alternate = (url: string | URL, init?: RequestInit) => {
      const target = new URL(String(url));
      const base = new URL(bases[turn++ % 2]!);
      target.host = base.host;
      seen.push(`${init?.method ?? 'GET'} ${base.port}`);
      return fetch(target, init);
    };
    const client = await connectClient(`${a.url}/mcp`, '2025-11-25', { fetch: alternate, onElicit: () => ({ action: 'accept', content: { ok: true } }) });
    try {
      for (let i = 0; i < 2; i++) expect(textOf(await client.callTool({ name: 'confirm', arguments: { message: 'Sure?' } }))).toBe('confirmed: true');
      expect(new Set(seen.filter((s) => s.startsWith('POST')).map((s) => s.split(' ')[1])).size).toBe(2);
    } finally {
      await client.close();
    }
  });
});

describe('messages between calls', () => {
  it('notifications outside a call are lost (item 5): a log sent after the call reaches the client that caused it, and no other', async () => {
    const one = await spreadClient();
    const two = await spreadClient();
    try {
      await loggedBetweenCalls(one, 'for one');
      await loggedBetweenCalls(two, 'for two');
      expect(one.logs).not.toContain('for two');
      expect(two.logs).not.toContain('for one');
    } finally {
      await one.client.close();
      await two.client.close();
    }
  });

  it('a log below the level the session set is not delivered between calls', async () => {
    // One replica: one upstream session, whose messages arrive in the order it sent them.
    const logs: unknown[] = [];
    const client = await connectClient(`${a.url}/mcp`, '2025-11-25');
    client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params.data));
    try {
      await client.setLoggingLevel('error');
      await client.callTool({ name: 'later_log', arguments: { message: 'quiet please', level: 'warning' } });
      await client.callTool({ name: 'later_log', arguments: { message: 'loud', level: 'error' } });
      await eventually(() => logs.includes('loud'));
      expect(logs).toEqual(['loud']);
    } finally {
      await client.close();
    }
  });

  it('resources/subscribe refused: subscribed sessions get notifications/resources/updated, others not', async () => {
    const one = await spreadClient();
    const two = await spreadClient();
    try {
      expect(one.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
      await one.client.subscribeResource({ uri: 'fixture://readme' });
      await one.client.callTool({ name: 'touch', arguments: {} });
      await two.client.callTool({ name: 'touch', arguments: {} });
      await eventually(() => one.updates.length > 0);
      // Each touch may notify the subscriber (one or two updates, by timing): all for its resource.
      expect(new Set(one.updates)).toEqual(new Set(['fixture://readme']));
      await one.client.unsubscribeResource({ uri: 'fixture://readme' });
      expect(two.updates).toEqual([]);
    } finally {
      await one.client.close();
      await two.client.close();
    }
  });
});

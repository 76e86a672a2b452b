/**
 * Issue 11 "open connections, header and body timeouts", against `nlgate serve` as its own process
 * (the listener settings live in src/server.ts): a slow-drip body is cut by the request timeout,
 * and connections past `limits.maxConnections` are refused while the others stay served.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';

let gw: GatewayProcess | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

const sockets: Socket[] = [];
afterEach(() => sockets.splice(0).forEach((s) => s.destroy()));

function open(url: string, localAddress?: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) }, () => resolve(s));
    s.once('error', reject);
    sockets.push(s);
  });
}

/** Resolves with what the server sent once it closes the connection. */
function closed(s: Socket): Promise<string> {
  let got = '';
  s.on('data', (d) => (got += d.toString()));
  return new Promise((resolve) => {
    if (s.destroyed) return resolve(got);
    s.once('close', () => resolve(got));
  });
}

/**
 * Sends a POST /ask whose body drips one byte every 100 ms (20 s for all of it) against a
 * gateway with 1 s request timeouts; resolves once the server closes the connection.
 */
async function slowDrip(): Promise<{ reply: string; sent: number; length: number }> {
  gw = await spawnGateway({ limits: { requestTimeoutMs: 1000, headersTimeoutMs: 1000 }, agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }] });
  const s = await open(gw.url);
  const body = JSON.stringify({ query: { text: 'count:1 '.padEnd(200, 'x') } });
  s.write(`POST /ask HTTP/1.1\r\nHost: ${new URL(gw.url).host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  const end = closed(s);
  let sent = 0;
  const drip = setInterval(() => {
    if (!s.destroyed && sent < body.length - 1) s.write(body[sent++]!);
  }, 100);
  const reply = await end;
  clearInterval(drip);
  return { reply, sent, length: body.length };
}

describe('connections and timeouts', () => {
  it('regression "a slow request body holds a connection for 300 s": a slow-drip body is cut by limits.requestTimeoutMs', async () => {
    // One byte every 100 ms would take 20 s; the server must close the connection long before.
    const { reply, sent, length } = await slowDrip();
    expect(sent).toBeLessThan(length - 1);
    expect(reply === '' || reply.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('regression "a slow-drip body writes error lines at will" (issue 24, hole 5): the 408 is logged at info, not as an internal error', async () => {
    await slowDrip();
    await new Promise((r) => setTimeout(r, 300)); // the binding sees the cut body after the socket closes
    const lines = gw!.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string; stack?: string });
    const errors = lines.filter((l) => l.level >= 50);
    expect(errors, JSON.stringify(errors)).toEqual([]);
    expect(lines.some((l) => l.msg.includes('internal error') || l.stack)).toBe(false);
    // What it is, is still said: once, at info, as the client's doing.
    expect(lines.filter((l) => l.level === 30 && /client/i.test(l.msg)).length).toBeGreaterThan(0);
  });

  it('connections past limits.maxConnections are closed unserved; the open ones are still served', async () => {
    gw = await spawnGateway({ limits: { maxConnections: 2 }, agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }] });
    const host = new URL(gw.url).host;
    const [a, b] = [await open(gw.url), await open(gw.url)];
    const c = await open(gw.url);
    c.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(await closed(c)).toBe('');
    a.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(await closed(a)).toMatch(/^HTTP\/1.1 200/);
    b.destroy();
  });

  it('regression "one address can take every connection" (issue 24, hole 2): past maxConnectionsPerAddress its sockets are closed, other addresses are served', async () => {
    gw = await spawnGateway({ limits: { maxConnections: 50, maxConnectionsPerAddress: 10 }, agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }] });
    const held: Socket[] = [];
    for (let i = 0; i < 10; i++) held.push(await open(gw.url, '127.0.0.1'));
    // The eleventh from the same address is closed unserved.
    const extra = await open(gw.url, '127.0.0.1');
    const host = new URL(gw.url).host;
    extra.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(await closed(extra)).toBe('');
    // Another address is served at once while the ten are held.
    const other = await open(gw.url, '127.0.0.2');
    other.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(await closed(other)).toMatch(/^HTTP\/1.1 200/);
    // One of the ten closes: the address may open one again.
    held[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await open(gw.url, '127.0.0.1');
    again.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(await closed(again)).toMatch(/^HTTP\/1.1 200/);
  });

  it('a connection that sends no byte is closed after limits.firstByteTimeoutMs, long before the headers timeout', async () => {
    gw = await spawnGateway({ limits: { firstByteTimeoutMs: 300, headersTimeoutMs: 20_000, requestTimeoutMs: 30_000 }, agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }] });
    const silent = await open(gw.url);
    const started = Date.now();
    await closed(silent);
    expect(Date.now() - started).toBeLessThan(5_000);
    // A connection that started its request is left to the headers timeout.
    const talking = await open(gw.url);
    talking.write('GET /healthz HTTP/1.1\r\n');
    const outcome = await Promise.race([closed(talking).then(() => 'closed'), new Promise((r) => setTimeout(() => r('open'), 1_500))]);
    expect(outcome).toBe('open');
  });
});

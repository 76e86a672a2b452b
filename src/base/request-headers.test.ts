import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adoptSocketHeaders, requestHeader, socketFields } from './request-headers.ts';

/** Names as clients write them: the fields the gateway reads, in any case, repeated, and the odd ones. */
const NAMES = [
  'Host', 'host', 'HOST', 'Content-Type', 'content-type', 'Authorization', 'authorization', 'Cookie', 'cookie', 'Set-Cookie',
  'Accept', 'accept', 'Origin', 'X-Forwarded-For', 'x-forwarded-for', 'Mcp-Session-Id', 'mcp-protocol-version', 'A2A-Version',
  'User-Agent', 'Referer', 'If-Modified-Since', 'Traceparent', '__proto__', 'constructor', 'toString', 'X-Nlgate-Capture',
];
const valueChar = fc.oneof(
  { arbitrary: fc.integer({ min: 0x21, max: 0x7e }), weight: 8 },
  { arbitrary: fc.constantFrom(0x20, 0x09), weight: 2 },
  { arbitrary: fc.integer({ min: 0x80, max: 0xff }), weight: 1 }, // obs-text: Node reads it as latin1
);
const value = fc.array(valueChar, { maxLength: 24 }).map((codes) => String.fromCharCode(...codes));
const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,11}$/);
const line = fc.tuple(fc.oneof({ arbitrary: fc.constantFrom(...NAMES), weight: 4 }, { arbitrary: token, weight: 1 }), value);

/** What the gateway's reader and @hono/node-server's `Headers` answer for every name asked. */
interface Compared {
  names: string[];
  ours: (string | null)[];
  theirs: (string | null)[];
}

let server: Server;
let port: number;

beforeAll(async () => {
  const listener = getRequestListener((req, env: { incoming: { rawHeaders: string[] } }) => {
    const asked = [...new Set([...NAMES, ...env.incoming.rawHeaders.filter((_, i) => i % 2 === 0)].map((n) => n.toLowerCase()))];
    // Hono's reading first: it must not see the adopted fields.
    const theirs = asked.map((n) => req.headers.get(n));
    adoptSocketHeaders(req, env.incoming.rawHeaders);
    const ours = asked.map((n) => requestHeader(req, n as Lowercase<string>) ?? null);
    return Response.json({ names: asked, ours, theirs } satisfies Compared);
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends a GET with these header lines, written byte for byte; resolves with the status and body. */
function rawRequest(lines: [string, string][]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const head = `GET / HTTP/1.1\r\n${lines.map(([n, v]) => `${n}: ${v}\r\n`).join('')}Connection: close\r\n\r\n`;
    socket.end(Buffer.from(head, 'latin1'));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = Number(text.slice(9, 12));
      // The JSON body (Content-Length framed: Hono answers a Response.json in one piece).
      resolve({ status, body: Buffer.from(text.slice(text.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8') });
    });
  });
}

describe('requestHeader (header fields read once off the socket, issue 25)', () => {
  it('answers what the request’s own Headers answer, for any header lines a client sends', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 14 }), async (lines) => {
        const { status, body } = await rawRequest([['Host', 'gw.example'], ...lines]);
        if (status !== 200) return; // Node refused the request (it never reaches a handler)
        const answer = JSON.parse(body) as Compared;
        compared++;
        expect(answer.ours).toEqual(answer.theirs);
      }),
      { numRuns: 300 },
    );
    // Node refuses few of them, so the comparison covered the generated requests.
    expect(compared).toBeGreaterThan(250);
  });

  it('joins repeated lines as Headers does: ", ", and "; " for Cookie', async () => {
    const { body } = await rawRequest([
      ['Host', 'gw.example'],
      ['Authorization', 'Bearer a'],
      ['authorization', 'Bearer b'],
      ['Cookie', 'a=1'],
      ['cookie', 'b=2'],
      ['Accept', ' text/html '],
      ['ACCEPT', 'application/json'],
    ]);
    const answer = JSON.parse(body) as Compared;
    const ours = Object.fromEntries(answer.names.map((n, i) => [n, answer.ours[i]]));
    expect(ours).toMatchObject({ authorization: 'Bearer a, Bearer b', cookie: 'a=1; b=2', accept: 'text/html, application/json', origin: null });
    expect(answer.ours).toEqual(answer.theirs);
  });

  it('leaves a request with a value Headers refuses to its Headers, and one never adopted too', () => {
    expect(socketFields(['X-A', 'ok', 'X-B', 'bad\0value'])).toBeUndefined();
    const req = new Request('http://gw.example/', { headers: { 'x-a': 'from headers' } });
    adoptSocketHeaders(req, ['X-A', 'ok', 'X-B', 'bad\0value']);
    expect(requestHeader(req, 'x-a')).toBe('from headers');
    expect(requestHeader(new Request('http://gw.example/'), 'x-a')).toBeUndefined();
  });

  it('trims as Headers does: each line of a one-line field, the joined value of the others', () => {
    // Node trims values itself; other callers of socketFields may not. Host as @hono/node-server's own scan, X-A as Node's join.
    const fields = socketFields(['Host', ' a ', 'host', ' ', 'X-A', ' a ', 'x-a', ' ', 'X-B', '\tb '])!;
    expect([...fields]).toEqual([
      ['host', 'a, '],
      ['x-a', 'a ,'],
      ['x-b', 'b'],
    ]);
  });

  it('leaves out HTTP/2 pseudo-headers and keeps names Object.prototype has', () => {
    const fields = socketFields([':method', 'GET', ':path', '/', '__proto__', 'x', 'constructor', 'y']);
    expect(fields && [...fields]).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
  });
});

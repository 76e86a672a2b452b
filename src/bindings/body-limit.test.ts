import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { bodyLimit } from './body-limit.ts';

function app(maxSize: number): Hono {
  const a = new Hono();
  a.post('/', bodyLimit({ maxSize, onError: (c) => c.json({ error: 'too large' }, 413) }), async (c) => c.text(await c.req.text()));
  return a;
}

/** A body sent without Content-Length (chunked on the wire). */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 4) controller.enqueue(bytes.slice(i, i + 4));
      controller.close();
    },
  });
}

describe('bodyLimit', () => {
  it('refuses a declared Content-Length above the limit without reading the body', async () => {
    const res = await app(10).request('/', { method: 'POST', body: 'x'.repeat(11), headers: { 'content-length': '11' } });
    expect(res.status).toBe(413);
  });

  it('passes a body within the limit through intact', async () => {
    const res = await app(10).request('/', { method: 'POST', body: '0123456789', headers: { 'content-length': '10' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('0123456789');
  });

  it('counts a body without Content-Length as it arrives', async () => {
    const over = await app(10).request('/', { method: 'POST', body: chunked('x'.repeat(25)), duplex: 'half' } as RequestInit);
    expect(over.status).toBe(413);
    const within = await app(10).request('/', { method: 'POST', body: chunked('abcdefgh'), duplex: 'half' } as RequestInit);
    expect(await within.text()).toBe('abcdefgh');
  });
});

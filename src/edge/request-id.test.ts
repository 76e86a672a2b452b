import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { MiddlewareHandler } from 'hono';
import { withRequestId } from './request-id.ts';

/** The id alone, in front of the routes. */
const requestId = withRequestId((_c, next) => next());

function app(): Hono {
  const a = new Hono();
  a.use('*', requestId);
  a.get('/json', (c) => c.json({ id: c.get('requestId') }));
  a.get('/headed', (c) => c.json({ id: c.get('requestId') }, 201, { 'x-extra': '1' }));
  return a;
}

describe('withRequestId', () => {
  it('in process: echoes the id it gave the request, a new one each time', async () => {
    const a = app();
    const [r1, r2] = [await a.request('/json'), await a.request('/json')];
    expect(r1.headers.get('x-request-id')).toBe(((await r1.json()) as { id: string }).id);
    expect(r2.headers.get('x-request-id')).not.toBe(r1.headers.get('x-request-id'));
  });

  it('over Node HTTP: the header is on the wire next to the handler\'s own headers', async () => {
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app().fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const plain = await fetch(`${base}/json`);
      expect(plain.headers.get('x-request-id')).toBe(((await plain.json()) as { id: string }).id);
      const headed = await fetch(`${base}/headed`);
      expect(headed.status).toBe(201);
      expect(headed.headers.get('x-extra')).toBe('1');
      expect(headed.headers.get('x-request-id')).toBe(((await headed.json()) as { id: string }).id);
    } finally {
      server.close();
    }
  });

  it('withRequestId: the middleware it wraps sees the id, and the answer carries it, as with requestId in front', async () => {
    const seen: unknown[] = [];
    const observe: MiddlewareHandler = async (c, next) => {
      seen.push(c.get('requestId'));
      await next();
    };
    const a = new Hono();
    a.use('*', withRequestId(observe));
    a.get('/json', (c) => c.json({ id: c.get('requestId') }));
    const r = await a.request('/json');
    const { id } = (await r.json()) as { id: string };
    expect(r.headers.get('x-request-id')).toBe(id);
    expect(seen).toEqual([id]);
  });
});

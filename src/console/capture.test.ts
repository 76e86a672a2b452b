import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CaptureRing } from './capture.ts';
import { createRedactor, REDACTED, redactBodyText } from './redact.ts';

const exchange = (id: number, requestId: string | undefined, extra: Partial<{ headers: Record<string, string>; body: string; url: string }> = {}) => ({
  id,
  ...(requestId ? { requestId } : {}),
  agent: 'up',
  kind: 'nlip',
  method: 'POST',
  url: extra.url ?? 'http://127.0.0.1:9/nlip/',
  headers: extra.headers ?? { 'content-type': 'application/json' },
  ...(extra.body !== undefined ? { body: extra.body } : {}),
});

const limits = { maxRequests: 3, maxBytes: 10_000, maxExchangeBytes: 1_000, maxExchangesPerRequest: 4 };

describe('console capture ring', () => {
  it('keeps exchanges only for marked requests', () => {
    const ring = new CaptureRing(createRedactor(), limits);
    ring.mark('req_a', 'key:alice');
    ring.onRequest(exchange(1, 'req_a'));
    ring.onRequest(exchange(2, 'req_other'));
    ring.onRequest(exchange(3, undefined));
    ring.onResponse(1, 200, { 'content-type': 'application/json' });
    ring.onChunk(1, '{"format":"text","subformat":"english","content":"hi"}');
    ring.onEnd(1, undefined, 12.4);
    const got = ring.get('req_a', 'key:alice');
    expect(got).toHaveLength(1);
    expect(got![0]).toMatchObject({ status: 200, done: true, durationMs: 12, responseBody: '{"format":"text","subformat":"english","content":"hi"}' });
    expect(ring.get('req_other', 'key:alice')).toBeNull();
  });

  it('answers only the principal that made the call (owner check)', () => {
    const ring = new CaptureRing(createRedactor(), limits);
    ring.mark('req_a', 'key:alice');
    ring.onRequest(exchange(1, 'req_a'));
    expect(ring.get('req_a', 'key:mallory')).toBeNull();
    expect(ring.get('req_a', 'anon:127.0.0.1')).toBeNull();
    expect(ring.get('req_a', 'key:alice')).toHaveLength(1);
  });

  it('a request marked again keeps its first owner', () => {
    const ring = new CaptureRing(createRedactor(), limits);
    ring.mark('req_a', 'key:alice');
    ring.mark('req_a', 'key:mallory');
    expect(ring.get('req_a', 'key:mallory')).toBeNull();
  });

  it('bounds the number of requests, dropping the oldest', () => {
    const ring = new CaptureRing(createRedactor(), limits);
    for (let i = 0; i < 5; i++) ring.mark(`req_${i}`, 'p');
    expect(ring.size).toBe(3);
    expect(ring.get('req_0', 'p')).toBeNull();
    expect(ring.get('req_4', 'p')).toEqual([]);
  });

  it('bounds bytes per exchange, exchanges per request and bytes overall', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(7), fc.string({ maxLength: 3_000 })), { maxLength: 60 }), (steps) => {
        const ring = new CaptureRing(createRedactor(), limits);
        let id = 0;
        for (const [r, chunk] of steps) {
          ring.mark(`req_${r}`, 'p');
          ring.onRequest(exchange(++id, `req_${r}`, { body: chunk }));
          ring.onChunk(id, chunk);
          ring.onChunk(id, chunk);
          ring.onEnd(id, undefined, 1);
        }
        expect(ring.size).toBeLessThanOrEqual(limits.maxRequests);
        expect(ring.bytes).toBeLessThanOrEqual(limits.maxBytes);
        for (let r = 0; r < 8; r++) {
          const got = ring.get(`req_${r}`, 'p') ?? [];
          expect(got.length).toBeLessThanOrEqual(limits.maxExchangesPerRequest);
          for (const ex of got) {
            expect((ex.requestBody ?? '').length).toBeLessThanOrEqual(limits.maxExchangeBytes);
          }
        }
      }),
    );
  });

  it('cuts a long response body and says so', () => {
    const ring = new CaptureRing(createRedactor(), limits);
    ring.mark('req_a', 'p');
    ring.onRequest(exchange(1, 'req_a'));
    ring.onChunk(1, 'x'.repeat(800));
    ring.onChunk(1, 'y'.repeat(800));
    ring.onEnd(1, undefined, 1);
    const [ex] = ring.get('req_a', 'p')!;
    expect(ex!.responseBody.length).toBe(1_000);
    expect(ex!.truncated).toBe(true);
  });
});

describe('console redaction', () => {
  it('redacts credential headers, configured headers, cookies and URL secrets', () => {
    const ring = new CaptureRing(createRedactor(['X-Kitchen-Key']), limits);
    ring.mark('req_a', 'p');
    ring.onRequest(
      exchange(1, 'req_a', {
        url: 'http://user:pw@127.0.0.1:9/ask?api_key=s3cret&q=pasta',
        headers: { authorization: 'Bearer upstream-secret', cookie: 'sid=abc', 'x-kitchen-key': 'k-123', 'content-type': 'application/json' },
      }),
    );
    ring.onResponse(1, 200, { 'set-cookie': 'sid=def', 'content-type': 'application/json' });
    const [ex] = ring.get('req_a', 'p')!;
    expect(ex!.requestHeaders).toEqual({ authorization: REDACTED, cookie: REDACTED, 'x-kitchen-key': REDACTED, 'content-type': 'application/json' });
    expect(ex!.responseHeaders!['set-cookie']).toBe(REDACTED);
    expect(ex!.url).not.toContain('s3cret');
    expect(ex!.url).not.toContain('pw@');
    expect(ex!.url).toContain('q=pasta');
  });

  it('redacts NLIP token parts and secret keys in JSON bodies and SSE data lines', () => {
    const nlip = JSON.stringify({ format: 'text', subformat: 'english', content: 'hi', submessages: [{ format: 'token', subformat: 'authentication', content: 'tok-secret' }] });
    expect(redactBodyText(nlip)).not.toContain('tok-secret');
    expect(redactBodyText(nlip)).toContain('"content":"hi"');
    const sse = `event: start\ndata: {"promise_token":"prm-secret","x":1}\n\n`;
    expect(redactBodyText(sse)).not.toContain('prm-secret');
    expect(redactBodyText(sse)).toContain('event: start');
  });

  it('a body still being read is redacted when handed out', () => {
    const ring = new CaptureRing(createRedactor(), limits);
    ring.mark('req_a', 'p');
    ring.onRequest(exchange(1, 'req_a'));
    ring.onChunk(1, '{"access_token":"live-secret"}');
    expect(JSON.stringify(ring.get('req_a', 'p'))).not.toContain('live-secret');
  });
});

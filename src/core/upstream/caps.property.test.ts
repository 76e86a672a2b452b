/**
 * Property tests for the upstream size caps (issue 11 "Property tests for the caps"): random sizes
 * around each limit, random chunkings. A whole body is accepted exactly when it is within
 * `maxUpstreamBodyBytes`; an SSE event exactly when its bytes before the blank line are within
 * `maxUpstreamEventBytes`; over a cap the error is UPSTREAM_ERROR naming the setting.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSse, SseEventTooLargeError } from '../../protocol/sse.ts';
import { GatewayError } from '../../base/errors.ts';
import { UpstreamHeaders, UpstreamResponse } from './response.ts';

/** Splits `bytes` at the given cut points (sorted, deduplicated, inside the buffer). */
function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % Math.max(1, bytes.length)))].sort((a, b) => a - b).filter((c) => c > 0);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out.filter((c) => c.length > 0);
}

const LIMIT = 1024;
const sizeAround = fc.integer({ min: LIMIT - 64, max: LIMIT + 64 });
const cuts = fc.array(fc.nat({ max: 4096 }), { maxLength: 12 });

describe('upstream caps (property)', () => {
  it('text(): accepted exactly when the body is within maxUpstreamBodyBytes', async () => {
    await fc.assert(
      fc.asyncProperty(sizeAround, cuts, fc.boolean(), async (size, at, declare) => {
        const body = Buffer.alloc(size, 'x');
        const headers = new UpstreamHeaders(declare ? { 'content-length': String(size) } : {});
        const res = new UpstreamResponse(200, headers, Readable.from(chunked(body, at)), { agent: 'a', maxBodyBytes: LIMIT, maxEventBytes: LIMIT, signal: undefined, exchange: undefined });
        const outcome = await res.text().then((t) => t.length, (e: unknown) => e);
        if (size <= LIMIT) expect(outcome).toBe(size);
        else {
          expect(outcome).toBeInstanceOf(GatewayError);
          expect(outcome).toMatchObject({ code: 'UPSTREAM_ERROR', details: { limit: 'maxUpstreamBodyBytes' } });
        }
      }),
    );
  });

  it('readSse: an event is delivered exactly when its bytes before the blank line are within maxEventBytes', async () => {
    await fc.assert(
      fc.asyncProperty(sizeAround, cuts, async (size, at) => {
        const head = Buffer.from(`data: ${'y'.repeat(Math.max(0, size - 6))}`);
        const chunks = [...chunked(head, at), Buffer.from('\n\n')];
        const outcome = await (async () => {
          const got: string[] = [];
          for await (const m of readSse(Readable.from(chunks), { maxEventBytes: LIMIT })) got.push(m.data);
          return got;
        })().then((g) => g, (e: unknown) => e);
        if (head.length <= LIMIT) expect(outcome).toEqual([head.subarray(6).toString()]);
        else expect(outcome).toBeInstanceOf(SseEventTooLargeError);
      }),
    );
  });

  it('sse(): over the cap the stream fails with UPSTREAM_ERROR naming maxUpstreamEventBytes', async () => {
    const big = Buffer.from(`data: ${'z'.repeat(LIMIT * 2)}`);
    const res = new UpstreamResponse(200, new UpstreamHeaders({ 'content-type': 'text/event-stream' }), Readable.from([big]), { agent: 'a', maxBodyBytes: LIMIT * 10, maxEventBytes: LIMIT, signal: undefined, exchange: undefined });
    const err = await (async () => {
      for await (const _ of res.sse()) void _;
    })().then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', details: { limit: 'maxUpstreamEventBytes' } });
  });
});

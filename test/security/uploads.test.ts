/**
 * Issue 11: "40 × 8 MB uploads stay an hour" and uploads readable by anyone holding the URI. An NLIP
 * upload (ECMA-430 6.4) belongs to its uploader; the bytes held are capped per principal
 * (`limits.uploadBytesPerPrincipal`) and in total (`limits.uploadBytesTotal`), accounted in the store.
 * Over a cap: 413 with an NLIP message, nothing stored, and other callers keep their room.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../../src/store/memory.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { alice, bob, fetchFrom, nlipMessage, partsOf, postJson, type Fetch } from './owner-support.ts';

const MiB = 1024 * 1024;

/** POSTs `bytes` as the multipart field `contents` (built by hand: the same bytes for any fetch). */
async function upload(who: Fetch, base: string, bytes: Buffer | Uint8Array, name = 'file.bin'): Promise<{ status: number; body: any }> {
  const boundary = `----nlgate${Math.random().toString(36).slice(2)}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="contents"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  const res = await who(`${base}/nlip/upload/`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
  return { status: res.status, body: await res.json() };
}

describe('uploads belong to their uploader', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ agents: [{ name: 'bot', kind: 'scripted' }] });
  });
  afterAll(() => gw?.close());

  it('upload read by another caller: the reference is "unknown or expired" for bob, as for one never made', async () => {
    const up = await upload(alice, gw.url, Buffer.from('alice private bytes'), 'private.txt');
    const uri = partsOf(up.body, 'structured', 'uri')[0]!.content as string;
    const use = async (who: Fetch, ref: string) => String((await postJson(who, `${gw.url}/agents/bot/nlip/`, nlipMessage('count:1 read it', [{ format: 'structured', subformat: 'uri', content: ref }]))).body.content);
    const never = await use(bob, uri.replace(/upload_[A-Za-z0-9_-]+/, 'upload_AAAAAAAAAAAAAAAAAAAAAA'));
    expect(never).toContain('unknown or has expired');
    expect(await use(bob, uri)).toBe(never);
    expect(await use(alice, uri)).not.toContain('unknown or has expired');
    expect(await use(alice, uri)).toContain('private.txt');
  });
});

describe('upload quotas', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // The per-principal default (16 MiB); a total small enough to reach with two callers.
    gw = await startGateway({ limits: { uploadBytesTotal: 24 * MiB }, agents: [{ name: 'bot', kind: 'scripted' }] });
  });
  afterAll(() => gw?.close());

  it('40 × 8 MB uploads from one caller: two are kept (16 MiB), the other 38 get 413 and store nothing; others keep their room up to the total', async () => {
    const store = gw.gateway.store as MemoryStore;
    const eight = new Uint8Array(8 * MiB);
    const statuses: number[] = [];
    let refusal: any;
    for (let i = 0; i < 40; i++) {
      const r = await upload(alice, gw.url, eight);
      statuses.push(r.status);
      if (r.status === 413) refusal = r.body;
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 413)).toHaveLength(38);
    expect(refusal).toMatchObject({ format: 'text', submessages: [{ format: 'error', subformat: 'code', content: 'PAYLOAD_TOO_LARGE' }] });
    expect(refusal.content).toContain('upload quota');
    const uploadsHeld = [...store.backend.blobs.keys()].filter((k) => k.startsWith('nlip-upload:'));
    expect(uploadsHeld).toHaveLength(2);
    // Bob is not locked out by alice: he has room until the total (24 MiB) is reached.
    expect((await upload(bob, gw.url, eight)).status).toBe(200);
    expect((await upload(bob, gw.url, eight)).status).toBe(413);
    expect((await upload(fetchFrom('127.0.0.3'), gw.url, new Uint8Array(2 * MiB))).status).toBe(413);
    expect((await upload(fetchFrom('127.0.0.3'), gw.url, new Uint8Array(512))).status).toBe(413);
    expect([...store.backend.blobs.keys()].filter((k) => k.startsWith('nlip-upload:'))).toHaveLength(3);
  }, 120_000);
});

describe('regression "uploads at the default total cap hold the process at ~650 MB (held base64 in the heap)" (issue 24)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ agents: [{ name: 'bot', kind: 'scripted' }] });
  });
  afterAll(() => gw?.close());

  it('an upload is held as its own bytes, off the JavaScript heap: no base64 text, nothing more than the file', async () => {
    const store = gw.gateway.store as MemoryStore;
    const bytes = Buffer.alloc(2 * MiB, 0xab);
    expect((await upload(alice, gw.url, bytes, 'two.bin')).status).toBe(200);
    const held = [...store.backend.blobs.entries()].filter(([k]) => k.startsWith('nlip-upload:'));
    expect(held).toHaveLength(1);
    const blob = held[0]![1].value;
    expect(blob.bytes).toBeInstanceOf(Uint8Array);
    expect(blob.bytes.byteLength).toBe(bytes.length);
    expect(blob.bytes.buffer.byteLength).toBe(bytes.length); // not a slice of something larger
    expect(Buffer.from(blob.bytes).equals(bytes)).toBe(true);
    expect(blob.meta.length).toBeLessThan(1024);
    // Nothing else the store holds carries the file again (as the base64 record once did).
    for (const { value } of store.backend.records.values()) expect(value.length).toBeLessThan(64 * 1024);
  });
});

describe('upload quota boundary', () => {
  const PER = 64 * 1024;
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ limits: { uploadBytesPerPrincipal: PER, uploadBytesTotal: 100 * MiB }, agents: [{ name: 'bot', kind: 'scripted' }] });
  });
  afterAll(() => gw?.close());

  it('a fresh caller\'s upload just below the per-caller cap is kept, just above it is refused and nothing is stored (property)', async () => {
    const store = gw.gateway.store as MemoryStore;
    let next = 10;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -2048, max: 2048 }), async (delta) => {
        const who = fetchFrom(`127.0.1.${next++}`);
        const before = store.size();
        const r = await upload(who, gw.url, new Uint8Array(PER + delta));
        if (delta <= 0) {
          expect(r.status).toBe(200);
          expect(store.size()).toBeGreaterThan(before);
        } else {
          expect(r.status).toBe(413);
          expect(store.size()).toBe(before);
        }
      }),
      { numRuns: 30 },
    );
  }, 90_000);
});

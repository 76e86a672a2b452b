import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEnvelope, okEnvelope, errorEnvelope, OkEnvelopeSchema, ErrorEnvelopeSchema } from './envelope.ts';
import { ExecutionRequestSchema, parseExecutionRequest } from './execution.ts';
import { parseMetadata, WebtoolMetadataSchema } from './metadata.ts';
import { canonicalJson, metadataHash } from './hash.ts';

const metadata = {
  name: 'weather',
  description: 'Provides weather information',
  version: '1.0.0',
  actions: [{ name: 'get_current', description: 'Current weather', requestSchema: { type: 'object' }, responseSchema: { type: 'object' } }],
  configSchema: { type: 'object' },
  defaultConfig: { units: 'metric' },
};

describe('parseMetadata (GET {webtoolUrl}/)', () => {
  it('accepts the draft example and returns the emitted shape', () => {
    const r = parseMetadata(metadata);
    expect(r.ok).toBe(true);
    if (r.ok) expect(WebtoolMetadataSchema.safeParse(r.value).success).toBe(true);
  });

  it('accepts loosely: missing or null optional parts get permissive defaults; boolean schemas become objects', () => {
    const r = parseMetadata({ name: 'x', version: '2', actions: [{ name: 'a', requestSchema: true, responseSchema: null }], defaultConfig: null });
    expect(r).toEqual({
      ok: true,
      value: { name: 'x', description: '', version: '2', actions: [{ name: 'a', description: '', requestSchema: {}, responseSchema: {} }], configSchema: {}, defaultConfig: {} },
    });
    const f = parseMetadata({ ...metadata, actions: [{ name: 'a', requestSchema: false }] });
    expect(f.ok && f.value.actions[0]!.requestSchema).toEqual({ not: {} });
  });

  it('rejects what cannot be used: no name, no actions, path-unsafe version, duplicate action names', () => {
    expect(parseMetadata({ ...metadata, name: undefined }).ok).toBe(false);
    expect(parseMetadata({ ...metadata, actions: undefined }).ok).toBe(false);
    expect(parseMetadata({ ...metadata, version: '../1.0.0' }).ok).toBe(false);
    expect(parseMetadata({ ...metadata, actions: [...metadata.actions, ...metadata.actions] })).toEqual({
      ok: false,
      message: 'actions: duplicate action name "get_current"',
    });
    expect(parseMetadata({ ...metadata, actions: [{ name: 'a', requestSchema: [1] }] }).ok).toBe(false);
  });

  it('property: never throws on arbitrary JSON, and a success always has the emitted field types', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ name: fc.string(), version: fc.string(), actions: fc.array(fc.jsonValue()) })), (raw) => {
        const r = parseMetadata(raw);
        if (r.ok) {
          expect(typeof r.value.name).toBe('string');
          expect(Array.isArray(r.value.actions)).toBe(true);
          for (const a of r.value.actions) expect(typeof a.requestSchema).toBe('object');
        } else expect(r.message.length).toBeGreaterThan(0);
      }),
    );
  });

  it('drops a top-level "__proto__" key of a schema or config instead of setting a prototype', () => {
    const r = parseMetadata(JSON.parse('{"name":"x","version":"1.0.0","actions":[],"defaultConfig":{"__proto__":{"polluted":1},"a":1}}'));
    expect(r.ok && r.value.defaultConfig).toEqual({ a: 1 });
    expect(r.ok && (r.value.defaultConfig as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('property: any valid metadata survives a JSON round trip unchanged', () => {
    // Keys other than "__proto__", which zod drops (see the test above).
    const dict = () => fc.dictionary(fc.string().filter((k) => k !== '__proto__'), fc.jsonValue({ maxDepth: 3 }));
    const action = fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), description: fc.string(), requestSchema: dict(), responseSchema: dict() });
    const meta = fc.record({
      name: fc.string({ minLength: 1, maxLength: 20 }),
      description: fc.string(),
      version: fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)).map((t) => t.join('.')),
      actions: fc.uniqueArray(action, { selector: (a) => a.name, maxLength: 4 }),
      configSchema: dict(),
      defaultConfig: dict(),
    });
    fc.assert(
      fc.property(meta, (m) => {
        const r = parseMetadata(JSON.parse(JSON.stringify(m)));
        expect(r.ok).toBe(true);
        if (r.ok) expect(canonicalJson(r.value)).toBe(canonicalJson(JSON.parse(JSON.stringify(m))));
      }),
    );
  });
});

describe('parseExecutionRequest (POST {webtoolUrl}/)', () => {
  it('accepts the draft example', () => {
    const body = { sessionId: 's-1', version: '1.0.0', action: 'get_current', config: { units: 'metric' }, request: { location: 'Paris' } };
    expect(parseExecutionRequest(body)).toEqual({ ok: true, value: body });
  });

  it('accepts loosely: null optionals are absent, numeric sessionId is a string, absent request is {}', () => {
    expect(parseExecutionRequest({ action: 'a', sessionId: 42, version: null, config: null })).toEqual({
      ok: true,
      value: { action: 'a', sessionId: '42', request: {} },
    });
  });

  it('answers malformed requests with a readable message', () => {
    expect(parseExecutionRequest([])).toEqual({ ok: false, message: 'the body must be a JSON object with an "action" and a "request"' });
    expect(parseExecutionRequest({ request: {} })).toEqual({ ok: false, message: 'action: action must be a string' });
    expect(parseExecutionRequest({ action: 'a', config: [1] })).toEqual({ ok: false, message: 'config: config must be an object' });
    expect(parseExecutionRequest({ action: '' }).ok).toBe(false);
    expect(parseExecutionRequest({ action: 'a', sessionId: '' }).ok).toBe(false);
  });

  it('property: never throws, and every success validates against the strict schema', () => {
    const body = fc.record(
      { sessionId: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), version: fc.oneof(fc.string(), fc.constant(null)), action: fc.oneof(fc.string(), fc.jsonValue()), config: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()), request: fc.jsonValue() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(body, fc.jsonValue()), (raw) => {
        const r = parseExecutionRequest(raw);
        if (r.ok) {
          expect(ExecutionRequestSchema.safeParse(r.value).success).toBe(true);
          expect(r.value.request).not.toBeUndefined();
        } else expect(r.message).toMatch(/\S/);
      }),
    );
  });
});

describe('response envelopes', () => {
  it('builds strict envelopes', () => {
    expect(OkEnvelopeSchema.parse(okEnvelope({ a: 1 }))).toEqual({ status: 'ok', data: { a: 1 } });
    expect(okEnvelope(undefined)).toEqual({ status: 'ok', data: null });
    expect(ErrorEnvelopeSchema.parse(errorEnvelope('SCHEMA_ERROR', 'bad'))).toEqual({ status: 'error', error: { code: 'SCHEMA_ERROR', message: 'bad' } });
  });

  it('parses upstream envelopes loosely and refuses non-envelopes', () => {
    expect(parseEnvelope({ status: 'OK', data: [1] })).toEqual({ status: 'ok', data: [1] });
    expect(parseEnvelope({ status: 'ok' })).toEqual({ status: 'ok', data: null });
    expect(parseEnvelope({ status: 'error', error: { code: 'X' } })).toEqual({ status: 'error', error: { code: 'X', message: '' } });
    expect(parseEnvelope({ status: 'error' })).toBeNull();
    expect(parseEnvelope({ data: 1 })).toBeNull();
    expect(parseEnvelope('ok')).toBeNull();
  });

  it('property: parseEnvelope never throws and returns a strict envelope or null', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ status: fc.constantFrom('ok', 'error', 'Ok'), data: fc.jsonValue(), error: fc.jsonValue() })), (raw) => {
        const e = parseEnvelope(raw);
        if (e) expect(OkEnvelopeSchema.safeParse(e).success || ErrorEnvelopeSchema.safeParse(e).success).toBe(true);
      }),
    );
  });
});

describe('metadata hash (version lock-in)', () => {
  it('ignores key order and notices any change', () => {
    expect(metadataHash({ a: 1, b: { c: 2, d: 3 } })).toBe(metadataHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(metadataHash(metadata)).not.toBe(metadataHash({ ...metadata, description: 'Provides weather information!' }));
  });
});

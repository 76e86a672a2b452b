import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { looksLikeJwt, MAX_CREDENTIAL_CHARS, parseBearer } from './credentials.ts';

const tokenChars = fc.constantFrom(...'ABCXYZabcxyz0189-._~+/'.split(''));
const token = fc.tuple(fc.array(tokenChars, { minLength: 1, maxLength: 80 }), fc.nat({ max: 2 })).map(([cs, pad]) => cs.join('') + '='.repeat(pad));

describe('parseBearer (RFC 6750 2.1)', () => {
  it('reads the token of any well-formed Bearer header, whatever the scheme case and surrounding spaces', () => {
    fc.assert(
      fc.property(token, fc.constantFrom('Bearer', 'bearer', 'BEARER'), fc.string({ unit: fc.constant(' '), maxLength: 3 }), (t, scheme, pad) => {
        expect(parseBearer(`${pad}${scheme} ${t}${pad}`)).toEqual({ ok: true, token: t });
      }),
    );
  });

  it('never throws and never accepts a token with characters outside b64token', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        const parsed = parseBearer(header);
        if (parsed.ok) expect(parsed.token).toMatch(/^[A-Za-z0-9\-._~+/]+=*$/);
        else expect(parsed.reason.length).toBeGreaterThan(0);
      }),
    );
  });

  it('refuses other schemes, a missing token, and a header past the length cap', () => {
    expect(parseBearer('x').ok).toBe(false); // the finding: "Authorization: x" was accepted
    expect(parseBearer('Basic dXNlcjpwYXNz').ok).toBe(false);
    expect(parseBearer('Bearer ').ok).toBe(false);
    expect(parseBearer('Bearer a b').ok).toBe(false);
    expect(parseBearer(`Bearer ${'a'.repeat(MAX_CREDENTIAL_CHARS)}`).ok).toBe(false);
  });

  it('tells a JWS compact token from an opaque key', () => {
    expect(looksLikeJwt('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(true);
    expect(looksLikeJwt('alice-key-0123456789')).toBe(false);
  });
});

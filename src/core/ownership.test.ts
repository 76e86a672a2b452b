import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handleProblem, isOwner, mayAwait, MAX_CLIENT_HANDLE_CHARS, MIN_CLIENT_HANDLE_CHARS, ownerTag, scopedHandle } from './ownership.ts';
import { anonymousPrincipal } from './principal.ts';

const alice = { id: 'key:alice', name: 'alice', verified: true };
const bob = anonymousPrincipal('127.0.0.2');

describe('owner tags', () => {
  it('are stable per principal id, differ between principals, and never contain the id itself', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (a, b) => {
        expect(ownerTag({ id: a })).toBe(ownerTag({ id: a }));
        // Verified principals' tags carry the store's mark (issue 24): anonymous ones (`anon:…`) do not.
        expect(ownerTag({ id: a })).toMatch(a.startsWith('anon:') ? /^[A-Za-z0-9_-]{22}$/ : /^p\.[A-Za-z0-9_-]{22}$/);
        if (a !== b) expect(ownerTag({ id: a })).not.toBe(ownerTag({ id: b }));
      }),
    );
  });

  it('a missing tag owns nothing; a call without a principal is anon:unknown', () => {
    expect(isOwner(undefined, alice)).toBe(false);
    expect(isOwner(ownerTag(alice), alice)).toBe(true);
    expect(isOwner(ownerTag(alice), bob)).toBe(false);
    expect(ownerTag(undefined)).toBe(ownerTag(anonymousPrincipal(undefined)));
  });

  it('scoped handles of two principals never meet, even for the same kind and handle', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (kind, handle) => {
        expect(scopedHandle(alice, kind, handle)).not.toBe(scopedHandle(bob, kind, handle));
        expect(scopedHandle(alice, kind, handle)).toBe(scopedHandle(alice, kind, handle));
      }),
    );
  });
});

describe('the client-chosen handle rule', () => {
  it('refuses a handle shorter than the minimum with a message naming the field and the minimum (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: MIN_CLIENT_HANDLE_CHARS - 1 }), (h) => {
        expect(handleProblem(h, 'the id')).toMatch(new RegExp(`^the id must be at least ${MIN_CLIENT_HANDLE_CHARS} characters`));
      }),
    );
  });

  it('accepts exactly the handles of 16-128 URL-safe characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'abcXYZ019_.:-é /'.split('')), maxLength: 140 }), (h) => {
        const ok = h.length >= MIN_CLIENT_HANDLE_CHARS && h.length <= MAX_CLIENT_HANDLE_CHARS && /^[A-Za-z0-9_.:-]+$/.test(h);
        expect(handleProblem(h, 'id') === undefined).toBe(ok);
      }),
    );
  });

  it('accepts a UUID and the gateway\'s own minted ids', () => {
    expect(handleProblem('9b2f3c1e-5a7d-4f6b-8c2e-1d3f5a7b9c0e', 'id')).toBeUndefined();
    expect(handleProblem('conv_AbCdEfGhIjKlMnOpQrStUv', 'id')).toBeUndefined();
  });
});

describe('mayAwait', () => {
  it('lets anyone who owns the promise await an open agent; a requireAuth agent wants credentials or a verified principal', () => {
    expect(mayAwait(false, { principal: bob })).toBe(true);
    expect(mayAwait(true, { principal: bob })).toBe(false);
    expect(mayAwait(true, { principal: bob, credentials: { authorization: 'Bearer x' } })).toBe(true);
    expect(mayAwait(true, { principal: alice })).toBe(true);
  });
});

import { createHash } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthConfigSchema } from '../config/auth-schema.ts';
import { createVerifier } from './identity.ts';

const KEY = 'carol-key-0123456789abcdef';

describe('createVerifier', () => {
  it('without an auth section nothing is verified (every caller is anonymous)', async () => {
    const v = createVerifier(undefined);
    expect(v.enabled).toBe(false);
    expect((await v.verify(`Bearer ${KEY}`)).ok).toBe(false);
  });

  it('an API key given as its SHA-256 is a verified principal with its agents and rate limit', async () => {
    const auth = AuthConfigSchema.parse({
      apiKeys: [{ principal: 'carol', keySha256: createHash('sha256').update(KEY).digest('hex'), agents: ['a'], rateLimit: { requests: 2, windowMs: 1000 } }],
    });
    const v = createVerifier(auth);
    expect(await v.verify(`Bearer ${KEY}`)).toEqual({
      ok: true,
      principal: { id: 'key:carol', name: 'carol', verified: true, agents: ['a'], rateLimit: { requests: 2, windowMs: 1000 } },
    });
    expect((await v.verify(`Bearer ${KEY}x`)).ok).toBe(false);
    expect((await v.verify(KEY)).ok).toBe(false);
  });

  it('a JWT is verified against static keys, issuer and audience; the principal is jwt:<iss>#<sub>', async () => {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA');
    const auth = AuthConfigSchema.parse({ jwt: [{ issuer: 'https://idp.test', audience: 'nlgate', keys: [{ ...(await exportJWK(publicKey)), alg: 'EdDSA' }] }] });
    const v = createVerifier(auth);
    const sign = (aud: string) => new SignJWT({}).setProtectedHeader({ alg: 'EdDSA' }).setIssuer('https://idp.test').setAudience(aud).setSubject('dave').setExpirationTime('1m').sign(privateKey);
    const good = await v.verify(`Bearer ${await sign('nlgate')}`);
    expect(good).toMatchObject({ ok: true, principal: { id: 'jwt:https://idp.test#dave', name: 'dave', verified: true } });
    expect(await v.verify(`Bearer ${await sign('other')}`)).toEqual({ ok: false, reason: 'The token\'s "aud" claim is not accepted' });
  });

  it('the config refuses short keys and a key given both ways', () => {
    expect(AuthConfigSchema.safeParse({ apiKeys: [{ principal: 'x', key: 'short' }] }).success).toBe(false);
    expect(AuthConfigSchema.safeParse({ apiKeys: [{ principal: 'x', key: KEY, keySha256: 'a'.repeat(64) }] }).success).toBe(false);
    expect(AuthConfigSchema.safeParse({ jwt: [{ issuer: 'i', audience: 'a' }] }).success).toBe(false);
  });
});

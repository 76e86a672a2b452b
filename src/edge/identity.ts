import { createHash, timingSafeEqual } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig, JwtIssuerConfig } from '../config/auth-schema.ts';
import type { Principal } from '../core/principal.ts';
import { looksLikeJwt, parseBearer } from './credentials.ts';

/** What verifying one presented credential decided. */
export type Verdict = { ok: true; principal: Principal } | { ok: false; reason: string };

/** The one verifier of inbound credentials: the edge middleware, NLIP token submessages, MCP bearer tokens. */
export interface CredentialVerifier {
  /** False without an `auth` section: every caller is anonymous and credentials are not checked. */
  readonly enabled: boolean;
  /** Verifies an `Authorization` value (`Bearer <token>`). */
  verify(authorization: string): Promise<Verdict>;
}

interface KeyEntry {
  digest: Buffer;
  principal: Principal;
}

interface IssuerEntry {
  config: JwtIssuerConfig;
  keys: JWTVerifyGetKey;
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Builds the API-key table once: only SHA-256 digests are kept, never a key. */
function keyTable(auth: AuthConfig): KeyEntry[] {
  return auth.apiKeys.map((k) => ({
    digest: k.keySha256 !== undefined ? Buffer.from(k.keySha256, 'hex') : sha256(k.key!),
    principal: {
      id: `key:${k.principal}`,
      name: k.principal,
      verified: true,
      ...(k.agents ? { agents: Object.freeze([...k.agents]) } : {}),
      ...(k.rateLimit ? { rateLimit: k.rateLimit } : {}),
      ...(k.maxCalls ? { maxCalls: k.maxCalls } : {}),
    },
  }));
}

/** Compares the presented key's digest with every configured one, without an early exit (constant time). */
function matchKey(table: readonly KeyEntry[], token: string): Principal | undefined {
  const digest = sha256(token);
  let found: Principal | undefined;
  for (const entry of table) if (timingSafeEqual(entry.digest, digest) && !found) found = entry.principal;
  return found;
}

/** Why jose refused a token, in words safe to send back (RFC 6750 3.1 `error_description`). */
function describeJwtError(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'The token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `The token's "${err.claim}" claim is not accepted`;
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWSSignatureVerificationFailed) return 'The token signature is not valid';
  if (err instanceof errors.JOSEAlgNotAllowed) return "The token's algorithm is not accepted";
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return "The issuer's keys could not be read";
  return 'The token could not be verified';
}

/** Verifies a JWT with the issuer config its (unverified) `iss` names; the principal is `jwt:<iss>#<sub>`. */
async function verifyJwt(issuers: ReadonlyMap<string, IssuerEntry>, token: string): Promise<Verdict> {
  let iss: unknown;
  try {
    iss = decodeJwt(token).iss;
  } catch {
    return { ok: false, reason: 'The token is not a valid JWT' };
  }
  const issuer = typeof iss === 'string' ? issuers.get(iss) : undefined;
  if (!issuer) return { ok: false, reason: 'The token was issued by an issuer this gateway does not trust' };
  const { config } = issuer;
  try {
    const { payload } = await jwtVerify(token, issuer.keys, {
      issuer: config.issuer,
      audience: config.audience,
      clockTolerance: config.clockSkewSec,
      algorithms: config.algorithms,
      requiredClaims: ['sub', 'exp'],
    });
    return {
      ok: true,
      principal: {
        id: `jwt:${config.issuer}#${payload.sub}`,
        name: payload.sub!,
        verified: true,
        ...(config.agents ? { agents: Object.freeze([...config.agents]) } : {}),
        ...(config.rateLimit ? { rateLimit: config.rateLimit } : {}),
        ...(config.maxCalls ? { maxCalls: config.maxCalls } : {}),
      },
    };
  } catch (err) {
    return { ok: false, reason: describeJwtError(err) };
  }
}

/**
 * Issue 11 "Inbound identity": one verifier for API keys (SHA-256, constant-time comparison) and
 * JWT bearer tokens (jose: JWKS URL or static keys, issuer, audience, clock skew). Everything that
 * can be computed once (key digests, key sets) is computed here, not per request.
 */
export function createVerifier(auth: AuthConfig | undefined): CredentialVerifier {
  if (!auth) return { enabled: false, verify: async () => ({ ok: false, reason: 'No credentials are configured' }) };
  const table = keyTable(auth);
  const issuers = new Map<string, IssuerEntry>(
    auth.jwt.map((config) => [
      config.issuer,
      {
        config,
        keys: config.jwksUrl !== undefined
          ? createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 })
          : createLocalJWKSet({ keys: config.keys as never }),
      },
    ]),
  );
  return {
    enabled: true,
    async verify(authorization) {
      const parsed = parseBearer(authorization);
      if (!parsed.ok) return parsed;
      const principal = matchKey(table, parsed.token);
      if (principal) return { ok: true, principal };
      if (issuers.size > 0 && looksLikeJwt(parsed.token)) return verifyJwt(issuers, parsed.token);
      return { ok: false, reason: 'The credential is not valid' };
    },
  };
}

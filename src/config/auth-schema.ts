import { z } from 'zod';

/** `requests` per `windowMs` (windows are counted in whole seconds). */
export const RateLimitSchema = z.object({ requests: z.number().int().positive(), windowMs: z.number().int().positive() }).strict();

/** A principal name as logs and ids show it (`key:<name>`). */
const PrincipalNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_", "@" or "-"');

/**
 * One API key (docs/security.md "Identity"): presented as `Authorization: Bearer <key>`. Written as
 * the key itself (usually `${ENV_VAR}`) or as its SHA-256 in hex; only the hash is kept in memory.
 */
export const ApiKeySchema = z
  .object({
    principal: PrincipalNameSchema,
    key: z.string().min(16, 'must be at least 16 characters (use a random key: openssl rand -base64 32)').optional(),
    keySha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (sha256sum of the key)').optional(),
    /** The agents this key may use; absent = every agent. */
    agents: z.array(z.string()).optional(),
    /** Replaces each agent's own rate limit for this principal. */
    rateLimit: RateLimitSchema.optional(),
    /** Agent calls this principal may keep running at once; replaces `limits.maxCallsPerPrincipal`. */
    maxCalls: z.number().int().positive().optional(),
  })
  .strict()
  .refine((k) => (k.key === undefined) !== (k.keySha256 === undefined), { message: 'give exactly one of key or keySha256' });

/**
 * One trusted JWT issuer: tokens are verified with `jose` against its JWKS URL or static JWKs, with
 * the issuer, audience and clock skew checked. The principal is `jwt:<iss>#<sub>`.
 */
export const JwtIssuerSchema = z
  .object({
    issuer: z.string().min(1),
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** The issuer's JWKS document (fetched and cached by jose). */
    jwksUrl: z.url().optional(),
    /** Static public keys as JWKs (instead of jwksUrl). */
    keys: z.array(z.record(z.string(), z.unknown())).min(1).optional(),
    /** Accepted signature algorithms. */
    algorithms: z.array(z.string()).default(['RS256', 'PS256', 'ES256', 'EdDSA']),
    /** Tolerated clock difference for `exp`/`nbf`/`iat`, in seconds. */
    clockSkewSec: z.number().int().nonnegative().max(600).default(30),
    /** The agents principals of this issuer may use; absent = every agent. */
    agents: z.array(z.string()).optional(),
    rateLimit: RateLimitSchema.optional(),
    /** Agent calls each principal of this issuer may keep running at once; replaces `limits.maxCallsPerPrincipal`. */
    maxCalls: z.number().int().positive().optional(),
  })
  .strict()
  .refine((j) => (j.jwksUrl === undefined) !== (j.keys === undefined), { message: 'give exactly one of jwksUrl or keys' });

/** The `auth` section: who may call (docs/security.md). Absent: every caller is anonymous. */
export const AuthConfigSchema = z
  .object({
    apiKeys: z.array(ApiKeySchema).default([]),
    jwt: z.array(JwtIssuerSchema).default([]),
  })
  .strict();

export type AuthConfig = z.infer<typeof AuthConfigSchema>;
export type ApiKeyConfig = z.infer<typeof ApiKeySchema>;
export type JwtIssuerConfig = z.infer<typeof JwtIssuerSchema>;

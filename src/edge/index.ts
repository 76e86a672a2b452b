/**
 * The edge (issue 11 "Trust at the edge"): what every request passes before a binding sees it —
 * Host/Origin, content type, identity, the gateway-wide rate limit — and the access log after it.
 * Everything that can be computed once (allow-lists, key digests, the route classifier) is.
 */
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Context, MiddlewareHandler } from 'hono';
import type { IncomingMessage } from 'node:http';
import type { Binding } from '../bindings/types.ts';
import type { AuthConfig } from '../config/auth-schema.ts';
import type { Limits, ServerConfig } from '../config/schema.ts';
import { GatewayError, toGatewayError } from '../base/errors.ts';
import { unredactedChild, type Logger } from '../base/logger.ts';
import { anonymousPrincipal, type Principal } from '../core/principal.ts';
import { windowSeconds, wrapLimiter } from '../store/limiter.ts';
import type { Store } from '../store/store.ts';
import { accessLogger } from './access-log.ts';
import { mountOf } from './mount.ts';
import { clientAddressResolver } from './client-address.ts';
import { createHostOriginPolicy } from './host-origin.ts';
import { createVerifier, type CredentialVerifier } from './identity.ts';
import { bearerChallenge, renderRefusal } from './refusal.ts';
import { routeClassifier } from './routes.ts';
import { requestHeader } from '../base/request-headers.ts';

export { createVerifier, type CredentialVerifier, type Verdict } from './identity.ts';
export { bearerChallenge } from './refusal.ts';

export interface EdgeOptions {
  server: ServerConfig;
  limits: Limits;
  auth: AuthConfig | undefined;
  bindings: readonly Binding[];
  store: Store;
  log: Logger;
  /** Renders a refusal on routes no binding claims (health, `/agents`): an NLWeb failure. */
  fallback: (c: Context, err: GatewayError) => Response;
}

export interface Edge {
  /** The one middleware every request passes (mounted first in app.ts, after the request id). */
  middleware: MiddlewareHandler;
  verifier: CredentialVerifier;
  /** ServerSettings.publicBase: links never reflect a Host header that was not checked; a mount path is included. */
  publicBase(c: Context): string;
}

/** Routes that answer probes: never rate limited (a load balancer must always see the replica). */
const PROBES = new Set(['/healthz', '/readyz']);
/** RFC 7231 media type of a JSON body: `application/json` or `application/*+json`, parameters allowed. */
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;

function socketOf(c: Context): IncomingMessage['socket'] | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
}

/** Builds the edge of one gateway replica from its config. */
export function createEdge(opts: EdgeOptions): Edge {
  const { server, limits, log } = opts;
  const verifier = createVerifier(opts.auth);
  const classify = routeClassifier(opts.bindings);
  const addressOf = clientAddressResolver(server.trustedProxies, server.ipv6ClientPrefix);
  const policy = createHostOriginPolicy({
    listenHost: server.host,
    allowedHosts: server.allowedHosts,
    allowedOrigins: server.allowedOrigins,
    corsOrigins: server.corsOrigins,
  });
  // The gateway-wide limit guards this replica's own capacity, so it is counted here, in memory: no
  // store round trip on every request. Agents' and keys' limits (quotas) are shared in the store.
  const gatewayLimiter = wrapLimiter(
    new RateLimiterMemory({ keyPrefix: 'gateway', points: limits.gatewayRateLimit.requests, duration: windowSeconds(limits.gatewayRateLimit.windowMs) }),
  );
  // Failed credentials per client address (issue 24, hole 1): checked before any verification, and
  // past the budget the address is blocked for `blockMs`, whatever credential it tries next.
  const failedAuth = new RateLimiterMemory({
    keyPrefix: 'failed-auth',
    points: limits.failedAuth.attempts,
    duration: windowSeconds(limits.failedAuth.windowMs),
    blockDuration: Math.ceil(limits.failedAuth.blockMs / 1000),
  });
  const tooManyFailures = (retryAfterMs: number) =>
    new GatewayError('RATE_LIMITED', 'Too many failed credentials from this address', { retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
  const publicUrl = server.publicUrl?.replace(/\/+$/, '');
  // Access lines hold no secret by construction (access-log.ts), so they skip redaction.
  const logAccess = accessLogger(unredactedChild(log));

  const middleware: MiddlewareHandler = async (c, next) => {
    const startedAt = performance.now();
    const route = classify(c.req.method, c.req.path);
    const refuse = (err: GatewayError, challenge?: string) => renderRefusal(c, route, err, opts.fallback, challenge);
    const socket = socketOf(c);
    try {
      const untrusted = policy.check({ host: requestHeader(c.req.raw, 'host'), origin: requestHeader(c.req.raw, 'origin'), localPort: socket?.localPort });
      if (untrusted) return (c.res = refuse(new GatewayError('FORBIDDEN', untrusted)));

      if (route.jsonBody && !JSON_TYPE.test(requestHeader(c.req.raw, 'content-type') ?? '')) {
        return (c.res = refuse(new GatewayError('UNSUPPORTED_MEDIA_TYPE', 'The body must be JSON (Content-Type: application/json)')));
      }

      const authorization = requestHeader(c.req.raw, 'authorization');
      let principal: Principal;
      if (verifier.enabled && authorization) {
        // Charged before the verifier runs: an address that has used up its failures is not heard.
        const client = anonymousPrincipal(addressOf(socket?.remoteAddress, requestHeader(c.req.raw, 'x-forwarded-for'))).id;
        const record = await failedAuth.get(client);
        if (record && record.consumedPoints > limits.failedAuth.attempts) return (c.res = refuse(tooManyFailures(record.msBeforeNext)));
        const verdict = await verifier.verify(authorization);
        if (!verdict.ok) {
          // The failure counts against the address twice: its failure budget and the gateway-wide limit.
          const [failed, overall] = await Promise.all([
            failedAuth.consume(client).then(() => undefined, (res: { msBeforeNext?: number }) => res.msBeforeNext ?? 1000),
            gatewayLimiter.consume(client),
          ]);
          if (failed !== undefined) return (c.res = refuse(tooManyFailures(failed)));
          if (!overall.allowed) return (c.res = refuse(new GatewayError('RATE_LIMITED', 'Too many requests to this gateway', { retryAfter: Math.ceil(overall.retryAfterMs / 1000) })));
          return (c.res = refuse(new GatewayError('UNAUTHORIZED', verdict.reason), bearerChallenge('invalid_token', verdict.reason)));
        }
        principal = verdict.principal;
      } else {
        principal = anonymousPrincipal(addressOf(socket?.remoteAddress, requestHeader(c.req.raw, 'x-forwarded-for')));
      }
      c.set('principal', principal);

      if (!PROBES.has(c.req.path)) {
        const decision = await gatewayLimiter.consume(principal.id);
        if (!decision.allowed) {
          return (c.res = refuse(new GatewayError('RATE_LIMITED', 'Too many requests to this gateway', { retryAfter: Math.ceil(decision.retryAfterMs / 1000) })));
        }
      }

      await next();
      // RFC 6750 3: every 401 (an agent that requires authentication, too) names the scheme.
      if (c.res.status === 401 && !c.res.headers.has('WWW-Authenticate')) {
        c.res.headers.set('WWW-Authenticate', authorization ? bearerChallenge('invalid_token') : bearerChallenge());
      }
    } catch (err) {
      const gwErr = toGatewayError(err);
      if (gwErr.code === 'INTERNAL_ERROR') log.error({ requestId: c.get('requestId'), err: String(err), stack: (err as Error)?.stack }, 'edge error');
      c.res = refuse(gwErr);
    } finally {
      logAccess(c, route, startedAt, server.logQueries);
    }
  };

  // The origin links are built on, then the mount path of a gateway used as a library (edge/mount.ts).
  const publicOrigin = (c: Context): string => {
    if (publicUrl) return publicUrl;
    const socket = socketOf(c);
    // The Host passed the allow-list (or this is an in-process request): the origin the client used.
    if (policy.active || !socket?.localAddress) return new URL(c.req.url).origin;
    const address = socket.localAddress.includes(':') ? `[${socket.localAddress}]` : socket.localAddress;
    return `http://${address}:${socket.localPort}`;
  };
  const publicBase = (c: Context): string => publicOrigin(c) + mountOf(c);

  return { middleware, verifier, publicBase };
}

import { isIP } from 'node:net';
import { z } from 'zod';
import { AuthConfigSchema, RateLimitSchema } from './auth-schema.ts';

/** Settings every agent has, whatever its kind; the rest of an agent entry belongs to its adapter. */
export const CommonAgentSchema = z.object({
  /** The agent's name: it appears in URLs (`/agents/{name}`), MCP tool names and webtool paths. */
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/i, 'must be 1-40 letters, digits, "-" or "_" (it appears in URLs and tool names)'),
  kind: z.string().min(1),
  /** What the agent does, in one sentence: published in `/agents`, MCP tool and webtool descriptions. */
  description: z.string().optional(),
  /** This agent's own `defaults.promiseAfterMs`. */
  promiseAfterMs: z.number().int().positive().optional(),
  /** This agent's own `defaults.timeoutMs`. */
  timeoutMs: z.number().int().positive().optional(),
  /** A call lost with its replica may be run again on another one (else it fails as lost). Unset: yes for catalog and NLWeb asks, and for MCP tools (and asks mapped to them) annotated `readOnlyHint` or `idempotentHint`, unless `forwardCredentials` is set; `false` opts out. */
  idempotent: z.boolean().optional(),
  /** Pass the client's `Authorization` on to this agent (never done otherwise). */
  forwardCredentials: z.boolean().optional(),
  /** Refuse calls without client credentials (HTTP 401). */
  requireAuth: z.boolean().optional(),
  /** At most `requests` calls per `windowMs` per principal (client address when anonymous; NLWeb 2.5: 429 + Retry-After). */
  rateLimit: RateLimitSchema.optional(),
});
export const COMMON_AGENT_KEYS = Object.keys(CommonAgentSchema.shape);

/** The `server` section: the listener and transport limits. */
export const ServerConfigSchema = z
  .object({
    /** The TCP port (`PORT` overrides; 0 picks a free one). */
    port: z.coerce.number().int().min(0).max(65535).default(8080),
    /** The interface to listen on (`HOST` overrides); `0.0.0.0` in a container. */
    host: z.string().default('127.0.0.1'),
    /** Largest request body; larger bodies get 413 with the protocol's own error. */
    bodyLimitBytes: z.number().int().positive().default(1_048_576),
    /** Origins (scheme://host[:port], or `scheme://*`) browsers may call from besides the gateway's own; compared with their port. */
    allowedOrigins: z.array(z.string().regex(/^[a-z][a-z0-9+.-]*:\/\/(\*|[^/\s]+)\/?$/i, 'must be an origin such as "http://localhost:6274" (scheme, host and port) or "moz-extension://*"')).default([]),
    /** `Host` values allowed on every route, compared with their port (empty, on loopback: the loopback names with the listen port). */
    allowedHosts: z.array(z.string()).default([]),
    /** Origins browsers may call from (CORS); `["*"]` for any. Empty: no CORS headers. */
    corsOrigins: z.array(z.string()).default([]),
    /** The gateway's public base URL, for links it publishes (uploads, webtool URLs); else taken from the request. */
    publicUrl: z.url().optional(),
    /** Addresses or CIDRs of proxies whose `X-Forwarded-For` is believed (docs/security.md); nobody else's is. */
    trustedProxies: z.array(z.string()).default([]),
    /**
     * An IPv6 client is known by this many leading bits of its address (docs/security.md "Client
     * address"): one client commonly holds a whole /64, and every per-address limit (rate, failed
     * credentials, connections, calls in flight, conversations) counts the prefix. 128: each address.
     */
    ipv6ClientPrefix: z.number().int().min(16).max(128).default(64),
    /** Put query text in the access log (off: queries are often personal). */
    logQueries: z.boolean().default(false),
    /**
     * Serve `/metrics` on this port instead (on `metricsHost`), for a scrape network apart from the
     * clients'; then it is not on the main port. Unset: `/metrics` is on the main port (behind auth
     * when an auth section is configured).
     */
    metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
    metricsHost: z.string().default('127.0.0.1'),
    /** On SIGTERM, how long open streams and running promises get to finish before leases are released and the process exits. */
    shutdownGraceMs: z.number().int().nonnegative().default(20_000),
    /** On SIGTERM, how long `/readyz` says unready while still serving, so load balancers stop sending first. */
    shutdownDelayMs: z.number().int().nonnegative().default(0),
    /**
     * Every this many ms, a replica that answered no more than one request a second since the last
     * look, and grew by 8 MiB since its last release, returns V8's spare heap to the system (at most
     * once in six periods; `nlgate serve` only, not the library). 0: never.
     */
    idleReleaseMs: z.number().int().nonnegative().default(5000),
    /**
     * Gateway processes on this machine (Node `cluster`, sharing the listener and the store):
     * `auto` is one per core. More than one needs the Redis store. `WORKERS` overrides it.
     */
    workers: z.union([z.literal('auto'), z.number().int().positive().max(256)]).default(1),
  })
  .strict();

/** What a store keeps (issue 24, hole 3): the same caps for the memory and the Redis store. */
const storeCaps = {
  /** Conversations held at most, for verified principals and for anonymous callers each; beyond it the least recently used of that class is forgotten (its next turn starts afresh). Anonymous traffic never pushes out a verified principal's. */
  maxConversations: z.number().int().positive().default(50_000),
  /** Small records held at most (conversation aliases, MCP sessions and tasks, A2A tasks, NLIP tokens, webtool sessions), for verified principals and for anonymous callers each; least recently used go first. */
  maxRecords: z.number().int().positive().default(50_000),
  /** Conversations one principal (or anonymous address) holds at most; past it its own least recently used goes, nobody else's. */
  maxConversationsPerOwner: z.number().int().positive().default(1_000),
  /** Records one principal (or anonymous address) holds of one kind at most (its A2A tasks, MCP sessions, MCP tasks, conversation aliases of one protocol); past it its own oldest goes, nobody else's. */
  maxRecordsPerOwner: z.number().int().positive().default(1_000),
};

/** The `store` section: memory (embedded default) or Redis (replicas). */
export const StoreConfigSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('memory'),
      ...storeCaps,
    })
    .strict(),
  z
    .object({
      kind: z.literal('redis'),
      /** `redis://`, `rediss://` (TLS), `redis-sentinel://` or `redis-cluster://`, usually `${REDIS_URL}`. */
      url: z.string().regex(/^(redis|rediss|redis-sentinel|redis-cluster):\/\//, 'must be a redis://, rediss://, redis-sentinel:// or redis-cluster:// URL'),
      /** Prefix of every key, so several gateways can share one Redis. */
      prefix: z.string().default('nlgate:'),
      ...storeCaps,
    })
    .strict(),
]);

/**
 * The `limits` section: every resource a caller can make the gateway spend has a bound here, each
 * with a safe default. Over a limit a caller gets its protocol's own clear error (413/429/400),
 * nothing is stored, and nothing is lost for other callers.
 */
export const LimitsSchema = z
  .object({
    // --- the edge (connections, timeouts, gateway-wide rate) ---
    /** Open client connections per replica; further connections are refused until one closes. */
    maxConnections: z.number().int().positive().default(10_000),
    /**
     * Open connections per client address (issue 24): one address cannot take the others' share of
     * `maxConnections`. Connections from `server.trustedProxies` are not counted here (a proxy
     * carries many clients; their limits apply per request, by X-Forwarded-For).
     */
    maxConnectionsPerAddress: z.number().int().positive().default(256),
    /** A connection that has sent no byte this long after opening is closed (idle sockets held to starve others). */
    firstByteTimeoutMs: z.number().int().positive().default(5_000),
    /** A client must send all request headers within this long. */
    headersTimeoutMs: z.number().int().positive().default(15_000),
    /** A client must send the whole request (headers and body) within this long. */
    requestTimeoutMs: z.number().int().positive().default(30_000),
    /** Requests per principal (or client address) per window across every route, on top of agents' own limits. */
    gatewayRateLimit: z
      .object({ requests: z.number().int().positive(), windowMs: z.number().int().positive() })
      .strict()
      .default({ requests: 600, windowMs: 60_000 }),
    /**
     * Failed credentials per client address per window (issue 24): past it the address is refused
     * (429) for `blockMs` before any credential it sends is verified, so online key guessing and the
     * verifier's work are bounded per address. Every failed attempt is charged to `gatewayRateLimit` too.
     */
    failedAuth: z
      .object({ attempts: z.number().int().positive(), windowMs: z.number().int().positive(), blockMs: z.number().int().nonnegative() })
      .strict()
      .default({ attempts: 10, windowMs: 60_000, blockMs: 300_000 }),
    /**
     * Agent calls one principal (API key, JWT subject, or client address) keeps running at once on a
     * replica, counted from admission to the call's end, also after it became a promise, a stream
     * or a task. Past it the call is refused with 429 and Retry-After, so a few callers cannot hold
     * a slow agent's whole upstream pool. A key's or issuer's own `maxCalls` replaces it.
     */
    maxCallsPerPrincipal: z.number().int().positive().default(64),
    /**
     * Agent calls running at once on a replica, for anonymous callers and for verified principals
     * each (a flood of anonymous calls never leaves a verified principal without one): what many
     * callers together can hold. Past it, 429 and Retry-After, as for `maxCallsPerPrincipal`.
     */
    maxCallsInFlight: z.number().int().positive().default(10_000),
    // --- what a caller can make the gateway keep ---
    /** Longest query text accepted (characters). */
    maxQueryChars: z.number().int().positive().default(4_096),
    /** Longest previous query kept in a conversation (characters); longer ones are cut. */
    maxPrevItemChars: z.number().int().positive().default(1_024),
    /** Total characters of previous queries kept per conversation; the oldest go first. */
    maxPrevTotalChars: z.number().int().positive().default(8_192),
    /** Largest stored MCP session record (client info and capabilities), in bytes. */
    maxSessionRecordBytes: z.number().int().positive().default(16_384),
    /** Upload bytes one principal may hold at once (NLIP 6.4 uploads). */
    uploadBytesPerPrincipal: z.number().int().positive().default(16 * 1_048_576),
    /** Upload bytes held by all callers together. */
    uploadBytesTotal: z.number().int().positive().default(256 * 1_048_576),
    // --- what an upstream can make the gateway read ---
    /** Largest upstream reply read as a whole (JSON), in bytes. */
    maxUpstreamBodyBytes: z.number().int().positive().default(8 * 1_048_576),
    /** Largest single upstream SSE event or stream frame, in bytes. */
    maxUpstreamEventBytes: z.number().int().positive().default(1_048_576),
    /** Sockets open to one upstream origin at once (an open SSE answer holds one); further calls queue. */
    maxUpstreamConnections: z.number().int().positive().default(4_096),
  })
  .strict();

/** The `defaults` section: limits and lifetimes that agents may override. */
export const DefaultsSchema = z
  .object({
    /** Answer /ask with a promise when the agent is slower than this (NLWeb 4.1.2). */
    promiseAfterMs: z.number().int().positive().default(5_000),
    /** Abort an upstream call after this long. */
    timeoutMs: z.number().int().positive().default(120_000),
    /** How long a promise record lives (running or settled and unread). */
    promiseTtlMs: z.number().int().positive().default(3_600_000),
    /** How long a settled promise stays readable after its answer was first read. */
    promiseReadGraceMs: z.number().int().positive().default(60_000),
    /** Lease of the replica running a promise; renewed at a third of it. */
    leaseMs: z.number().int().positive().default(15_000),
    /** A conversation is forgotten after this long without use. */
    conversationIdleTtlMs: z.number().int().positive().default(86_400_000),
    /** Previous queries kept per conversation. */
    maxPrev: z.number().int().positive().max(100).default(10),
    /** Longest `/await` long-poll (`wait_ms`). */
    awaitMaxWaitMs: z.number().int().nonnegative().default(30_000),
  })
  .strict();

/** The `console` section: the web console at /console (issue 14). */
export const ConsoleConfigSchema = z
  .object({
    /** Serve the console; default: only when `server.host` is a loopback address. */
    enabled: z.boolean().optional(),
  })
  .strict();

/** A whole gateway config file (config/gateway.yaml). Agent entries are checked by their adapter too. */
export const GatewayConfigSchema = z
  .object({
    server: ServerConfigSchema.default(ServerConfigSchema.parse({})),
    store: StoreConfigSchema.default(StoreConfigSchema.parse({ kind: 'memory' })),
    defaults: DefaultsSchema.default(DefaultsSchema.parse({})),
    limits: LimitsSchema.default(LimitsSchema.parse({})),
    auth: AuthConfigSchema.optional(),
    console: ConsoleConfigSchema.default({}),
    defaultAgent: z.string().optional(),
    agents: z.array(CommonAgentSchema.loose()).min(1, 'at least one agent is needed'),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const seen = new Set<string>();
    cfg.agents.forEach((a, i) => {
      if (seen.has(a.name)) ctx.addIssue({ code: 'custom', path: ['agents', i, 'name'], message: `duplicate agent name "${a.name}"` });
      seen.add(a.name);
    });
    cfg.agents.forEach((a, i) => {
      if (a.requireAuth && !cfg.auth) ctx.addIssue({ code: 'custom', path: ['agents', i, 'requireAuth'], message: 'needs an auth section (API keys or JWT issuers) to verify callers' });
    });
    cfg.server.trustedProxies.forEach((p, i) => {
      if (!isAddressOrCidr(p)) ctx.addIssue({ code: 'custom', path: ['server', 'trustedProxies', i], message: `"${p}" is not an IP address or CIDR` });
    });
    if (cfg.server.workers !== 1 && cfg.store.kind === 'memory') {
      const message = `workers: ${cfg.server.workers} needs the Redis store (the memory store keeps state inside one process): set workers: 1, or store: { kind: redis, url: ... }`;
      ctx.addIssue({ code: 'custom', path: ['server', 'workers'], message });
    }
    if (cfg.defaultAgent !== undefined && !seen.has(cfg.defaultAgent)) {
      ctx.addIssue({ code: 'custom', path: ['defaultAgent'], message: `no agent is named "${cfg.defaultAgent}"` });
    }
  });

/** True for `10.0.0.1`, `::1`, `10.0.0.0/8`, `fd00::/8`. */
function isAddressOrCidr(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;
/** A config as written (YAML, or an object given to `createNlgate`): defaults not yet filled in. */
export type GatewayConfigInput = z.input<typeof GatewayConfigSchema>;
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type StoreConfig = z.infer<typeof StoreConfigSchema>;
export type Defaults = z.infer<typeof DefaultsSchema>;
export type Limits = z.infer<typeof LimitsSchema>;
/** One agent entry after validation: common fields plus the adapter's own. */
export type AgentConfig = GatewayConfig['agents'][number];

import { z } from 'zod';

/** Settings every agent has, whatever its kind; the rest of an agent entry belongs to its adapter. */
export const CommonAgentSchema = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/i, 'must be 1-40 letters, digits, "-" or "_" (it appears in URLs and tool names)'),
  kind: z.string().min(1),
  description: z.string().optional(),
  promiseAfterMs: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
  idempotent: z.boolean().optional(),
  forwardCredentials: z.boolean().optional(),
  requireAuth: z.boolean().optional(),
  /** At most `requests` calls per `windowMs` per client credential (NLWeb 2.5: 429 + Retry-After). */
  rateLimit: z.object({ requests: z.number().int().positive(), windowMs: z.number().int().positive() }).strict().optional(),
});
export const COMMON_AGENT_KEYS = Object.keys(CommonAgentSchema.shape);

/** The `server` section: the listener and transport limits. */
export const ServerConfigSchema = z
  .object({
    port: z.coerce.number().int().min(0).max(65535).default(8080),
    host: z.string().default('127.0.0.1'),
    bodyLimitBytes: z.number().int().positive().default(1_048_576),
    allowedOrigins: z.array(z.string()).default([]),
    allowedHosts: z.array(z.string()).default([]),
    /** Origins browsers may call from (CORS); `["*"]` for any. Empty: no CORS headers. */
    corsOrigins: z.array(z.string()).default([]),
    publicUrl: z.url().optional(),
  })
  .strict();

/** The `store` section: memory (embedded default) or Redis (replicas). */
export const StoreConfigSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('memory') }).strict(),
  z
    .object({
      kind: z.literal('redis'),
      url: z.string().regex(/^(redis|rediss|redis-sentinel|redis-cluster):\/\//, 'must be a redis://, rediss://, redis-sentinel:// or redis-cluster:// URL'),
      prefix: z.string().default('nlgate:'),
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
    /** A client must send all request headers within this long. */
    headersTimeoutMs: z.number().int().positive().default(15_000),
    /** A client must send the whole request (headers and body) within this long. */
    requestTimeoutMs: z.number().int().positive().default(30_000),
    /** Requests per principal (or client address) per window across every route, on top of agents' own limits. */
    gatewayRateLimit: z
      .object({ requests: z.number().int().positive(), windowMs: z.number().int().positive() })
      .strict()
      .default({ requests: 600, windowMs: 60_000 }),
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
    store: StoreConfigSchema.default({ kind: 'memory' }),
    defaults: DefaultsSchema.default(DefaultsSchema.parse({})),
    limits: LimitsSchema.default(LimitsSchema.parse({})),
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
    if (cfg.defaultAgent !== undefined && !seen.has(cfg.defaultAgent)) {
      ctx.addIssue({ code: 'custom', path: ['defaultAgent'], message: `no agent is named "${cfg.defaultAgent}"` });
    }
  });

export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type StoreConfig = z.infer<typeof StoreConfigSchema>;
export type Defaults = z.infer<typeof DefaultsSchema>;
export type Limits = z.infer<typeof LimitsSchema>;
/** One agent entry after validation: common fields plus the adapter's own. */
export type AgentConfig = GatewayConfig['agents'][number];

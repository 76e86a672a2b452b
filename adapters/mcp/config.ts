import { z } from 'zod';

/** How the gateway reaches the upstream MCP server. */
export const MCP_TRANSPORTS = ['streamable-http', 'sse', 'stdio'] as const;
export type McpTransportKind = (typeof MCP_TRANSPORTS)[number];

/**
 * Which protocol revision to speak upstream: `auto` probes with `server/discover` and falls back to
 * the 2025 `initialize` handshake; `legacy` goes straight to `initialize`; a revision date pins it.
 */
export const McpProtocolSchema = z.union([
  z.enum(['auto', 'legacy']),
  z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'protocol must be "auto", "legacy" or a revision date such as "2026-07-28"'),
]);

/**
 * How the canonical `ask` maps to one upstream tool: which tool, and a template from the NLWeb
 * request to its arguments. A string that is exactly `{{path}}` takes the value at `path` (any type,
 * omitted when absent); other strings interpolate `{{path}}` as text. Paths start at `query`,
 * `context`, `prefer`, `meta` or `request` (the whole ask request), e.g. `{{query.text}}`.
 */
export const McpAskMappingSchema = z.strictObject({
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
export type McpAskMapping = z.infer<typeof McpAskMappingSchema>;

/**
 * Kind `mcp`: an upstream MCP server over Streamable HTTP (2026-07-28 or 2025), legacy HTTP+SSE, or
 * stdio (a command the gateway spawns and restarts). Strict: an unknown field is a config error.
 */
export const McpAdapterConfigSchema = z
  .strictObject({
    /** Inferred when absent: `stdio` with `command`, else `streamable-http`. */
    transport: z.enum(MCP_TRANSPORTS).optional(),
    /** The server's MCP endpoint (Streamable HTTP) or SSE endpoint (legacy SSE). */
    url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }).optional(),
    /** Headers sent on every upstream HTTP request: the gateway's own credentials to the upstream. */
    headers: z.record(z.string(), z.string()).optional(),
    protocol: McpProtocolSchema.default('auto'),
    /** stdio: the executable to spawn, its arguments, environment and working directory. */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    /** The tool the canonical `ask` calls; default: a tool named `ask`, else the only tool. */
    ask: McpAskMappingSchema.optional(),
    /** Pass MCP resources, prompts, completions and log levels through to MCP clients. */
    forward: z.boolean().default(true),
    /**
     * Upstream sessions per client session (HTTP and SSE upstreams): a 2025 MCP client session gets
     * an upstream session of its own, so its log level, subscriptions and elicitations stay its own.
     * Bounded: at most `perPrincipal` per caller and `max` in all (the least recently used is closed),
     * each closed after `idleMs` without use or when the client session ends.
     */
    upstreamSessions: z
      .strictObject({
        perClient: z.boolean().default(true),
        perPrincipal: z.number().int().positive().default(4),
        max: z.number().int().positive().default(256),
        idleMs: z.number().int().positive().default(600_000),
      })
      .default({ perClient: true, perPrincipal: 4, max: 256, idleMs: 600_000 }),
    /**
     * Tools the gateway may run as tasks for 2026-07-28 clients of the tasks extension (SEP-2663):
     * `optional` (a task when the client declared the extension, else a plain call) or `required`
     * (clients without the extension get -32021). A 2026-07-28 upstream does not list task support
     * (task creation is server-directed), so the operator names its long-running tools here; a 2025
     * upstream's own `execution.taskSupport` counts without this.
     */
    taskTools: z.record(z.string(), z.enum(['optional', 'required'])).optional(),
    /** Reconnects (stdio: respawns) after the upstream went away, at most this often in a row. */
    restart: z
      .strictObject({
        maxAttempts: z.number().int().nonnegative().default(5),
        backoffMs: z.number().int().positive().default(500),
      })
      .default({ maxAttempts: 5, backoffMs: 500 }),
  })
  .superRefine((cfg, ctx) => {
    const transport = cfg.transport ?? (cfg.command !== undefined ? 'stdio' : 'streamable-http');
    if (transport === 'stdio' && cfg.command === undefined) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'a stdio MCP agent needs `command`' });
    }
    if (transport !== 'stdio' && cfg.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: `a ${transport} MCP agent needs \`url\`` });
    }
    if (cfg.url !== undefined && cfg.command !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'give either `url` or `command`, not both' });
    }
    if (transport === 'sse' && cfg.protocol !== 'auto' && cfg.protocol !== 'legacy') {
      ctx.addIssue({ code: 'custom', path: ['protocol'], message: 'legacy SSE servers speak the 2025 revisions only' });
    }
  });

/** The validated kind-specific config of an `mcp` agent. */
export type McpAdapterConfig = z.infer<typeof McpAdapterConfigSchema>;

/** The transport an agent config selects (explicit, or inferred from `command`/`url`). */
export function transportOf(cfg: Pick<McpAdapterConfig, 'transport' | 'command'>): McpTransportKind {
  return cfg.transport ?? (cfg.command !== undefined ? 'stdio' : 'streamable-http');
}

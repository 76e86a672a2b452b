import { randomUUID } from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import type { ClientChannel } from '../../core/agent.ts';
import type { CallOptions } from '../../core/gateway-types.ts';
import type { Principal } from '../../core/principal.ts';
import type { McpSession } from './sessions.ts';

/** What the binding knows about one MCP request besides the JSON-RPC message. */
export interface McpCall {
  /** The agent named by the path (`/agents/{name}/mcp`); undefined at `/mcp`. */
  agent: string | undefined;
  credentials: { authorization?: string };
  /** The caller (bindings' callerOf): owns the sessions, tasks, promises and conversations it makes. */
  principal: Principal;
  requestId?: string;
  /** `modern`: 2026-07-28 (per-request envelope); `legacy`: 2025-era, with a session. */
  era: 'legacy' | 'modern';
  session?: McpSession;
}

/** The CallOptions of a core call made for this MCP request: path agent, caller, credentials, abort signal. */
export function callOptions(call: McpCall, signal?: AbortSignal): CallOptions {
  return {
    ...(call.agent !== undefined ? { agent: call.agent } : {}),
    credentials: call.credentials,
    principal: call.principal,
    ...(call.requestId !== undefined ? { requestId: call.requestId } : {}),
    ...(signal ? { signal } : {}),
  };
}

/** The first revision with MCP tasks; 2026-07-28 moved them to an extension the SDK does not ship. */
const TASKS_SINCE = '2025-11-25';

/** Whether this request may use MCP tasks: a 2025 session of revision 2025-11-25 (MCP "Tasks", experimental). */
export function tasksEnabled(call: McpCall): boolean {
  return call.era === 'legacy' && call.session !== undefined && call.session.protocolVersion >= TASKS_SINCE;
}

/** MCP log levels, least severe first (RFC 5424 order, MCP "Logging"). */
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Whether a log at `level` passes a threshold (MCP "Logging": the client gets `threshold` and more severe). */
export function atOrAbove(level: string, threshold: string): boolean {
  const at = LOG_LEVELS.indexOf(level);
  return at === -1 || at >= LOG_LEVELS.indexOf(threshold);
}

/** How long the gateway waits for a person to answer an elicitation it relays. */
const HUMAN_TIMEOUT_MS = 10 * 60_000;

/** The client's declared capabilities: from `initialize` (2025, kept in the session) or the request envelope (2026). */
export function clientCapabilities(call: McpCall, ctx: ServerContext): ClientCapabilities {
  if (call.era === 'legacy') return call.session?.capabilities ?? {};
  const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as ClientCapabilities | undefined;
  return caps ?? {};
}

/** The lowest level the client wants logs at; undefined = send none (2026 without a level) or all (2025). */
function logThreshold(call: McpCall, ctx: ServerContext): string | undefined {
  if (call.era === 'legacy') return call.session?.logLevel ?? 'debug';
  const level = ctx.mcpReq.envelope?.[LOG_LEVEL_META_KEY as never];
  return typeof level === 'string' ? level : undefined;
}

/**
 * The elicitation modes a client declared (MCP 2025-11-25 "Elicitation › Capabilities"): `form`
 * and/or `url`; an empty `elicitation: {}` means form only (backwards compatibility).
 */
export function elicitationModes(caps: ClientCapabilities): Set<string> {
  const e = caps.elicitation as Record<string, unknown> | undefined;
  if (e === undefined || e === null || typeof e !== 'object') return new Set();
  const modes = new Set(['form', 'url'].filter((m) => Object.hasOwn(e, m)));
  return modes.size > 0 ? modes : new Set(['form']);
}

function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

/**
 * The ClientChannel of one request (core `ClientChannel`): progress when the client sent a
 * progress token, logs at or above its level, and — on 2025 sessions, where the server may send
 * requests on the POST stream — elicitation and sampling when the client declared them. The
 * 2026-07-28 revision has no server→client requests mid-call, so those members stay absent there.
 */
export function clientChannel(call: McpCall, ctx: ServerContext, progressToken: string | number | undefined): ClientChannel & { drain(): Promise<void> } {
  const caps = clientCapabilities(call, ctx);
  const threshold = logThreshold(call, ctx);
  // Notifications go out one after another, and the result only after the last of them (drain).
  let queue: Promise<unknown> = Promise.resolve();
  const notify = (n: { method: string; params: Record<string, unknown> }) => {
    queue = queue.then(() => ctx.mcpReq.notify(n as never)).catch(() => undefined);
  };
  const channel: ClientChannel & { drain(): Promise<void> } = { drain: () => queue.then(() => undefined) };
  if (progressToken !== undefined) {
    let last = -Infinity;
    channel.progress = ({ progress, total, message }) => {
      if (!(progress > last)) return; // MCP: progress MUST increase
      last = progress;
      notify({ method: 'notifications/progress', params: { progressToken, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } });
    };
  }
  if (threshold !== undefined) {
    const min = LOG_LEVELS.indexOf(threshold);
    channel.log = ({ level, data, logger }) => {
      if (LOG_LEVELS.indexOf(level) < min) return;
      notify({ method: 'notifications/message', params: { level, data, ...(logger !== undefined ? { logger } : {}) } });
    };
  }
  const modes = elicitationModes(caps);
  if (call.era === 'legacy' && modes.size > 0) {
    channel.elicit = async (params, signal) => {
      // MCP "Elicitation": a server MUST NOT send a mode the client did not declare; decline for it.
      const mode = typeof params.mode === 'string' ? params.mode : 'form';
      if (!modes.has(mode)) return { action: 'decline' };
      // A 2025 URL-mode request needs an elicitationId; a 2026 upstream's input_required round has none.
      const sent = mode === 'url' && typeof params.elicitationId !== 'string' ? { ...params, elicitationId: randomUUID() } : params;
      return (await ctx.mcpReq.send({ method: 'elicitation/create', params: withoutMeta(sent) }, { signal, timeout: HUMAN_TIMEOUT_MS })) as Record<string, unknown>;
    };
  }
  // 2026-07-28: an agent's tool asks in rounds; the client's answers to the last round ride along.
  const rounds = roundsOf(call, ctx)?.rounds;
  if (rounds) channel.rounds = rounds;
  if (call.era === 'legacy' && caps.sampling) {
    channel.sample = async (params, signal) =>
      (await ctx.mcpReq.send({ method: 'sampling/createMessage', params: withoutMeta(params) }, { signal, timeout: HUMAN_TIMEOUT_MS })) as Record<string, unknown>;
  }
  return channel;
}

/**
 * A 2026-07-28 request's multi-round-trip facts (SEP-2322) for a passed-through `prompts/get` or
 * `resources/read`: its declared capabilities, and its answers to the last round; none for 2025.
 */
export function roundsOf(call: McpCall, ctx: ServerContext): ClientChannel | undefined {
  if (call.era !== 'modern') return undefined;
  const state = ctx.mcpReq.requestState();
  const inputResponses = ctx.mcpReq.inputResponses as Record<string, unknown> | undefined;
  return {
    rounds: {
      capabilities: clientCapabilities(call, ctx) as Record<string, unknown>,
      ...(inputResponses ? { inputResponses } : {}),
      ...(typeof state === 'string' ? { requestState: state } : {}),
    },
  };
}

import type { z } from 'zod';
import type { AskRequest } from '../protocol/nlweb/index.ts';
import type { AgentEvent } from './events.ts';
import type { Logger } from '../base/logger.ts';
import type { UpstreamClient } from './upstream/index.ts';

/** A JSON Schema object as published to clients (MCP `inputSchema`, webtool `requestSchema`). */
export type JsonSchema = Record<string, unknown>;

/** One structured operation an agent offers besides `ask` (a webtool action, an upstream MCP tool). */
export interface ToolDescription {
  /** Unique within the agent; the core prefixes it with the agent name where needed. */
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /**
   * The result's schema when it is not an object (e.g. an array), for protocols that allow that
   * (webtool `responseSchema`); MCP's `outputSchema` must describe an object, so it stays unset then.
   */
  resultSchema?: JsonSchema;
  /** MCP-style hints (readOnlyHint, idempotentHint, ...), passed through as given. */
  annotations?: Record<string, unknown>;
  /**
   * MCP `execution` as the upstream declared it (`taskSupport`: forbidden, optional, required). The
   * adapter honours it upstream; bindings decide what their own clients are shown.
   */
  execution?: { taskSupport?: string };
}

/** The result of a structured tool call, transport-neutral (maps to MCP CallToolResult and webtool `data`). */
export interface ToolResult {
  /** Readable text for a model or a person. */
  text?: string;
  /** The machine-readable result (MCP `structuredContent`, webtool `data`). */
  structured?: unknown;
  /** Raw content items for passthrough to MCP clients (text, image, resource, ...). */
  content?: Array<Record<string, unknown>>;
  /** The tool ran but reports failure (MCP `isError`, webtool `status: error`). */
  isError?: boolean;
  /**
   * The tool needs the client's input first (MCP 2026-07-28 `input_required`): what it asks, and
   * the opaque state the client must send back with its answers. Only for a client channel with `rounds`.
   */
  inputRequired?: { inputRequests: Record<string, unknown>; requestState?: string };
}

/** What `describe()` tells the gateway about an agent, for listings, routing and published metadata. */
export interface AgentDescription {
  description: string;
  /** Sub-corpora the agent can search (`query.site` routes to an agent that lists the site). */
  sites?: string[];
  /** schema.org types the agent returns (e.g. `Recipe`). */
  itemTypes?: string[];
  /** Structured tools beyond ask/await. */
  tools?: ToolDescription[];
  /**
   * Requests of the agent's own protocol that `forward()` passes through, by protocol
   * (e.g. `{ mcp: ['resources/list', 'resources/read', 'prompts/list', ...] }`).
   */
  forwards?: { mcp?: string[] };
  /** Which optional parts of the contract this agent honours. */
  capabilities?: {
    streaming?: boolean;
    summarize?: boolean;
    /** Response formats the agent renders itself; the gateway renders the standard two for everyone. */
    responseFormats?: string[];
    /** Takes binary parts (images, audio) in `query.attachments`; others get them named in a reply. */
    attachments?: boolean;
  };
}

/** Per-conversation state an adapter sees: what it stored last time and the previous queries. */
export interface ConversationView {
  /**
   * The conversation's id inside the gateway, unique per owner (two principals sending the same
   * client-chosen id have two): what an adapter may key upstream state by. Never shown to clients.
   */
  id: string;
  /** Previous queries of this conversation, oldest first (NLWeb `context.prev`). */
  prev: string[];
  /** The `session_context` this agent's upstream returned last time, to be sent back. */
  upstreamSession?: Record<string, unknown>;
  /** Adapter-private values kept for this conversation (cookies, upstream tokens), by key. */
  attrs: Record<string, string>;
}

/**
 * What the calling client can do while a call runs, for protocols that have such a channel (MCP:
 * progress and log notifications, elicitation and sampling requests). A binding sets the members its
 * client supports; an adapter whose upstream asks for one of these forwards it here, or declines when
 * the member is absent.
 */
export interface ClientChannel {
  /** A progress report (MCP `notifications/progress`): `progress` of `total` when known. */
  progress?(update: { progress: number; total?: number; message?: string }): void;
  /** A log message (MCP `notifications/message`). */
  log?(entry: { level: string; data: unknown; logger?: string }): void;
  /** Asks the user for input (MCP `elicitation/create` params); resolves with the client's ElicitResult. */
  elicit?(params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Asks the client's model (MCP `sampling/createMessage` params); resolves with its CreateMessageResult. */
  sample?(params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  /**
   * A client that answers in rounds (MCP 2026-07-28 multi-round-trip requests): instead of asking it
   * mid-call, a tool may answer `ToolResult.inputRequired`; the client then repeats the call with
   * these answers and the state. Set by bindings whose clients work this way.
   */
  rounds?: { inputResponses?: Record<string, unknown>; requestState?: string; capabilities: Record<string, unknown> };
}

/**
 * The client's own protocol session, for protocols that have one (a 2025 MCP session): an adapter
 * whose upstream keeps state per session (log level, subscriptions, who answers elicitations) can
 * give each client session an upstream session of its own, and reach the client between calls.
 */
export interface ClientSession {
  /** The session's id as the client knows it (unguessable; minted by the binding). */
  id: string;
  /** Who owns it (Principal id): per-owner bounds on what an adapter keeps for sessions. */
  owner: string;
  /** What the client declared it can do (MCP `ClientCapabilities`). */
  capabilities: Record<string, unknown>;
  /** Delivers a message outside any call (MCP notification) to the session's stream, on whichever replica holds it. */
  notify(message: { method: string; params?: Record<string, unknown> }): void;
}

/** Everything a call needs besides the request: cancellation, conversation, credentials, logging. */
export interface CallContext {
  /** Aborted on cancel (`/await` cancel, client gone, timeout). Adapters pass it to fetch. */
  signal: AbortSignal;
  requestId: string;
  conversation?: ConversationView;
  /**
   * Client credentials: present only when the agent's config sets `forwardCredentials: true`.
   * Adapters never read client headers any other way.
   */
  credentials?: { authorization?: string };
  /** Persist an adapter-private value for this conversation (e.g. an upstream NLIP token, a cookie). */
  setConversationAttr?: (key: string, value: string) => Promise<void>;
  /** The calling client's interactive channel, when its protocol has one (see ClientChannel). */
  client?: ClientChannel;
  /** The client's protocol session, when it has one (see ClientSession). */
  session?: ClientSession;
  log: Logger;
}

/** The one contract every adapter implements (design.md "An adapter"). */
export interface Agent {
  readonly name: string;
  readonly kind: string;
  /** Describes the agent; may contact the upstream (e.g. `GET /sites`, MCP `tools/list`). */
  describe(signal?: AbortSignal): Promise<AgentDescription>;
  /** Runs an ask as a stream of canonical events (NLWeb 3, 6). Must honour `ctx.signal`. */
  ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent>;
  /**
   * Continues an upstream promise (NLWeb 4.2): `checkin` streams the answer or a new `promise`
   * event; `cancel` asks the upstream to stop. `token` is the upstream's own token.
   */
  await?(token: string, action: 'checkin' | 'cancel', ctx: CallContext): AsyncIterable<AgentEvent>;
  /**
   * Whether an ask may run twice upstream without harm, by what the upstream itself declares (an
   * MCP agent: its ask tool's `readOnlyHint` / `idempotentHint`). Consulted for a promise lost with
   * its replica when the agent's config does not say `idempotent` (issue 24, core/reruns.ts).
   */
  asksMayRunAgain?(signal?: AbortSignal): Promise<boolean>;
  /** Calls one of the tools listed by `describe()`. */
  callTool?(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult>;
  /**
   * Passes a request of the agent's own wire protocol through unchanged, for the parts of that
   * protocol the canonical model does not cover (MCP `resources/*`, `prompts/*`, `completion/complete`,
   * `logging/setLevel` between an MCP client and an MCP agent). The methods an agent forwards are
   * listed in `describe().forwards`. Throws TOOL_NOT_FOUND for any other method.
   */
  forward?(protocol: 'mcp', method: string, params: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>>;
  /**
   * The tools as one client session sees them, when that depends on the client (an upstream that
   * lists tools by the capabilities its client declared); undefined: the same as `describe().tools`.
   */
  toolsFor?(session: ClientSession, signal?: AbortSignal): Promise<ToolDescription[] | undefined>;
  /** A client session ended (closed by the client, or expired): drop what the agent kept for it. */
  endSession?(sessionId: string): Promise<void>;
  /** Releases sockets, child processes, timers. */
  close?(): Promise<void>;
}

/** Settings every agent has, whatever its kind (validated by the config loader). */
export interface CommonAgentConfig {
  name: string;
  kind: string;
  description?: string;
  /** Answer with a promise when the agent has not finished after this long (ms). */
  promiseAfterMs?: number;
  /** Abort the upstream call after this long (ms). */
  timeoutMs?: number;
  /** A lost worker may run the call again instead of failing it. */
  idempotent?: boolean;
  /** Forward the client's Authorization to the upstream. Off unless set. */
  forwardCredentials?: boolean;
  /** Clients must authenticate (Authorization header, NLIP authentication token) to use this agent. */
  requireAuth?: boolean;
  /** At most `requests` calls per `windowMs` for each client credential (anonymous clients share one). */
  rateLimit?: { requests: number; windowMs: number };
}

/** What an adapter factory receives besides its own config. */
export interface AdapterDeps {
  log: Logger;
  /** Directory of the config file, for resolving relative paths (catalog files, stdio commands). */
  baseDir: string;
  /** Drops the gateway's cached description of this agent (the upstream's tools changed: MCP `list_changed`). */
  invalidateDescription?: () => void;
  /**
   * The agent's HTTP client (pools, redirect policy, size caps, diagnostics events). Adapters that
   * speak HTTP use it for every upstream request; absent only when an adapter is built on its own.
   */
  upstream?: UpstreamClient;
}

/**
 * An adapter kind: its config schema (the fields beyond CommonAgentConfig) and a factory.
 * Adapters register by kind; the core never imports one.
 */
export interface AdapterFactory<C extends Record<string, unknown> = Record<string, unknown>> {
  kind: string;
  /** zod schema for the kind-specific fields; unknown fields are an error. */
  configSchema: z.ZodType<C>;
  create(config: C & CommonAgentConfig, deps: AdapterDeps): Agent;
  /**
   * An ask of this kind is a query with no side effect upstream (a search), so a call lost with its
   * replica is run again elsewhere unless the agent's config says `idempotent: false` (issue 24).
   */
  asksAreQueries?: boolean;
  /**
   * Loads the adapter's implementation (its upstream SDK) before the first `create`; the gateway
   * awaits it only for the kinds its config uses, so a deployment never loads an SDK it does not
   * need (issue 23). Absent: `create` is ready as is.
   */
  load?(): Promise<void>;
}

/** Awaits `load()` of the factories the configured agents use (their kinds), once each. */
export async function loadAdapters(adapters: readonly AdapterFactory<any>[], agents: ReadonlyArray<{ kind: string }>): Promise<void> {
  const kinds = new Set(agents.map((a) => a.kind));
  await Promise.all(adapters.filter((f) => kinds.has(f.kind)).map((f) => f.load?.()));
}

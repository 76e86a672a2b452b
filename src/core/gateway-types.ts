import type { AskRequest, AwaitRequest, CanonicalResponse, PromiseInfo } from '../protocol/nlweb/index.ts';
import type { ConversationRecord, RecordWrite, Store } from '../store/store.ts';
import type { AgentDescription, ClientChannel, ClientSession, ToolDescription, ToolResult } from './agent.ts';
import type { AgentEvent } from './events.ts';
import type { Logger } from '../base/logger.ts';
import type { Principal } from './principal.ts';

/** How a binding calls the core for one inbound request. */
export interface CallOptions {
  /** The agent named by the path (`/agents/{name}/…`); otherwise the router picks one. */
  agent?: string;
  /** Credentials the client presented. The core forwards them only to agents configured to take them. */
  credentials?: { authorization?: string };
  /** The caller as the edge established it: owns the handles this call creates, keys its limits. */
  principal?: Principal;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /** Correlates logs; generated when absent. */
  requestId?: string;
  /** The client's interactive channel (MCP progress, logs, elicitation, sampling), handed to the agent as `ctx.client`. */
  client?: ClientChannel;
  /** The client's protocol session (a 2025 MCP session), handed to the agent as `ctx.session`. */
  session?: ClientSession;
  /**
   * The conversation read with the record that names it (Gateway.readRecordWithConversation): a call
   * that continues that conversation starts from it instead of reading the store again.
   */
  readAhead?: ReadAhead;
}

/** A conversation as read together with a binding's record (its store id and what it held). */
export interface ReadAhead {
  readonly id: string;
  readonly record: ConversationRecord | null;
}

export interface AskOptions extends CallOptions {
  /**
   * For `ask`: whether the call may turn into a promise when slower than the agent's
   * `promiseAfterMs` (NLWeb 4.1.2). Bindings without a way to await (none today) pass false.
   */
  allowPromise?: boolean;
  /** Overrides the agent's `promiseAfterMs` for this call; 0 always answers with a promise (an MCP task). */
  promiseAfterMs?: number;
  /**
   * The binding's own record of an answer (an A2A task), written in the same store operation as the
   * conversation turn: one Redis round trip instead of two. Called with the final answer when it
   * comes within the call (not a promise: the turn of a promise is recorded when it settles, and
   * the binding keeps the promise's own record). The binding still writes its record itself when
   * `ask` resolves a promise: a promise can win the race after this was called.
   */
  recordWithAnswer?: (response: CanonicalResponse) => RecordWrite | undefined;
}

/** A live answer stream for a streaming client (NLWeb 6). */
export interface AskStream {
  agent: string;
  conversationId: string;
  /** `_meta.session_context` to send on `start`/`complete`: includes `conversation_id`. */
  sessionContext: Record<string, unknown>;
  /**
   * The agent's events, already normalised: exactly one `start` first and one `complete` last
   * (or a final non-recoverable `error` followed by `complete`); upstream promises are resolved
   * by the core (it keeps awaiting them) so a streaming client just sees results.
   */
  events: AsyncIterable<AgentEvent>;
}

/** An agent as listed to clients. */
export interface AgentInfo {
  name: string;
  kind: string;
  description: string;
}

/** A tool as the gateway publishes it: qualified with its agent. */
export interface PublishedTool extends ToolDescription {
  agent: string;
  /** The tool's own name on its agent. */
  toolName: string;
}

/**
 * The protocol core (a2a-js style): every binding is a thin handler around this interface.
 * It imports no binding and no adapter.
 */
export interface Gateway {
  readonly store: Store;
  readonly log: Logger;
  /** This replica's id (promise ownership, leases). */
  readonly replicaId: string;

  listAgents(): AgentInfo[];
  /** The agent's description (cached after the first call); throws AGENT_NOT_FOUND. */
  describeAgent(name: string): Promise<AgentDescription>;
  /** The agent a request goes to: `opts.agent`, else `query.site`, else the default agent. */
  resolveAgent(request: AskRequest | undefined, agent?: string): string;

  /** NLWeb ask, answered as one response: answer, elicitation, failure, or a promise when slow. */
  ask(request: AskRequest, opts?: AskOptions): Promise<CanonicalResponse>;
  /** NLWeb ask, streamed. Throws GatewayError before the stream starts for bad input or unknown agents. */
  askStream(request: AskRequest, opts?: CallOptions): Promise<AskStream>;
  /** NLWeb 4.2 await: checkin returns the answer or an updated promise; cancel returns CANCELLED. */
  await(request: AwaitRequest, opts?: CallOptions): Promise<CanonicalResponse>;

  /** Structured tools of one agent, or of every agent; with a client session, as that session sees them (Agent.toolsFor). */
  listTools(agent?: string, session?: ClientSession): Promise<PublishedTool[]>;
  /** One agent's tools as listTools gives them, at once when its description is cached (read-only); else (or for no such agent) undefined. */
  knownTools(agent: string): readonly PublishedTool[] | undefined;
  /** Calls a structured tool of an agent. */
  callTool(agent: string, tool: string, args: Record<string, unknown>, opts?: CallOptions): Promise<ToolResult>;
  /**
   * Calls a structured tool in the background and answers at once with its promise: check-ins
   * (`await`) answer `toolResultAnswer(result)` (core/tool-promises.ts) or the call's failure.
   */
  callToolAsPromise(agent: string, tool: string, args: Record<string, unknown>, opts?: CallOptions): Promise<PromiseInfo>;
  /**
   * Passes a request of an agent's own protocol through (Agent.forward): MCP resources, prompts,
   * completions and log levels between an MCP client and an MCP agent. Throws TOOL_NOT_FOUND when the
   * agent does not forward `method`.
   */
  forward?(agent: string, protocol: 'mcp', method: string, params: Record<string, unknown>, opts?: CallOptions): Promise<Record<string, unknown>>;

  /**
   * Maps an external conversation handle (NLIP conversation token, webtool sessionId, MCP session id,
   * A2A contextId) to a gateway conversation id: null when unknown, expired, or owned by another
   * principal than `owner`. In the same store round trip it reads the conversation the handle names,
   * or else the conversation `fallback` (a handle the binding derives) when it names none: hand that
   * `readAhead` to the call that continues it (issue 25: one round trip fewer per call).
   */
  resolveConversation(kind: string, handle: string, owner?: Principal, fallback?: string): Promise<{ conversationId: string | null; readAhead?: ReadAhead }>;
  /**
   * Binds an external handle to a conversation (same TTL as the conversation). With `owner`, only
   * that principal resolves it again; anyone else gets null, as for a handle that never existed.
   */
  bindConversation(kind: string, handle: string, conversationId: string, owner?: Principal): Promise<void>;

  /**
   * Reads a binding's record (Store.getRecord) and, when its JSON `field` names a conversation of
   * `owner`, that conversation with it: one store round trip (issue 25: a 2025 MCP session's record
   * names the conversation its calls continue). Hand `conversation` to the call as `readAhead`.
   */
  readRecordWithConversation(namespace: string, id: string, touchTtlMs: number, field: string, owner?: Principal): Promise<{ record: string | null; conversation?: ReadAhead }>;

  /** A client session ended: every agent drops what it kept for it (Agent.endSession). */
  endSession?(sessionId: string): Promise<void>;
  /**
   * Graceful shutdown (issue 13): stops taking over other replicas' promises, waits until no promise
   * call runs here or `deadline` (epoch ms) passes, then releases the rest to the other replicas.
   */
  drain(deadline: number): Promise<{ released: number }>;

  close(): Promise<void>;
}

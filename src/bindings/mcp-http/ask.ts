import { ProtocolError, inputRequired, type CallToolResult, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import type { ClientChannel } from '../../core/agent.ts';
import { collectEvents } from '../../core/collect.ts';
import { describeIssues } from '../../base/errors.ts';
import type { CallOptions, Gateway } from '../../core/gateway-types.ts';
import { failureResponse, withSessionContext } from '../../core/responses.ts';
import { AskRequestSchema, AwaitRequestSchema, inConversation, isElicitation, isPromise, type AskRequest, type CanonicalResponse, type PromiseResponse } from '../../protocol/nlweb/index.ts';
import { callOptions, clientCapabilities, elicitationModes, type McpCall } from './call.ts';
import { askWithAnswers, decodeElicitationState, elicitationForm, encodeElicitationState, hasQuestions } from './elicitation.ts';
import { protocolError, renderFailureResult, renderNlwebResult } from './render.ts';
import { clientSessionOf } from './session-link.ts';
import type { McpSessions } from './sessions.ts';

/** The key of the gateway's elicitation inside a 2026 `input_required` round. */
const ANSWERS_KEY = 'nlweb_elicitation';
/** Conversation aliases of 2025 MCP sessions whose records predate `conversationId` (`Gateway.bindConversation` kind). */
const ALIAS_KIND = 'mcp';

/** Everything the `ask`/`await` tools need for one call: the core, the request facts, the client channel. */
export interface AskToolContext {
  gateway: Gateway;
  /** The 2025 sessions, whose records name their conversations. */
  sessions: McpSessions;
  call: McpCall;
  ctx: ServerContext;
  channel: ClientChannel;
  progressToken: string | number | undefined;
}

/** The call's options; an ask also takes the session's conversation read ahead with its record (once: a later call reads it anew). */
function options(t: AskToolContext, forAsk = false): CallOptions {
  const session = clientSessionOf(t.call, t.gateway.store);
  const readAhead = forAsk ? t.call.session?.readAhead : undefined;
  if (readAhead) delete t.call.session!.readAhead;
  return { ...callOptions(t.call, t.ctx.mcpReq.signal), ...(session ? { session } : {}), ...(readAhead ? { readAhead } : {}) };
}

/** The request as a session call sends it, and the conversation the session was bound to before. */
interface SessionRequest {
  request: AskRequest;
  bound?: string;
}

/**
 * The request in the conversation a 2025 session continues (when the client named none), and that
 * binding: at once, since the session's record (read to admit the call) names it. Each `await` of a
 * call costs it promises (issue 25, `BENCH_SITES=20 npx tsx bench/promises.ts mcp`). Only a record
 * from before that field has it in a conversation alias, read here with the conversation it names
 * (taken as the session's read-ahead).
 */
function sessionRequest(request: AskRequest, t: AskToolContext): SessionRequest | Promise<SessionRequest> {
  const session = t.call.session;
  if (!session || request.meta?.session_context?.conversation_id !== undefined) return { request };
  if (session.conversationId !== undefined) return inSessionConversation(request, session.conversationId);
  return t.gateway.resolveConversation(ALIAS_KIND, session.id, t.call.principal).then((alias) => {
    if (alias.readAhead) session.readAhead = alias.readAhead;
    return inSessionConversation(request, alias.conversationId);
  });
}

/** The request in conversation `conversationId`, bound to it; as it is when the session has none yet. */
function inSessionConversation(request: AskRequest, conversationId: string | null | undefined): SessionRequest {
  return conversationId ? { request: inConversation(request, conversationId), bound: conversationId } : { request };
}

/** The conversation an answer belongs to, when the session must be bound to it: not yet bound there (none on a continuing call). */
function rebinding(response: CanonicalResponse, t: AskToolContext, bound: string | undefined): string | undefined {
  const id = response._meta.session_context?.conversation_id;
  return t.call.session && typeof id === 'string' && id !== bound ? id : undefined;
}

/**
 * Binds the session to the answer's conversation `id`, in its record (or, for an older record, its
 * alias). Called only when `rebinding` names one: no store write, and no promise, on a continuing call.
 */
async function bindSessionConversation(id: string, t: AskToolContext): Promise<void> {
  const session = t.call.session!;
  if (session.conversationId !== undefined) await t.sessions.bindConversation(session, id, t.call.principal);
  else await t.gateway.bindConversation(ALIAS_KIND, session.id, id, t.call.principal);
}

/**
 * One NLWeb ask. With a progress token the answer streams (Gateway.askStream) and each result or
 * progress report becomes `notifications/progress`; without one a slow call turns into a promise
 * (NLWeb 4.1.2) that the `await` tool resolves. An agent that reports progress through the client
 * channel (an MCP upstream) has its own figures relayed as they are, `total` included (MCP
 * "Progress"); the gateway's own step count is used only for agents that do not.
 */
function ask(request: AskRequest, t: AskToolContext): Promise<CanonicalResponse> {
  // Not async: without a progress token the core's own promise is the answer (issue 25).
  if (t.progressToken === undefined) return t.gateway.ask(request, { ...options(t, true), allowPromise: true });
  return askWithProgress(request, t);
}

/** `ask` with a progress token: the answer streams, each result or progress report relayed as `notifications/progress`. */
async function askWithProgress(request: AskRequest, t: AskToolContext): Promise<CanonicalResponse> {
  let relayed = false;
  const relay = { progress: (p: { progress: number; total?: number; message?: string }) => ((relayed = true), t.channel.progress?.(p)) };
  const live = await t.gateway.askStream(request, { ...options(t, true), client: relay });
  let step = 0;
  let results = 0;
  const collected = await collectEvents(live.events, (e) => {
    if (e.type === 'result') ++results;
    if (relayed) return;
    if (e.type === 'result') t.channel.progress?.({ progress: ++step, message: `${results} result${results === 1 ? '' : 's'}` });
    if (e.type === 'progress') t.channel.progress?.({ progress: ++step, ...(e.message ? { message: e.message } : {}) });
  });
  return withSessionContext(collected.response, live.sessionContext);
}

function acceptedAnswers(result: unknown): Record<string, unknown> | undefined {
  const r = result as { action?: unknown; content?: unknown } | undefined;
  return r?.action === 'accept' && r.content !== null && typeof r.content === 'object' ? (r.content as Record<string, unknown>) : undefined;
}

/**
 * The `ask` tool (NLWeb Appendix A.1). An agent's elicitation becomes an MCP elicitation where the
 * client declared the capability — pushed on the POST stream for a 2025 session, an `input_required`
 * round on 2026-07-28 — and the answers go back to the agent as a follow-up ask; otherwise the
 * questions are the tool result.
 */
export async function runAskTool(args: unknown, t: AskToolContext): Promise<CallToolResult | InputRequiredResult> {
  const parsed = AskRequestSchema.safeParse(args ?? {});
  if (!parsed.success) return renderNlwebResult(failureResponse('INVALID_QUERY', describeIssues(parsed.error.issues)));
  try {
    const pending = sessionRequest(parsed.data, t);
    const session = pending instanceof Promise ? await pending : pending;
    let request = session.request;
    const previous = decodeElicitationState(t.ctx.mcpReq.requestState());
    const answers = acceptedAnswers(t.ctx.mcpReq.inputResponses?.[ANSWERS_KEY]);
    if (previous && answers) request = askWithAnswers(request, previous, answers);

    let response = await ask(request, t);
    if (isElicitation(response) && hasQuestions(response.elicitation) && !(previous && answers)) {
      const e = response.elicitation;
      if (t.channel.elicit) {
        const got = acceptedAnswers(await t.channel.elicit(elicitationForm(e), t.ctx.mcpReq.signal).catch(() => undefined));
        if (got) response = await ask(askWithAnswers(request, e, got), t);
      } else if (t.call.era === 'modern' && elicitationModes(clientCapabilities(t.call, t.ctx)).has('form')) {
        return inputRequired({ inputRequests: { [ANSWERS_KEY]: inputRequired.elicit(elicitationForm(e) as never) }, requestState: encodeElicitationState(e) });
      }
    }
    const rebind = rebinding(response, t, session.bound);
    if (rebind !== undefined) await bindSessionConversation(rebind, t);
    return renderNlwebResult(response);
  } catch (err) {
    return renderFailureResult(err);
  }
}

/**
 * The `ask` tool called as an MCP task (2025-11-25 "Tasks"): the core answers with a promise at once
 * (`promiseAfterMs: 0`) and the call goes on; the promise is the task. Bad arguments or a refused
 * call (unknown agent, rate limit) are JSON-RPC errors: there is no task to report them in.
 */
export async function startAskTask(args: unknown, t: AskToolContext): Promise<PromiseResponse> {
  const parsed = AskRequestSchema.safeParse(args ?? {});
  if (!parsed.success) throw new ProtocolError(-32602, `Invalid arguments for tool ask: ${describeIssues(parsed.error.issues)}`);
  let response: CanonicalResponse;
  let bound: string | undefined;
  try {
    const session = await sessionRequest(parsed.data, t);
    bound = session.bound;
    response = await t.gateway.ask(session.request, { ...options(t, true), allowPromise: true, promiseAfterMs: 0 });
  } catch (err) {
    throw protocolError(err);
  }
  if (!isPromise(response)) throw new ProtocolError(-32603, 'The call could not be run as a task');
  const rebind = rebinding(response, t, bound);
  if (rebind !== undefined) await bindSessionConversation(rebind, t);
  return response;
}

/** The `await` tool (NLWeb Appendix A.2, 4.2): check in on or cancel a promise, on any replica. */
export async function runAwaitTool(args: unknown, t: AskToolContext): Promise<CallToolResult> {
  const parsed = AwaitRequestSchema.safeParse(args ?? {});
  if (!parsed.success) return renderNlwebResult(failureResponse('INVALID_QUERY', describeIssues(parsed.error.issues)));
  try {
    return renderNlwebResult(await t.gateway.await(parsed.data, options(t)));
  } catch (err) {
    return renderFailureResult(err);
  }
}

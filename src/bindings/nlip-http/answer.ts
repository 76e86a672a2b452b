import { describeIssues, GatewayError, toGatewayError } from '../../base/errors.ts';
import type { CallOptions, Gateway } from '../../core/gateway-types.ts';
import type { Principal } from '../../core/principal.ts';
import { AskRequestSchema, isFailure, type CanonicalResponse } from '../../protocol/nlweb/index.ts';
import {
  conversationTokens,
  messageText,
  promiseTokens,
  type NlipMessage,
  type NlipParseResult,
} from '../../protocol/nlip/index.ts';
import { replyTokens, resolveConversation } from './conversation.ts';
import {
  renderAuthRequest,
  renderControl,
  renderControlInfo,
  renderError,
  renderNotice,
  renderResponse,
  renderUploadLocation,
  type ReplyStyle,
} from './reply.ts';
import { attachmentsNote, plainAsk, readAsk, readCredentials, withAttachments } from './request.ts';
import { readToolCall, renderToolResult, type NlipToolCall } from './tool-call.ts';
import { loadUploads, referencesUploads } from './upload.ts';

/** What the HTTP layer knows about the exchange. */
export interface Exchange {
  gateway: Gateway;
  /** The agent named by the path (`/agents/{name}/nlip`). */
  agent?: string;
  /** The `Authorization` header, if any. */
  authorization?: string;
  /** The caller as the edge established it, and the request id (bindings' callerOf). */
  caller?: { principal: Principal; requestId: string };
  signal: AbortSignal;
  /** Absolute URL of this mount's upload end-point (6.4). */
  uploadUrl: () => string;
}

type Accepted = Extract<NlipParseResult, { ok: true }>;

/** Stands in for the question when a message carries only binary content for an agent that takes it. */
const ATTACHMENT_ONLY_QUESTION = '(see the attached content)';

/**
 * Answers one parsed NLIP message (ECMA-430 6.1): control messages with control messages (6.3-6.5),
 * a promise token with a check-in, anything else with an ask. Never throws: every failure is an
 * NLIP reply (HTTP 200, interop.md).
 */
export async function answerMessage(x: Exchange, parsed: Accepted): Promise<NlipMessage> {
  const { message } = parsed;
  const received = conversationTokens(message);
  const style: ReplyStyle = { tokens: received, legacyControl: parsed.legacyControl };
  const credentials = readCredentials(x.authorization, message);
  const opts: CallOptions = { signal: x.signal, ...x.caller, ...(x.agent !== undefined ? { agent: x.agent } : {}), ...(credentials ? { credentials } : {}) };
  try {
    if (parsed.control) return await answerControl(x, message, style, opts);
    const promise = promiseTokens(message)[0];
    if (promise !== undefined) return renderResponse(await x.gateway.await({ promise_token: promise, action: 'checkin' }, opts), style);
    const toolCall = readToolCall(message);
    if (toolCall) return await answerTool(x, message, toolCall, style, opts);
    return await answerAsk(x, message, style, opts);
  } catch (err) {
    const e = toGatewayError(err);
    // 6.5: ask for credentials only when none came (else the peer's credential was refused).
    if (e.code === 'UNAUTHORIZED' && !credentials) return renderAuthRequest(x.agent, style);
    if (e.code === 'INTERNAL_ERROR') x.gateway.log.error({ err: String(err) }, 'NLIP exchange failed');
    return renderError(e, style);
  }
}

/** The data path: the message as an ask, the response as a reply with the conversation tokens. */
async function answerAsk(x: Exchange, message: NlipMessage, style: ReplyStyle, opts: CallOptions): Promise<NlipMessage> {
  const owner = x.caller?.principal;
  // Each of these is usually at hand (no peer token, no upload): awaited only when it is not (issue 25).
  const resolving = resolveConversation(x.gateway, style.tokens, owner);
  const conversation = resolving instanceof Promise ? await resolving : resolving;
  const { id: known, readAhead } = conversation;
  const { uploads, missing } = referencesUploads(message) ? await loadUploads(x.gateway.store, message, owner) : { uploads: [], missing: [] };
  const ask = readAsk(message, { ...(known ? { conversationId: known } : {}), uploads });
  const notes = [...missing, ...ask.notes];
  // Validate first (filters come from the peer); an attachment-only message gets a stand-in question.
  const question = ask.text || ATTACHMENT_ONLY_QUESTION;
  const plain = plainAsk(ask.request, question);
  const checked = plain ? { success: true as const, data: plain } : AskRequestSchema.safeParse({ ...ask.request, query: { ...ask.request.query, text: question } });
  if (!checked.success) {
    return renderNotice(`The message's structured parts are not valid filters: ${describeIssues(checked.error.issues)}`, style, 'INVALID_QUERY');
  }
  let request = checked.data;
  // Routing (design.md "The core"): the path's agent, else an agent named by the message label.
  const routed = x.agent ?? agentNamedBy(x.gateway, message.label);
  const agent = x.gateway.resolveAgent(request, routed);
  const capabilities = (await x.gateway.describeAgent(agent).catch(() => undefined))?.capabilities;
  // A person reads the reply: ask for a summary from agents that write one.
  if (capabilities?.summarize) request = { ...request, prefer: { mode: 'list,summarize' } };
  const takesAttachments = capabilities?.attachments === true;
  if (ask.attachments.length > 0 && takesAttachments) request = withAttachments(request, ask.attachments);
  if (ask.attachments.length > 0 && !takesAttachments) notes.push(attachmentsNote(agent, ask.attachments));
  if (!ask.text && !(takesAttachments && ask.attachments.length > 0)) {
    return renderNotice(['The message has no question: send it as text (format "text").', ...notes].join('\n'), style, 'INVALID_QUERY');
  }
  const response = await x.gateway.ask(request, { ...opts, ...(routed !== undefined ? { agent: routed } : {}), ...(readAhead ? { readAhead } : {}), allowPromise: true });
  const replying = replyTokens(x.gateway, style.tokens, conversationOf(response) ?? known, conversation, owner);
  const tokens = replying instanceof Promise ? await replying : replying;
  return renderResponse(response, { ...style, tokens }, notes);
}

/**
 * A structured request for one tool (tool-call.ts): the path's agent (or the one the label names)
 * and the tool's own name, or a published name (`<agent>__<tool>`) on the gateway's end-point.
 */
async function answerTool(x: Exchange, message: NlipMessage, call: NlipToolCall, style: ReplyStyle, opts: CallOptions): Promise<NlipMessage> {
  if ('problem' in call) return renderNotice(call.problem, style, 'INVALID_QUERY');
  const routed = x.agent ?? agentNamedBy(x.gateway, message.label);
  const tools = await x.gateway.listTools(routed);
  const tool = tools.find((t) => t.name === call.name) ?? (routed !== undefined ? tools.find((t) => t.toolName === call.name) : undefined);
  if (!tool) throw new GatewayError('TOOL_NOT_FOUND', `There is no tool "${call.name}"${routed !== undefined ? ` on agent "${routed}"` : ''}`);
  const result = await x.gateway.callTool(tool.agent, tool.toolName, call.arguments, opts);
  return renderToolResult(result, style.tokens, style.legacyControl);
}

/** 6.3-6.5 Control messages: cancel a promise, give the upload location, or say what is supported. */
async function answerControl(x: Exchange, message: NlipMessage, style: ReplyStyle, opts: CallOptions): Promise<NlipMessage> {
  const text = messageText(message).toLowerCase();
  const promise = promiseTokens(message)[0];
  if (promise !== undefined && text.includes('cancel')) {
    const response = await x.gateway.await({ promise_token: promise, action: 'cancel' }, opts);
    const cancelled = isFailure(response) && response.error.code === 'CANCELLED';
    return renderControl(cancelled ? 'The pending answer was cancelled.' : 'There was nothing left to cancel.', style);
  }
  if (/upload|redirect|large/.test(text)) return renderUploadLocation(x.uploadUrl(), style);
  return renderControlInfo(style);
}

/** The configured agent whose name is the message's `label`, if any (labels are free tags otherwise). */
function agentNamedBy(gateway: Gateway, label: string | undefined): string | undefined {
  return label !== undefined && gateway.listAgents().some((a) => a.name === label) ? label : undefined;
}

/** The gateway conversation a response belongs to (`_meta.session_context.conversation_id`). */
function conversationOf(response: CanonicalResponse): string | undefined {
  const id = response._meta.session_context?.conversation_id;
  return typeof id === 'string' ? id : undefined;
}

import type { Context } from 'hono';
import { hash } from 'node:crypto';
import { describeIssues, GatewayError } from '../../base/errors.ts';
import type { CallOptions, Gateway, ReadAhead } from '../../core/gateway-types.ts';
import { handleProblem } from '../../core/ownership.ts';
import { AskRequestSchema, AwaitRequestSchema, inConversation, type AskRequest } from '../../protocol/nlweb/index.ts';
import { createCachedValidator, type ExecutionRequest } from '../../protocol/webtool/index.ts';
import { agentMetadata, GatewayWebtoolConfigSchema, publishedTools, type GatewayWebtoolConfig } from './metadata.ts';
import { sendCanonical, sendError, sendToolResult } from './render.ts';

/** Tool inputs are foreign JSON Schemas: validated with ajv, compiled once per schema. */
const validateJson = createCachedValidator();

/** Handle kind under which earlier releases mapped a webtool `sessionId` to a gateway conversation. */
export const SESSION_KIND = 'webtool';

/** The alias handle earlier releases bound a client's `sessionId` on one webtool under (still read). */
export function sessionHandle(agent: string, sessionId: string): string {
  return `${agent}\u0000${sessionId}`;
}

/**
 * The conversation a client's `sessionId` names on one webtool: derived from the two, not minted and
 * then bound by an alias record, so two first requests of one new session at once continue one
 * conversation (they each started one, and the last to bind its alias won: the other's turn was
 * lost). The core keeps it in the caller's namespace like any client-chosen id, so one client
 * cannot join another's conversation by guessing or reusing its sessionId; the hash keeps the
 * sessionId itself out of the conversation id the answer shows.
 */
export function sessionConversationId(agent: string, sessionId: string): string {
  return `wts_${hash('sha256', `${agent}\u0000${sessionId}`, 'base64url')}`;
}

interface Call {
  agent: string;
  body: ExecutionRequest;
  opts: CallOptions;
}

/** "POST {webtoolUrl}/": version check, config check, then the action. Throws GatewayError. */
export async function execute(c: Context, gateway: Gateway, call: Call): Promise<Response> {
  const { agent, body } = call;
  if (body.version !== undefined) {
    const current = (await agentMetadata(gateway, agent)).version;
    if (body.version !== current) {
      return sendError(c, 'WEBTOOL_NOT_FOUND', `Webtool "${agent}" has no version "${body.version}" (current: ${current})`);
    }
  }
  // interop.md: config is {...defaultConfig, ...config}, then validated against configSchema.
  const config = GatewayWebtoolConfigSchema.safeParse({ ...body.config });
  if (!config.success) return sendError(c, 'CONFIG_ERROR', `config: ${describeIssues(config.error.issues)}`);
  if (body.action === 'ask') return ask(c, gateway, call, config.data);
  if (body.action === 'await') return awaitPromise(c, gateway, call);
  return tool(c, gateway, call);
}

function requestObject(call: Call): Record<string, unknown> {
  const r = call.body.request;
  if (r === null || typeof r !== 'object' || Array.isArray(r)) {
    throw new GatewayError('SCHEMA_ERROR', `request must be a JSON object for action "${call.body.action}"`);
  }
  return r as Record<string, unknown>;
}

async function ask(c: Context, gateway: Gateway, call: Call, config: GatewayWebtoolConfig): Promise<Response> {
  const parsed = AskRequestSchema.safeParse(requestObject(call));
  if (!parsed.success) return sendError(c, 'SCHEMA_ERROR', `request: ${describeIssues(parsed.error.issues)}`);
  let request: AskRequest = parsed.data;
  if (config.num_results !== undefined && request.query.num_results === undefined && request.query.max_results === undefined) {
    request = { ...request, query: { ...request.query, num_results: config.num_results } };
  }
  const { sessionId } = call.body;
  const problem = sessionId ? handleProblem(sessionId, 'sessionId') : undefined;
  if (problem) return sendError(c, 'SCHEMA_ERROR', problem);
  let readAhead: ReadAhead | undefined;
  if (sessionId) {
    // A session an earlier release bound through an alias keeps its conversation until the alias
    // expires (conversationIdleTtlMs after its last use); every other one has its derived id. Either
    // conversation is read with the alias, in one store round trip.
    const derived = sessionConversationId(call.agent, sessionId);
    const bound = await gateway.resolveConversation(SESSION_KIND, sessionHandle(call.agent, sessionId), call.opts.principal, derived);
    request = inConversation(request, bound.conversationId ?? derived);
    readAhead = bound.readAhead;
  }
  return sendCanonical(c, await gateway.ask(request, { ...call.opts, allowPromise: true, ...(readAhead ? { readAhead } : {}) }));
}

async function awaitPromise(c: Context, gateway: Gateway, call: Call): Promise<Response> {
  const parsed = AwaitRequestSchema.safeParse(requestObject(call));
  if (!parsed.success) return sendError(c, 'SCHEMA_ERROR', `request: ${describeIssues(parsed.error.issues)}`);
  return sendCanonical(c, await gateway.await(parsed.data, call.opts));
}

async function tool(c: Context, gateway: Gateway, call: Call): Promise<Response> {
  const tools = await publishedTools(gateway, call.agent);
  const found = tools.find((t) => t.toolName === call.body.action);
  if (!found) {
    const names = ['ask', 'await', ...tools.map((t) => t.toolName)].join(', ');
    return sendError(c, 'SCHEMA_ERROR', `Unknown action "${call.body.action}" (actions: ${names})`);
  }
  const args = requestObject(call);
  const problem = await validateJson(found.inputSchema, 'request', args);
  if (problem) return sendError(c, 'SCHEMA_ERROR', problem);
  return sendToolResult(c, await gateway.callTool(call.agent, found.toolName, args, call.opts));
}

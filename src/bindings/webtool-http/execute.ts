import type { Context } from 'hono';
import { describeIssues, GatewayError } from '../../base/errors.ts';
import type { CallOptions, Gateway } from '../../core/gateway-types.ts';
import { handleProblem } from '../../core/ownership.ts';
import { AskRequestSchema, AwaitRequestSchema, inConversation, type AskRequest } from '../../protocol/nlweb/index.ts';
import { createCachedValidator, type ExecutionRequest } from '../../protocol/webtool/index.ts';
import { agentMetadata, GatewayWebtoolConfigSchema, publishedTools, type GatewayWebtoolConfig } from './metadata.ts';
import { sendCanonical, sendError, sendToolResult } from './render.ts';

/** Tool inputs are foreign JSON Schemas: validated with ajv, compiled once per schema. */
const validateJson = createCachedValidator();

/** Handle kind under which a webtool `sessionId` maps to a gateway conversation. */
export const SESSION_KIND = 'webtool';

/**
 * The conversation handle of a client's `sessionId` on one webtool. The core binds it to the calling
 * principal (Gateway.bindConversation with an owner), so one client cannot join another's
 * conversation by guessing or reusing its sessionId.
 */
export function sessionHandle(agent: string, sessionId: string): string {
  return `${agent}\u0000${sessionId}`;
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
  const handle = sessionId ? sessionHandle(call.agent, sessionId) : undefined;
  const owner = call.opts.principal;
  const known = handle ? await gateway.resolveConversation(SESSION_KIND, handle, owner) : null;
  if (known) request = inConversation(request, known);
  const response = await gateway.ask(request, { ...call.opts, allowPromise: true });
  const conversationId = response._meta.session_context?.conversation_id;
  if (handle && typeof conversationId === 'string' && conversationId !== known) {
    await gateway.bindConversation(SESSION_KIND, handle, conversationId, owner);
  }
  return sendCanonical(c, response);
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

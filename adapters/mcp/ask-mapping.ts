import type { CallContext, ToolDescription } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import type { McpAskMapping } from './config.ts';
import { renderTemplate } from './template.ts';

/** Argument names a single-text tool commonly uses for its question, in order of preference. */
const TEXT_ARG_NAMES = ['query', 'q', 'question', 'text', 'prompt', 'input', 'search'];

/** A tool call the canonical `ask` turns into. */
export interface AskCall {
  tool: string;
  arguments: Record<string, unknown>;
}

type Props = Record<string, { type?: unknown } | undefined>;

function propertiesOf(tool: ToolDescription): Props {
  const props = tool.inputSchema.properties;
  return props !== null && typeof props === 'object' ? (props as Props) : {};
}

function requiredOf(tool: ToolDescription): string[] {
  const req = tool.inputSchema.required;
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === 'string') : [];
}

const isType = (prop: { type?: unknown } | undefined, type: string) =>
  prop !== undefined && (prop.type === type || (Array.isArray(prop.type) && prop.type.includes(type)));

/**
 * The tool `ask` calls: the configured one, else a tool named `ask` (an NLWeb server's MCP face,
 * Appendix A), else the only tool. Throws INVALID_QUERY when none fits.
 */
export function pickAskTool(tools: ToolDescription[], mapping: McpAskMapping | undefined, agent: string): ToolDescription {
  const wanted = mapping?.tool ?? (tools.some((t) => t.name === 'ask') ? 'ask' : tools.length === 1 ? tools[0]!.name : undefined);
  const tool = wanted === undefined ? undefined : tools.find((t) => t.name === wanted);
  if (!tool) {
    const why = wanted === undefined ? 'it has several tools and no `ask.tool` is configured' : `it has no tool "${wanted}"`;
    throw new GatewayError('INVALID_QUERY', `Agent "${agent}" cannot answer questions: ${why}`);
  }
  return tool;
}

/**
 * Default arguments when no template is configured: the whole NLWeb request when the tool takes an
 * object `query` (NLWeb Appendix A), else the query text in the tool's text argument (a required
 * string property, preferring common names such as `query` or `q`).
 */
export function defaultArguments(tool: ToolDescription, request: AskRequest): Record<string, unknown> {
  const props = propertiesOf(tool);
  if (isType(props.query, 'object')) {
    const { query, context, prefer, meta } = request;
    return { query, ...(context ? { context } : {}), ...(prefer ? { prefer } : {}), ...(meta ? { meta } : {}) };
  }
  const strings = Object.keys(props).filter((k) => isType(props[k], 'string'));
  const required = requiredOf(tool).filter((k) => strings.includes(k));
  const pick =
    TEXT_ARG_NAMES.find((n) => required.includes(n)) ??
    required[0] ??
    TEXT_ARG_NAMES.find((n) => strings.includes(n)) ??
    strings[0] ??
    'query';
  return { [pick]: request.query.text };
}

/**
 * The ask as the upstream gets it (NLWeb 3.2, 3.4): `context.prev` from the gateway's conversation
 * when the client sent none, and `meta.session_context` replaced by what this upstream issued itself
 * — the client's belongs to the gateway's conversation and never goes upstream.
 */
export function upstreamRequest(request: AskRequest, conversation: CallContext['conversation']): AskRequest {
  const context = { ...request.context };
  if (context.prev === undefined && conversation && conversation.prev.length > 0) context.prev = [...conversation.prev];
  const meta = { ...request.meta };
  delete meta.session_context;
  if (conversation?.upstreamSession) meta.session_context = conversation.upstreamSession;
  return {
    query: request.query,
    ...(Object.keys(context).length > 0 ? { context } : {}),
    ...(request.prefer ? { prefer: request.prefer } : {}),
    ...(Object.keys(meta).length > 0 ? { meta } : {}),
  };
}

/** The upstream call for an ask: the tool and its rendered arguments (config template or default). */
export function buildAskCall(tools: ToolDescription[], mapping: McpAskMapping | undefined, request: AskRequest, agent: string): AskCall {
  const tool = pickAskTool(tools, mapping, agent);
  const args = mapping?.arguments ? renderTemplate(mapping.arguments, request) : defaultArguments(tool, request);
  return { tool: tool.name, arguments: args };
}

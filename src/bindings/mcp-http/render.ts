import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/server';
import type { ToolResult } from '../../core/agent.ts';
import { GatewayError, toGatewayError } from '../../base/errors.ts';
import { renderResponseText } from '../../core/render-text.ts';
import { failureFromError } from '../../core/responses.ts';
import { isPromise, type CanonicalResponse } from '../../protocol/nlweb/index.ts';

/**
 * NLWeb over MCP (Appendix A.3, C): the NLWeb response is the `structuredContent`, a readable text is
 * the `content`, `_meta` repeats `response_type`, `version` and `session_context`, and a `failure`
 * sets `isError`. A promise's text names its token so a model can call `await` with it.
 */
export function renderNlwebResult(response: CanonicalResponse): CallToolResult {
  let text = renderResponseText(response);
  if (isPromise(response)) {
    text += `\nCall the "await" tool with promise_token "${response.promise.token}" and action "checkin".`;
  }
  const { response_type, version, session_context } = response._meta;
  return {
    content: [{ type: 'text', text }],
    structuredContent: response as unknown as Record<string, unknown>,
    _meta: { response_type, version, ...(session_context ? { session_context } : {}) },
    ...(response_type === 'failure' ? { isError: true } : {}),
  };
}

/** A GatewayError as an NLWeb failure tool result (tool execution errors are results, MCP "Error Handling"). */
export function renderFailureResult(err: unknown): CallToolResult {
  return renderNlwebResult(failureFromError(toGatewayError(err)));
}

/** An agent's structured tool result as an MCP CallToolResult (content passed through as given). */
export function renderToolResult(result: ToolResult): CallToolResult {
  const structured = result.structured;
  const content = (result.content?.length ? result.content : undefined) ??
    (result.text !== undefined ? [{ type: 'text', text: result.text }] : structured !== undefined ? [{ type: 'text', text: JSON.stringify(structured) }] : []);
  return {
    content: content as CallToolResult['content'],
    ...(structured !== undefined ? { structuredContent: structured as Record<string, unknown> } : {}),
    ...(result.isError ? { isError: true } : {}),
  };
}

/** A structured tool call's failure: an upstream/tool error is a result with `isError` and a readable text. */
export function renderToolError(err: unknown): CallToolResult {
  const e = toGatewayError(err);
  return { content: [{ type: 'text', text: e.message }], isError: true };
}

/** A GatewayError as the JSON-RPC error of a request that is not a tool call (ERROR_TABLE `jsonrpc`). */
export function protocolError(err: unknown): ProtocolError {
  if (ProtocolError.isInstance(err)) return err;
  const e = err instanceof GatewayError ? err : toGatewayError(err);
  // An MCP upstream's error is relayed as it came: its code where the gateway's table has none of
  // its own to say, and its `data` (MCP "Error Handling"; SEP-2164 `data.uri`; -32021's capabilities).
  const upstream = upstreamJsonRpc(e);
  return new ProtocolError(upstream?.code ?? e.mapping.jsonrpc, e.message, upstream?.data);
}

/** The JSON-RPC error an MCP upstream answered with, when this error is one (adapters/mcp/errors.ts). */
export function upstreamJsonRpc(e: GatewayError): { code: number; data?: unknown } | undefined {
  const code = e.details?.jsonrpcCode;
  if (typeof code !== 'number') return undefined;
  return { code, ...(e.details?.jsonrpcData !== undefined ? { data: e.details.jsonrpcData } : {}) };
}

/** The JSON-RPC error for a `tools/call` of a name nothing publishes (MCP "Tools › Error Handling": -32602). */
export function unknownTool(name: string): ProtocolError {
  return new ProtocolError(-32602, `Unknown tool: ${name}`);
}

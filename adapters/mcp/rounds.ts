import { CLIENT_CAPABILITIES_META_KEY, isInputRequiredResult, type Client, type Tool } from '@modelcontextprotocol/client';
import type { ClientChannel } from '../../src/core/agent.ts';
import type { McpToolResult } from './result-mapping.ts';

/** A tool result, or the upstream's request for the client's input (2026-07-28 `input_required`). */
export type RoundResult = McpToolResult & { inputRequired?: { inputRequests: Record<string, unknown>; requestState?: string } };

/**
 * A `tools/call` between a 2026-07-28 client and a 2026-07-28 upstream, relayed round by round
 * (MCP 2026-07-28 multi-round-trip requests): the client's answers and the upstream's opaque
 * `requestState` go up unchanged, the client's declared capabilities ride in the request `_meta`,
 * and an `input_required` answer comes back to the client instead of being fulfilled here. The
 * gateway keeps nothing between rounds, so any replica serves the next one.
 */
export async function callInRounds(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown>,
  rounds: NonNullable<ClientChannel['rounds']>,
  options: { signal: AbortSignal; timeout: number; toolDefinition?: Tool },
): Promise<RoundResult> {
  const params = {
    name,
    arguments: args,
    ...(rounds.inputResponses ? { inputResponses: rounds.inputResponses } : {}),
    ...(rounds.requestState !== undefined ? { requestState: rounds.requestState } : {}),
    _meta: { ...meta, [CLIENT_CAPABILITIES_META_KEY]: rounds.capabilities },
  };
  // callTool: it mirrors x-mcp-header parameters into Mcp-Param-* headers (SEP-2243) from the definition.
  const result: unknown = await client.callTool(params as never, { ...options, allowInputRequired: true } as never);
  if (isInputRequiredResult(result)) {
    const r = result as { inputRequests?: Record<string, unknown>; requestState?: string };
    return { inputRequired: { inputRequests: r.inputRequests ?? {}, ...(r.requestState !== undefined ? { requestState: r.requestState } : {}) } };
  }
  return result as McpToolResult;
}

/** The requests besides `tools/call` whose result may be `input_required` on 2026-07-28 (SEP-2322). */
const ROUND_METHODS = new Set(['prompts/get', 'resources/read']);

/**
 * A passed-through `prompts/get` or `resources/read` of a 2026-07-28 client, relayed round by round
 * like `callInRounds` (SEP-2322 "InputRequiredResult is universal"): undefined when the request is
 * not one of those or the call carries no rounds (then it goes through unchanged).
 */
export async function forwardInRounds(
  client: Client,
  method: string,
  params: Record<string, unknown>,
  rounds: ClientChannel['rounds'],
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  if (!rounds || !ROUND_METHODS.has(method) || client.getProtocolEra() !== 'modern') return undefined;
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const sent = {
    ...params,
    ...(rounds.inputResponses ? { inputResponses: rounds.inputResponses } : {}),
    ...(rounds.requestState !== undefined ? { requestState: rounds.requestState } : {}),
    _meta: { ...meta, [CLIENT_CAPABILITIES_META_KEY]: rounds.capabilities },
  };
  const options = { signal, allowInputRequired: true } as never;
  const result: unknown = method === 'prompts/get' ? await client.getPrompt(sent as never, options) : await client.readResource(sent as never, options);
  if (!isInputRequiredResult(result)) return (result ?? {}) as Record<string, unknown>;
  const r = result as { inputRequests?: Record<string, unknown>; requestState?: string };
  return { resultType: 'input_required', inputRequests: r.inputRequests ?? {}, ...(r.requestState !== undefined ? { requestState: r.requestState } : {}) };
}

import type { CanonicalResponse } from '../protocol/nlweb/index.ts';
import type { ToolResult } from './agent.ts';
import type { Collected } from './collect.ts';
import { toGatewayError } from '../base/errors.ts';
import type { LocalRun } from './promise-contract.ts';
import { answerResponse, failureFromError } from './responses.ts';

/** The `@type` of the one result item a structured tool call's promise answers with. */
export const TOOL_RESULT_TYPE = 'nlgate:ToolResult';

/**
 * A structured tool call's result as the answer its promise settles with (NLWeb 4.1.2 promises
 * carry NLWeb responses): one result item holding the transport-neutral ToolResult as it came.
 */
export function toolResultAnswer(result: ToolResult): CanonicalResponse {
  return answerResponse([{ '@type': TOOL_RESULT_TYPE, toolResult: result as unknown as Record<string, unknown> }]);
}

/** The ToolResult a promise's answer carries (toolResultAnswer); undefined for any other response. */
export function toolResultOf(response: CanonicalResponse): ToolResult | undefined {
  if (response._meta.response_type !== 'answer') return undefined;
  const item = (response as { results?: Array<Record<string, unknown>> }).results?.[0];
  if (item?.['@type'] !== TOOL_RESULT_TYPE) return undefined;
  const result = item.toolResult;
  return result !== null && typeof result === 'object' ? (result as ToolResult) : undefined;
}

/**
 * A structured tool call running in the background as a LocalRun, so the promise service can adopt
 * it (the MCP tasks extension's tool tasks): a thrown error settles it as that error's failure.
 */
export function toolRun(call: (signal: AbortSignal) => Promise<ToolResult>): LocalRun {
  const controller = new AbortController();
  const done: Promise<Collected> = call(controller.signal).then(
    (result) => ({ response: toolResultAnswer(result) }),
    (err: unknown) => ({ response: failureFromError(toGatewayError(err)) }),
  );
  return { controller, done, onProgress: () => undefined };
}

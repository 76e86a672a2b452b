/**
 * A structured NLIP request for one of an agent's tools (issue 27): a `structured`/`json` submessage
 * labelled `tool` whose content is `{"name": "<tool>", "arguments": {...}}`. The tool is one the
 * agent publishes (an OpenAPI operation, a webtool action, an upstream MCP tool); the reply is the
 * tool's text, its structured value as a `structured`/`json` part labelled `result`, and an `error`
 * part (`TOOL_ERROR`) when the tool reports failure.
 */
import type { ToolResult } from '../../core/agent.ts';
import { errorPart, jsonPart, jsonParts, nlipMessage, textPart, type NlipMessage, type NlipPart } from '../../protocol/nlip/index.ts';

/** The label that marks a submessage as a tool call. */
export const TOOL_LABEL = 'tool';
/** The error code of a reply whose tool ran and reported failure. */
export const TOOL_ERROR_CODE = 'TOOL_ERROR';

/** A tool call read from a message: its name and arguments, or why the `tool` part is unusable. */
export type NlipToolCall = { name: string; arguments: Record<string, unknown> } | { problem: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The message's tool call (its first `tool`-labelled JSON part), or undefined when it has none. */
export function readToolCall(msg: NlipMessage): NlipToolCall | undefined {
  const part = jsonParts(msg).find((p) => p.label?.toLowerCase() === TOOL_LABEL);
  if (!part) return undefined;
  const v = part.value;
  if (!isObject(v) || typeof v.name !== 'string' || v.name === '') return { problem: 'The "tool" part must be a JSON object with a "name" (and optional "arguments" object).' };
  if (v.arguments !== undefined && !isObject(v.arguments)) return { problem: 'The "arguments" of the "tool" part must be a JSON object.' };
  return { name: v.name, arguments: (v.arguments as Record<string, unknown> | undefined) ?? {} };
}

/** A tool's result as the NLIP reply: text first, then the structured value, then the tokens. */
export function renderToolResult(result: ToolResult, tokens: NlipPart[], legacyControl: boolean): NlipMessage {
  const text = result.text ?? (result.structured !== undefined ? JSON.stringify(result.structured) : result.isError ? 'The tool failed.' : 'Done.');
  const parts: NlipPart[] = [];
  if (result.structured !== undefined) parts.push(jsonPart(result.structured, 'result'));
  if (result.isError) parts.push(errorPart('code', TOOL_ERROR_CODE));
  return nlipMessage(textPart(text), [...parts, ...tokens], { control: false, legacyControl });
}

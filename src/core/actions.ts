/**
 * NLWeb v0.55 section 5 "Actions": the structured tools of the agent that answered become actions on
 * its result items, so a client can act on an item through the gateway's webtool endpoint (HTTP) or
 * its MCP endpoint (MCP), whichever protocol it speaks.
 */
import type { Action, ResultItem } from '../protocol/nlweb/index.ts';
import type { PublishedTool } from './gateway-types.ts';
import { isSummaryItem } from './render-text.ts';

/** The gateway's own names for ask/await on the webtool surface; never offered as item actions. */
const RESERVED = new Set(['ask', 'await']);

type JsonType = 'string' | 'number' | 'integer' | 'boolean';

/** Whether a primitive value fits a JSON Schema `type` (or an untyped property). */
function fits(value: unknown, type: unknown): boolean {
  const t = typeof value;
  if (t !== 'string' && t !== 'number' && t !== 'boolean') return false;
  const types = (Array.isArray(type) ? type : type === undefined ? ['string', 'number', 'boolean'] : [type]) as JsonType[];
  return types.some((s) => (s === 'integer' ? Number.isInteger(value) : s === t));
}

/**
 * Arguments the item itself supplies: top-level properties of the tool's input schema that the item
 * has, with a value of the declared primitive type (e.g. a `name` or `url` the tool takes).
 */
export function prefillArguments(item: ResultItem, inputSchema: Record<string, unknown>): Record<string, unknown> {
  const props = inputSchema.properties;
  if (props === null || typeof props !== 'object') return {};
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(props as Record<string, unknown>)) {
    const value = (item as Record<string, unknown>)[key];
    const type = schema !== null && typeof schema === 'object' ? (schema as { type?: unknown }).type : undefined;
    if (value !== undefined && fits(value, type)) out[key] = value;
  }
  return out;
}

/**
 * NLWeb 5: returns `item` with one `HTTP` action (POST to `{publicUrl}/webtools/{agent}` with params
 * `{action, request}`) and one `MCP` action (`{publicUrl}/mcp`, the gateway's tool name) per tool.
 * Pure: the item is not changed; existing actions are kept; summary items get none.
 */
export function attachActions(item: ResultItem, agent: string, tools: readonly PublishedTool[], publicUrl: string): ResultItem {
  // Every tool of the agent: a cap here hid most of an MCP server's tools (issue 18: 5 of 16 shown).
  const usable = tools.filter((t) => t.agent === agent && !RESERVED.has(t.toolName));
  if (usable.length === 0 || isSummaryItem(item)) return item;
  const base = publicUrl.replace(/\/+$/, '');
  const existing = item.actions ?? [];
  const taken = new Set(existing.map((a) => `${a.protocol}\u0000${a.name}`));
  const added: Action[] = [];
  for (const tool of usable) {
    const args = prefillArguments(item, tool.inputSchema);
    const http: Action = {
      name: tool.toolName,
      description: tool.description,
      protocol: 'HTTP',
      method: 'POST',
      endpoint: `${base}/webtools/${encodeURIComponent(agent)}`,
      headers: { 'Content-Type': 'application/json' },
      params: { action: tool.toolName, request: args },
    };
    const mcp: Action = { name: tool.toolName, description: tool.description, protocol: 'MCP', server: `${base}/mcp`, tool: tool.name, arguments: args };
    for (const action of [http, mcp]) if (!taken.has(`${action.protocol}\u0000${action.name}`)) added.push(action);
  }
  return added.length === 0 ? item : { ...item, actions: [...existing, ...added] };
}

import type { ToolResult } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import type { Elicitation, PromiseInfo, ResultItem } from '../../src/protocol/nlweb/index.ts';

/** The parts of an MCP CallToolResult the gateway reads (spec "Tool Result"). */
export interface McpToolResult {
  content?: Array<Record<string, unknown>>;
  structuredContent?: unknown;
  isError?: boolean;
  /** The upstream asks the client first (2026-07-28 `input_required`, relayed round by round: rounds.ts). */
  inputRequired?: { inputRequests: Record<string, unknown>; requestState?: string };
}

/** Longest upstream tool message passed on as a failure message. */
const MAX_MESSAGE = 500;
/** `_meta` keys the gateway sets itself on its responses. */
const OWNED_META = new Set(['response_type', 'version', 'response_format', 'session_context', 'streaming']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The NLWeb response inside a tool result, if the tool is an NLWeb server's `ask` (Appendix A):
 * `structuredContent`, or a text item holding the JSON (Appendix C). `response_type` in any case.
 */
export function nlwebResponseIn(result: McpToolResult): Obj | undefined {
  const candidates: unknown[] = [result.structuredContent];
  for (const c of result.content ?? []) if (c.type === 'text' && typeof c.text === 'string' && c.text.trimStart().startsWith('{')) candidates.push(parseJson(c.text));
  for (const c of candidates) {
    if (isObj(c) && isObj(c._meta) && typeof c._meta.response_type === 'string') return c;
  }
  return undefined;
}

/** The text items of a result, joined. */
export function textOf(result: McpToolResult): string {
  return (result.content ?? [])
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n');
}

/** One content item as a schema.org-typed result item (NLWeb 4.1.1 asks for typed objects). */
export function contentItem(c: Obj): ResultItem | undefined {
  switch (c.type) {
    case 'text':
      return typeof c.text === 'string' && c.text.length > 0 ? { '@type': 'Answer', text: c.text } : undefined;
    case 'image':
    case 'audio':
      return typeof c.data === 'string' && typeof c.mimeType === 'string'
        ? { '@type': c.type === 'image' ? 'ImageObject' : 'AudioObject', contentUrl: `data:${c.mimeType};base64,${c.data}`, encodingFormat: c.mimeType }
        : undefined;
    case 'resource_link':
      return typeof c.uri === 'string' ? { '@type': 'CreativeWork', url: c.uri, ...(typeof c.name === 'string' ? { name: c.name } : {}), ...(typeof c.description === 'string' ? { description: c.description } : {}) } : undefined;
    case 'resource': {
      const r = isObj(c.resource) ? c.resource : undefined;
      if (!r || typeof r.uri !== 'string') return undefined;
      return { '@type': 'DigitalDocument', url: r.uri, ...(typeof r.text === 'string' ? { text: r.text } : {}), ...(typeof r.mimeType === 'string' ? { encodingFormat: r.mimeType } : {}) };
    }
    default:
      return undefined;
  }
}

/** Result items of a plain (non-NLWeb) tool result: a structured list if there is one, else its content. */
export function plainItems(result: McpToolResult): ResultItem[] {
  const sc = result.structuredContent;
  const list = Array.isArray(sc) ? sc : isObj(sc) ? [sc.results, sc.items].find(Array.isArray) : undefined;
  if (list) return list.filter(isObj).map((i) => ({ ...i }) as ResultItem);
  const fromContent = (result.content ?? []).map(contentItem).filter((i): i is ResultItem => i !== undefined);
  if (fromContent.length > 0) return fromContent;
  return isObj(sc) ? [{ '@type': 'StructuredValue', ...sc } as ResultItem] : [];
}

function metaOf(resp: Obj): Obj {
  return isObj(resp._meta) ? resp._meta : {};
}

/** The events an NLWeb response (from an upstream NLWeb-over-MCP `ask`) stands for. */
export function* nlwebEvents(resp: Obj): Generator<AgentEvent> {
  const meta = metaOf(resp);
  const extra = Object.fromEntries(Object.entries(meta).filter(([k]) => !OWNED_META.has(k)));
  yield Object.keys(extra).length > 0 ? { type: 'start', meta: extra } : { type: 'start' };
  switch (String(meta.response_type).toLowerCase()) {
    case 'answer': {
      const items = Array.isArray(resp.results) ? resp.results : Array.isArray(resp.structuredData) ? resp.structuredData : [];
      for (const item of items) if (isObj(item)) yield { type: 'result', item: item as ResultItem };
      break;
    }
    case 'elicitation':
      yield { type: 'elicitation', elicitation: (isObj(resp.elicitation) ? resp.elicitation : {}) as Elicitation };
      return;
    case 'promise':
      if (isObj(resp.promise) && typeof resp.promise.token === 'string') {
        yield { type: 'promise', promise: resp.promise as PromiseInfo };
        return;
      }
      yield { type: 'error', code: 'UPSTREAM_ERROR', message: 'The agent answered with a promise without a token' };
      return;
    case 'failure': {
      const err = isObj(resp.error) ? resp.error : {};
      yield { type: 'error', code: typeof err.code === 'string' ? err.code : 'INTERNAL_ERROR', message: typeof err.message === 'string' ? err.message.slice(0, MAX_MESSAGE) : 'The agent failed' };
      return;
    }
    default:
      yield { type: 'error', code: 'UPSTREAM_ERROR', message: 'The agent answered with an unknown response_type' };
      return;
  }
  const sc = meta.session_context;
  yield isObj(sc) ? { type: 'complete', meta: { session_context: sc } } : { type: 'complete' };
}

/** Maps the result of the tool behind `ask` to canonical events (NLWeb 4.1 from MCP "Tool Result"). */
export function* askEvents(result: McpToolResult): Generator<AgentEvent> {
  const nlweb = nlwebResponseIn(result);
  if (nlweb) {
    yield* nlwebEvents(nlweb);
    return;
  }
  yield { type: 'start' };
  if (result.isError) {
    const message = textOf(result).slice(0, MAX_MESSAGE) || 'The tool reported an error';
    yield { type: 'error', code: 'UPSTREAM_ERROR', message };
    return;
  }
  const items = plainItems(result);
  if (items.length === 0) {
    yield { type: 'error', code: 'NO_RESULTS', message: 'The tool returned nothing' };
    return;
  }
  for (const item of items) yield { type: 'result', item };
  yield { type: 'complete' };
}

/** Maps an upstream CallToolResult to the transport-neutral ToolResult, keeping content for MCP clients. */
export function toToolResult(result: McpToolResult): ToolResult {
  const text = textOf(result);
  return {
    ...(text ? { text } : {}),
    ...(result.structuredContent !== undefined ? { structured: result.structuredContent } : {}),
    content: (result.content ?? []).map((c) => ({ ...c })),
    ...(result.isError ? { isError: true } : {}),
    ...(result.inputRequired ? { inputRequired: result.inputRequired } : {}),
  };
}

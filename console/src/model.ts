/** Shapes the console shares between its protocol clients and its views. */
import type { CapturedExchange } from '../../src/console/capture.ts';

/** A schema.org item as NLWeb v0.55 results carry it. */
export type Item = Record<string, unknown> & { '@type'?: string | string[]; name?: string; url?: string; description?: string; score?: number };

export interface Question {
  id: string;
  text: string;
  type: string;
  options?: string[];
  default?: unknown;
}

export interface Elicitation {
  text?: string;
  questions?: Question[];
}

/**
 * One HTTP exchange between the browser and the gateway, as the browser saw it: the HTTP fields of an
 * upstream exchange (the body as it arrived, SSE events appended), plus the request id the gateway echoed.
 */
export type ClientExchange = Pick<CapturedExchange, 'method' | 'url' | 'requestHeaders' | 'requestBody' | 'status' | 'responseHeaders' | 'responseBody' | 'error'> & {
  requestId?: string;
};

/** One upstream exchange as /console/api/wire returns it (the server's own type; type-only). */

export type UpstreamExchange = CapturedExchange;

export type Protocol = 'nlweb-json' | 'nlweb-sse' | 'nlip' | 'mcp' | 'webtool' | 'nlweb-legacy';

export const PROTOCOLS: Array<{ id: Protocol; label: string }> = [
  { id: 'nlweb-json', label: 'NLWeb v0.55 JSON (POST /ask)' },
  { id: 'nlweb-sse', label: 'NLWeb v0.55 SSE (POST /ask, streamed)' },
  { id: 'nlip', label: 'NLIP (ECMA-430)' },
  { id: 'mcp', label: 'MCP tools/call ask' },
  { id: 'webtool', label: 'Webtool execute' },
  { id: 'nlweb-legacy', label: 'NLWeb REST GET /ask (legacy)' },
];

/** What a turn shows; protocol clients update it as the answer arrives. */
export interface TurnView {
  id: number;
  protocol: Protocol;
  agent: string;
  query: string;
  status: 'running' | 'promise' | 'done' | 'elicitation' | 'failed' | 'cancelled';
  summary?: string;
  results: Item[];
  promise?: { token: string; progress?: number; message?: string };
  elicitation?: Elicitation;
  failure?: { code: string; message?: string };
  exchanges: ClientExchange[];
  upstream?: UpstreamExchange[];
}

/** How the conversation continues, in each protocol's own way. */
export interface ConversationState {
  /** NLWeb / MCP / webtool: the `session_context` of the last answer. */
  sessionContext?: Record<string, unknown>;
  /** NLIP: the conversation token (ECMA-430 6.2). */
  nlipToken?: string;
  /** Webtool: the client-chosen `sessionId`. */
  webtoolSession?: string;
  /** Legacy REST: `conversation_id` and previous queries. */
  legacyConversationId?: string;
  prev: string[];
}

/** Hooks a protocol client calls while a turn runs. */
export interface TurnHooks {
  update(patch: Partial<TurnView>): void;
  /** Adds a result as it arrives. */
  addResult(item: Item): void;
  /** Records a new client exchange and returns it (mutated as the body arrives; call `changed`). */
  exchange(ex: ClientExchange): ClientExchange;
  changed(): void;
  /** Aborted when the user cancels or starts over. */
  signal: AbortSignal;
  /** The Authorization header value to send, if any. */
  authorization?: string;
  /** Resolves when the user presses Cancel on a promise. */
  cancelled: Promise<void>;
}

const SUMMARY_TYPES = new Set(['Summary', 'SearchSummary', 'Answer']);

/** True for the summary pseudo-item that NLWeb answers put first. */
export function isSummary(item: Item): boolean {
  const t = item['@type'];
  return typeof t === 'string' && SUMMARY_TYPES.has(t) && typeof item.text === 'string';
}

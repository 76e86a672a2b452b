import { isAnswer, isElicitation, isFailure, isPromise, type CanonicalResponse, type ResultItem } from '../protocol/nlweb/index.ts';

/** Summary item types (NLWeb 4.1.1: `SearchSummary` recommended; v0.54 clients use `Summary`). */
const SUMMARY_TYPES = new Set(['SearchSummary', 'Summary']);

/** True for a summary item rather than a result. */
export function isSummaryItem(item: ResultItem): boolean {
  return typeof item['@type'] === 'string' && SUMMARY_TYPES.has(item['@type']) && typeof item.text === 'string';
}

/**
 * One line for an item: its name (or title/text) and, briefly, its description. The separator is
 * ASCII, as is all the text the gateway adds: one character outside Latin-1 of ours made every
 * answer that carries this text a two-byte string in V8, and serializing and writing such an answer
 * cost an MCP `tools/call` 48 thousand instructions more (issue 25, docs/benchmarks.md).
 */
export function describeItem(item: ResultItem): string {
  const title = item.name ?? (typeof item.title === 'string' ? item.title : undefined) ?? item.text ?? item['@id'] ?? item.url ?? 'item';
  const desc = item.description ? ` - ${item.description.length > 160 ? `${item.description.slice(0, 157)}...` : item.description}` : '';
  return `${title}${desc}`;
}

/** A message as a sentence: ends with a full stop unless it already ends in punctuation. */
export function sentence(text: string): string {
  const t = text.trimEnd();
  return /[.!?…:;)]$/.test(t) || t.length === 0 ? t : `${t}.`;
}

/**
 * A readable text for a response, for people and models (ChatGPT app `content`, MCP text content,
 * NLIP text reply): the agent's summary when it gave one, else a short numbered list.
 */
export function renderResponseText(response: CanonicalResponse, maxItems = 5): string {
  if (isAnswer(response)) {
    const summary = response.results.find(isSummaryItem)?.text;
    const items = response.results.filter((r) => !isSummaryItem(r));
    if (summary) return summary;
    if (items.length === 0) return 'No results.';
    const lines = items.slice(0, maxItems).map((it, i) => `${i + 1}. ${describeItem(it)}`);
    const more = items.length > maxItems ? `\n(and ${items.length - maxItems} more)` : '';
    return `Found ${items.length} result${items.length === 1 ? '' : 's'}:\n${lines.join('\n')}${more}`;
  }
  if (isElicitation(response)) {
    const e = response.elicitation;
    const qs = (e.questions ?? []).map((q) => `- ${q.text}${q.options ? ` (${q.options.join(', ')})` : ''}`);
    return [e.text ?? 'More information is needed.', ...qs].join('\n');
  }
  if (isPromise(response)) {
    return `${sentence(response.promise.message ?? 'The agent is still working on it')} Check back with the promise token.`;
  }
  if (isFailure(response)) {
    const err = response.error;
    return `The request failed (${err.code})${err.message ? `: ${err.message}` : ''}`;
  }
  return '';
}

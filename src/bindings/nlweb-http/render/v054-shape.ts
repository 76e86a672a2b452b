import {
  isAnswer,
  type CanonicalResponse,
  type NlwebResponse,
  type ResultItem,
} from '../../../protocol/nlweb/index.ts';
import { isSummaryItem } from '../../../core/render-text.ts';
import { renderFormat } from './v055.ts';

/** The version a v0.54 answer states (v0.54 4 `_meta.version`). */
export const V054_VERSION = '0.54';

/** v0.54 4: `response_type` is `Answer | Elicitation | Promise | Failure` (capitalised). */
const RESPONSE_TYPES: Readonly<Record<string, string>> = {
  answer: 'Answer',
  elicitation: 'Elicitation',
  promise: 'Promise',
  failure: 'Failure',
};

/** A v0.54 `_meta`: the given fields with `response_type` capitalised and `version` 0.54. */
export function v054Meta(meta: Record<string, unknown>): Record<string, unknown> {
  const type = typeof meta.response_type === 'string' ? (RESPONSE_TYPES[meta.response_type] ?? meta.response_type) : 'Answer';
  return { ...meta, response_type: type, version: V054_VERSION };
}

/**
 * One result item as v0.54 clients read it (interop.md): the summary is `{"@type":"Summary","text"}`
 * (v0.55's `SearchSummary` is not recognised), and an item without `@id` takes its `url` as `@id`
 * (the official client drops items that have none).
 */
export function v054Item(item: ResultItem): ResultItem {
  if (isSummaryItem(item)) return { ...item, '@type': 'Summary' };
  if (item['@id'] === undefined && typeof item.url === 'string') return { '@id': item.url, ...item };
  return item;
}

/**
 * A whole canonical response in the v0.54 shape (4, 4.1): `_meta` capitalised, `results` (or, for
 * `chatgpt_app`, `content` + `structuredData`) with v0.54 items and the summary as a Summary item.
 */
export function toV054Response(response: CanonicalResponse, format: string | undefined): Record<string, unknown> {
  const rendered: NlwebResponse = renderFormat(response, format);
  const out: Record<string, unknown> = { ...rendered, _meta: v054Meta(rendered._meta) };
  if (isAnswer(response) && Array.isArray(out.results)) out.results = (out.results as ResultItem[]).map(v054Item);
  if (Array.isArray(out.structuredData)) out.structuredData = (out.structuredData as ResultItem[]).map(v054Item);
  return out;
}

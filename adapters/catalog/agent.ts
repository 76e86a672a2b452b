import { abortableDelay } from '../../src/core/delay.ts';
import type { Agent, AgentDescription, CallContext } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import type { AskRequest, ResultItem } from '../../src/protocol/nlweb/index.ts';
import { minScoreThreshold, parseModes, requestedResultCount, retrievalDepth, SCORE_MAX } from '../../src/protocol/nlweb/index.ts';
import { planQuery, SEARCH_BOUNDS } from './bounds.ts';
import { DEFAULT_MAX_RESULTS, RESULT_CAP } from './config.ts';
import { buildFilters } from './filters.ts';
import type { Catalog, CatalogEntry } from './load.ts';
import type { CatalogIndex, SearchHit } from './search.ts';
import { sharedIndex } from './shared.ts';
import { summarizeHits } from './summary.ts';
import { firstText, fold, isPlainObject } from './text.ts';

/** What the agent needs from its config (already validated and defaulted by the config loader). */
export interface CatalogAgentSettings {
  name: string;
  description?: string;
  maxResults?: number;
  minScore?: number;
  summarize?: boolean;
  delayMs?: number;
}

/** Keys every result item leads with (interop: the v0.54 client keeps items with `@type`, `@id`, `score`, `site`). */
const LEAD_KEYS = new Set(['@type', '@id', 'url', 'name', 'description', 'site', 'score', 'grounding']);

/** Indexed fields beyond name and description, as the derived description names them (when the items have them). */
const SEARCHED_EXTRAS: Array<[string, string]> = [
  ['keywords', 'keywords'],
  ['recipeIngredient', 'ingredients'],
  ['recipeCuisine', 'cuisine'],
  ['recipeCategory', 'category'],
  ['suitableForDiet', 'diet'],
  ['location', 'location'],
];

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * The embedded catalog agent (design.md "catalog"): full-text search over a schema.org file,
 * answered as an NLWeb v0.55 result stream (6.1): `start`, an optional SearchSummary, one `result`
 * per hit, `complete`; or `start`, `error` NO_RESULTS (4.1.4), `complete`.
 */
export class CatalogAgent implements Agent {
  readonly kind = 'catalog';
  readonly name: string;
  private readonly index: CatalogIndex;
  private readonly fields: ReadonlyMap<string, string>;

  constructor(
    private readonly settings: CatalogAgentSettings,
    private readonly catalog: Catalog,
  ) {
    this.name = settings.name;
    ({ index: this.index, fields: this.fields } = sharedIndex(catalog.entries));
  }

  /** Describes the catalog: item count and types, its sites, streaming and summaries. */
  async describe(): Promise<AgentDescription> {
    const itemTypes = [...new Set(this.catalog.entries.flatMap((e) => e.types))];
    const sites = [...new Set(this.catalog.entries.map((e) => e.site))];
    const n = this.catalog.entries.length;
    const searched = ['name', 'description', ...SEARCHED_EXTRAS.filter(([key]) => this.fields.has(key.toLowerCase())).map(([, label]) => label)];
    const description =
      this.settings.description ??
      `Search ${n} schema.org item${n === 1 ? '' : 's'} (${itemTypes.join(', ') || 'untyped'}) from ${this.catalog.name}` +
        ` by ${searched.slice(0, -1).join(', ')} and ${searched.at(-1)}; sites: ${sites.join(', ')}.`;
    return { description, sites, itemTypes, capabilities: { streaming: true, summarize: this.settings.summarize ?? true } };
  }

  /**
   * Answers an ask (NLWeb 3 request, 6 streaming): filters, ranks, pages, optionally summarises.
   * A follow-up is answered as its decontextualised query, stated on `start` as
   * `_meta.decontextualized_query` so the client can label it and page through it.
   */
  async *ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent> {
    const { signal } = ctx;
    if (signal.aborted) return;
    if (this.settings.delayMs) await abortableDelay(this.settings.delayMs, signal);
    if (signal.aborted) return;
    const query = request.query;
    const asked = typeof query?.text === 'string' ? query.text.trim() : '';
    if (asked.length === 0) {
      yield { type: 'start' };
      yield { type: 'error', code: 'INVALID_QUERY', message: 'query.text is required', recoverable: false };
      yield { type: 'complete' };
      return;
    }
    const filters = buildFilters(query, this.fields, this.name);
    const decontextualized = this.decontextualize(asked, request, ctx, filters.test);
    yield decontextualized === undefined ? { type: 'start' } : { type: 'start', meta: { decontextualized_query: decontextualized } };
    const text = decontextualized ?? asked;
    const min = minScoreThreshold(query.min_score) ?? minScoreThreshold(this.settings.minScore);
    const ranked = this.index.search(text, { filter: filters.test }).filter((h) => min === undefined || h.score >= min);
    // v0.54 clients ask for `max_results` at a time out of `num_results` ranked hits (interop.md).
    const hits = ranked.slice(0, positiveInt(retrievalDepth(query)) ?? ranked.length);
    const offset = Math.max(0, Math.trunc(Number(request.meta?.start_num ?? 0)) || 0);
    const limit = Math.min(positiveInt(requestedResultCount(query)) ?? this.settings.maxResults ?? DEFAULT_MAX_RESULTS, RESULT_CAP);
    const page = hits.slice(offset, offset + limit);
    ctx.log.debug({ hits: hits.length, shown: page.length, filters: filters.applied, ignored: filters.ignored }, 'catalog search');

    if (page.length === 0) {
      if (signal.aborted) return;
      yield { type: 'error', code: 'NO_RESULTS', message: this.noResultsMessage(text, hits.length, offset, filters.applied), recoverable: false };
      yield { type: 'complete' };
      return;
    }
    if ((this.settings.summarize ?? true) && parseModes(request.prefer?.mode).includes('summarize')) {
      if (signal.aborted) return;
      yield { type: 'result', item: { '@type': 'SearchSummary', text: summarizeHits(text, hits, page) } };
    }
    for (const hit of page) {
      if (signal.aborted) return;
      yield { type: 'result', item: this.toResultItem(hit) };
    }
    if (signal.aborted) return;
    yield { type: 'complete' };
  }

  /**
   * The query a follow-up stands for (NLWeb 3.2 `context.prev`): a decontextualised query the client
   * sends (the older REST API's `decontextualized_query`) is taken as is; otherwise a follow-up of one
   * meaningful word ("vegan?") joins the latest different earlier query ("vegan curry") when that
   * refines it: some item matches both. Otherwise ("curry", then "brownies") it is a new topic and
   * stands alone, as do longer queries. `prev` comes from the client, else from the gateway's conversation.
   */
  private decontextualize(text: string, request: AskRequest, ctx: CallContext, keep: (e: CatalogEntry) => boolean): string | undefined {
    const bounded = (s: string) => s.trim().slice(0, SEARCH_BOUNDS.maxQueryChars);
    const given = request.context?.decontextualized_query;
    if (typeof given === 'string' && given.trim().length > 0) return given.trim() === text ? undefined : bounded(given);
    if (text === '*' || planQuery(text).terms.length !== 1) return undefined;
    const prev = request.context?.prev ?? ctx.conversation?.prev ?? [];
    const own = fold(bounded(text));
    for (let i = prev.length - 1; i >= 0; i--) {
      const p = prev[i];
      if (typeof p !== 'string' || p.trim().length === 0 || fold(bounded(p)) === own) continue;
      const joined = bounded(`${text.replace(/[\p{P}\s]+$/u, '')} ${bounded(p)}`);
      // Only the best hit matching every term scores the full 100 (rank.ts).
      return this.index.search(joined, { filter: keep })[0]?.score === SCORE_MAX ? joined : undefined;
    }
    return undefined;
  }

  private noResultsMessage(text: string, total: number, offset: number, filters: string[]): string {
    if (total > 0) return `No more results: ${total} item(s) matched and start_num was ${offset}`;
    const by = filters.length > 0 ? ` with the filters on ${filters.join(', ')}` : '';
    return `No items in this catalog match "${text.slice(0, 80)}"${by}`;
  }

  /** A hit as a 4.1.1 result item: the schema.org item led by @type/@id/url/name/description/site/score, plus grounding. */
  private toResultItem(hit: SearchHit): ResultItem {
    const { item, site, types } = hit.entry;
    const id = firstText(item['@id']);
    const url = firstText(item.url);
    const lead: Record<string, unknown> = {
      '@type': types[0],
      '@id': id ?? url,
      url,
      name: firstText(item.name) ?? firstText(item.headline) ?? firstText(item.title),
      description: firstText(item.description),
      site,
      score: hit.score,
    };
    const rest = structuredClone(Object.fromEntries(Object.entries(item).filter(([k]) => !LEAD_KEYS.has(k))));
    const source = id ?? url;
    const grounding = {
      ...(isPlainObject(item.grounding) ? structuredClone(item.grounding) : {}),
      ...(source === undefined ? {} : { source }),
      catalog: this.catalog.name,
    };
    const out = Object.fromEntries(Object.entries({ ...lead, ...rest, grounding }).filter(([, v]) => v !== undefined));
    return out as ResultItem;
  }
}

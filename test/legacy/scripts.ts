/**
 * What each legacy NLWeb generation sends for a query, as a script of frames (interop.md "the older
 * REST API"). The test servers in legacy-server.ts play these scripts over SSE, as JSON, or through
 * the legacy `/mcp`. Queries containing a keyword pick a scenario:
 * `error`, `nothing` (no_results), `which` (ask_user), `eof` (early EOF), `slow` (700 ms before results),
 * `drip` (500 ms between results), `odd` (unknown frames), `crash` (HTTP 500 with an HTML page).
 */
export type Generation = 'A' | 'B' | 'C';
export type Frame = Record<string, unknown>;
export type Step = { frame: Frame } | { comment: string } | { delayMs: number };

/** The parameters a legacy server read from a request (after its own generation's rules). */
export interface LegacyQuery {
  query: string;
  site?: string;
  prev: string[];
  decontextualized_query?: string;
  generate_mode?: string;
  mode?: string;
  query_id?: string;
  conversation_id?: string;
}

export const SITES = ['seriouseats', 'npr podcasts'];

/** A schema.org recipe the way the reference server stores it: a JSON string of a one-item array. */
function schemaObject(name: string, n: number): string {
  return JSON.stringify([{ '@context': 'https://schema.org', '@type': 'Recipe', name, recipeYield: `${n + 2} servings`, recipeIngredient: ['pumpkin', 'cinnamon {1 tsp}'] }]);
}

/** The result items for a query: two, named after the (decontextualized) query. */
export function itemsFor(q: LegacyQuery, gen: Generation): Frame[] {
  const topic = q.decontextualized_query ?? q.query;
  return [1, 2].map((n) => ({
    ...(gen === 'C' ? { '@type': 'Item' } : {}),
    url: `https://www.seriouseats.com/${n}-${encodeURIComponent(topic)}`,
    name: `${topic} #${n}`,
    site: q.site ?? 'seriouseats',
    siteUrl: q.site ?? 'seriouseats',
    score: 90 - n * 5,
    description: `Ranked ${n} for "${topic}"`,
    schema_object: schemaObject(`${topic} #${n}`, n),
  }));
}

/** How the server decontextualizes: it joins the previous queries to the new one (a stand-in for its LLM). */
function decontextualize(q: LegacyQuery): string | undefined {
  if (q.decontextualized_query || q.prev.length === 0) return undefined;
  return `${q.prev.join(' / ')} / ${q.query}`;
}

/** The mode a generation acts on: A/B read `generate_mode`; C reads `mode`, but generates only on `generate_mode=generate`. */
function effectiveMode(q: LegacyQuery, gen: Generation): string {
  if (gen !== 'C') return q.generate_mode ?? 'list';
  if (q.generate_mode === 'generate') return 'generate';
  return q.mode ?? 'list';
}

const frame = (f: Frame): Step => ({ frame: f });

/** The script one generation plays for one query. */
export function scriptFor(q: LegacyQuery, gen: Generation): Step[] {
  const text = q.query.toLowerCase();
  const dq = decontextualize(q);
  const steps: Step[] = [{ comment: 'keepalive' }];
  const begin = gen === 'C' ? [frame({ message_type: 'begin-nlweb-response', conversation_id: q.conversation_id ?? 'srv-conv', query: q.query, timestamp: 1 })] : [];
  const end = (error = false) =>
    gen === 'C' ? [frame({ message_type: 'end-nlweb-response', conversation_id: q.conversation_id ?? 'srv-conv', ...(error ? { error: true } : {}) })] : [frame({ message_type: 'complete' })];
  steps.push(...begin);
  if (dq) steps.push(frame({ message_type: 'decontextualized_query', ...(gen === 'C' ? { decontextualized_query: dq, original_query: q.query } : { query: dq }) }));
  const scoped: LegacyQuery = dq ? { ...q, decontextualized_query: dq } : q;

  if (text.includes('error')) {
    const err = frame({ message_type: 'error', error: 'Traceback (most recent call last): KeyError /srv/nlweb/core.py', status: 500 });
    return gen === 'C' ? [...steps, ...end(true), err] : [...steps, err, ...end()];
  }
  if (text.includes('nothing')) return [...steps, frame({ message_type: 'no_results', message: 'No results found' }), ...end()];
  if (text.includes('which')) return [...steps, frame({ message_type: 'ask_user', message: 'Which kind of pie do you mean?' }), ...end()];
  if (text.includes('slow')) steps.push({ delayMs: 700 }, { comment: 'keepalive' });
  if (text.includes('odd')) steps.push(frame({ message_type: 'results_map', content: [{ url: 'https://map.example/1', name: 'not a result' }] }), frame({ message_type: 'asking_sites', message: 'Asking Serious Eats' }), { comment: 'keepalive' });

  const items = itemsFor(scoped, gen);
  // `drip` sends the second result 500 ms after the first: a client must see the first one before.
  const pause: Step[] = text.includes('drip') ? [{ delayMs: 500 }] : [];
  if (gen === 'C') steps.push(frame({ message_type: 'result', content: [items[0]] }), { comment: 'keepalive' }, ...pause, frame({ message_type: 'result', content: [items[1]] }));
  else if (pause.length > 0) steps.push(frame({ message_type: 'result_batch', results: [items[0]] }), ...pause, frame({ message_type: 'result_batch', results: [items[1]] }));
  else steps.push(frame({ message_type: 'result_batch', results: items, query_id: q.query_id ?? 'srv-qid' }));
  const mode = effectiveMode(q, gen);
  if (mode === 'summarize') {
    const summary = `Two recipes for ${scoped.decontextualized_query ?? q.query}.`;
    steps.push(gen === 'C' ? frame({ message_type: 'result', '@type': 'Summary', content: summary }) : frame({ message_type: 'summary', message: summary }));
  }
  if (mode === 'generate') steps.push(frame({ message_type: 'nlws', answer: 'Bake it for an hour.', items: [] }));
  if (text.includes('eof')) return steps; // early EOF: no complete / end-nlweb-response
  return [...steps, ...end()];
}

/** The non-streaming reply: the mid-2025 object, or the late-2025 array of messages. */
export function nonStreamingReply(q: LegacyQuery, gen: Generation): unknown {
  const frames = scriptFor(q, gen).flatMap((s) => ('frame' in s ? [s.frame] : []));
  if (gen === 'C') return [{ message_type: 'query', content: { query: q.query } }, ...frames.filter((f) => !String(f.message_type).includes('nlweb-response'))];
  const results = frames.flatMap((f) => (f.message_type === 'result_batch' ? (f.results as Frame[]) : []));
  const summary = frames.find((f) => f.message_type === 'summary');
  const reply: Frame = { query_id: q.query_id ?? 'srv-qid', results };
  if (summary) reply.summary = { message: summary.message };
  return reply;
}

/** `json.dumps` as Python writes it (", " and ": " separators, non-ASCII escaped): what the legacy `/mcp` concatenates. */
export function pyDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${pyDumps(k)}: ${pyDumps(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

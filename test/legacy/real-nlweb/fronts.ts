/**
 * One question through each front of a gateway standing before Microsoft's NLWeb server, and what
 * the client got, reduced to what the real server's answer should carry through: names, urls,
 * scores, the ranker's descriptions, schema.org types, the summary or generated answer, item
 * details, the conversation and the rewritten query. Shared by the interop check (real server)
 * and the replay test (recorded exchanges), so both ask exactly the same things.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parseSseText } from '../../support/http.ts';
import { readAsV054Client } from '../../support/nlweb-v054-client.ts';
import { a2aClient, asTask, send, textParts, dataParts, userMessage } from '../../a2a/support.ts';

/** What a client saw, in the terms the table and the assertions use. */
export interface Seen {
  items: Array<{ type?: string; name?: string; url?: string; score?: unknown; description?: string; site?: string; image?: unknown }>;
  /** The summary, the generated answer, or the NLIP/A2A text. */
  text?: string;
  conversation?: string;
  decontextualized?: string;
  /** Anything else worth a line in the table (errors, event names). */
  notes: string[];
}

type Item = Record<string, any>;

function itemsOf(list: unknown[]): Seen['items'] {
  return (list as Item[])
    .filter((i) => i && i['@type'] !== 'SearchSummary' && i['@type'] !== 'Summary')
    .map((i) => ({ type: i['@type'], name: i.name, url: i.url ?? i['@id'], score: i.score, description: i.description, site: i.site, image: i.image }));
}

function fromV055(body: Item): Seen {
  const results = (body.results ?? []) as Item[];
  const summary = results.find((r) => r['@type'] === 'SearchSummary');
  return {
    items: itemsOf(results),
    text: summary?.text,
    conversation: body._meta?.session_context?.conversation_id,
    decontextualized: body._meta?.decontextualized_query,
    notes: body.error ? [`error ${body.error.code}`] : [],
  };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

export interface Front {
  name: string;
  /** What NLWeb is asked directly for the same question (path and query string). */
  direct: string;
  /** The question through the gateway. */
  ask(gateway: string): Promise<Seen>;
  /** False where the server's answer has no scores (generate mode's items carry none). */
  scored?: false;
}

const Q = 'vegan chili';
const v055 = (agent: string, body: Item) => async (gw: string) => {
  const res = await post(`${gw}/agents/${agent}/ask`, { prefer: { streaming: false }, ...body });
  return fromV055((await res.json()) as Item);
};

async function v055Sse(gw: string, body: Item): Promise<Seen> {
  const res = await post(`${gw}/agents/nlweb/ask`, body, { accept: 'text/event-stream' });
  const frames = parseSseText(await res.text());
  const results = frames.filter((f) => f.event === 'result').map((f) => ((f.data as Item).item ?? f.data) as Item);
  const complete = frames.find((f) => f.event === 'complete')?.data as Item | undefined;
  const start = frames.find((f) => f.event === 'start')?.data as Item | undefined;
  const seen = fromV055({ results, _meta: { ...start?._meta, ...complete?._meta } });
  seen.notes.push(`events: ${[...new Set(frames.map((f) => f.event ?? 'message'))].join(',')}`);
  return seen;
}

async function twoTurns(gw: string, agent = 'nlweb'): Promise<Seen> {
  const first = (await (await post(`${gw}/agents/${agent}/ask`, { query: { text: 'pumpkin pie' }, prefer: { streaming: false } })).json()) as Item;
  const res = await post(`${gw}/agents/${agent}/ask`, { query: { text: 'vegan ones?' }, prefer: { streaming: false }, meta: { session_context: first._meta.session_context } });
  return fromV055((await res.json()) as Item);
}

async function oldClient(gw: string, params: string, agent = 'nlweb'): Promise<Seen> {
  const res = await fetch(`${gw}/agents/${agent}/ask?${params}`);
  const text = await res.text();
  const frames = text.trimStart().startsWith('{') ? [JSON.parse(text) as Item] : parseSseText(text).map((f) => f.data as Item);
  const seen: Seen = { items: [], notes: [] };
  for (const f of frames) {
    const content = Array.isArray(f.content) ? (f.content as Item[]) : [];
    if (f.message_type === 'result' && f['@type'] !== 'Summary') seen.items.push(...itemsOf(content.map((c) => ({ ...c, '@type': c.schema_object?.['@type'] ?? c['@type'] }))));
    if (f['@type'] === 'Summary') seen.text = String(f.content);
    if (f.message_type === 'begin-nlweb-response') seen.conversation = f.conversation_id;
    if (f.message_type === 'decontextualized_query') seen.decontextualized = f.decontextualized_query;
    if (Array.isArray(f.results)) seen.items.push(...itemsOf((f.results as Item[]).map((c) => ({ ...c, '@type': c.schema_object?.['@type'] }))));
    if (f.summary?.message) seen.text = f.summary.message;
    if (f.message_type === 'error' || f.error) seen.notes.push(`error ${f.code ?? f.error}`);
  }
  return seen;
}

async function nlip(gw: string): Promise<Seen> {
  const res = await post(`${gw}/agents/nlweb/nlip`, { messagetype: 'user', format: 'text', subformat: 'english', content: Q });
  const m = (await res.json()) as Item;
  const subs = (m.submessages ?? []) as Item[];
  return {
    items: itemsOf(subs.filter((s) => s.format === 'structured').map((s) => s.content)),
    text: typeof m.content === 'string' ? m.content : undefined,
    conversation: subs.find((s) => s.format === 'token' && s.subformat === 'conversation')?.content,
    notes: [],
  };
}

async function mcp(gw: string): Promise<Seen> {
  const client = new Client({ name: 'nlweb-interop', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw}/agents/nlweb/mcp`)));
  try {
    const r = await client.callTool({ name: 'ask', arguments: { query: { text: Q }, prefer: { mode: 'list, summarize' } } });
    return fromV055(r.structuredContent as Item);
  } finally {
    await client.close();
  }
}

async function a2a(gw: string): Promise<Seen> {
  const client = await a2aClient(`${gw}/a2a/nlweb/`);
  const task = asTask(await client.sendMessage(send(userMessage(Q))));
  return { items: itemsOf(dataParts(task)), text: textParts(task)[0], conversation: task.contextId, notes: [`state ${task.status?.state}`] };
}

async function webtool(gw: string): Promise<Seen> {
  const res = await post(`${gw}/webtools/nlweb`, { sessionId: 'interop-session-1', action: 'ask', request: { query: { text: Q } } });
  const body = (await res.json()) as Item;
  return { ...fromV055(body.data ?? {}), notes: [`status ${body.status}`] };
}

async function v054(gw: string): Promise<Seen> {
  const body = { query: { text: Q, site: 'all', max_results: 9, num_results: 50 }, prefer: { streaming: true, response_format: 'conv_search', mode: 'list, summarize' }, meta: { api_version: '0.54', start_num: 0 } };
  const view = await readAsV054Client(await (await post(`${gw}/agents/nlweb/ask`, body, { accept: 'text/event-stream' })).text());
  return {
    items: itemsOf(view.results),
    text: view.summary || undefined,
    decontextualized: view.decontextualizedQuery || undefined,
    notes: [...(view.dropped.length ? [`client dropped ${view.dropped.length}`] : []), ...view.failures.map((f) => `failure ${f}`), ...(view.badLines.length ? [`bad lines ${view.badLines.length}`] : [])],
  };
}

export const FRONTS: Front[] = [
  { name: 'v0.55 /ask JSON', direct: `/ask?query=${Q}&streaming=false`, ask: v055('nlweb', { query: { text: Q } }) },
  { name: 'v0.55 /ask SSE', direct: `/ask?query=${Q}`, ask: (gw) => v055Sse(gw, { query: { text: Q } }) },
  { name: 'v0.55 summarize', direct: `/ask?query=${Q}&generate_mode=summarize`, ask: v055('nlweb', { query: { text: Q }, prefer: { streaming: false, mode: 'list, summarize' } }) },
  { name: 'v0.55 site filter', direct: `/ask?query=pie&site=bakingbook`, ask: v055('nlweb', { query: { text: 'pie', site: 'bakingbook' } }) },
  { name: 'v0.55 two turns (prev)', direct: `/ask?query=vegan ones?&prev=pumpkin pie`, ask: twoTurns },
  { name: 'v0.55 item details', direct: `/ask?query=ingredients of Pumpkin Pie`, ask: v055('nlweb', { query: { text: 'ingredients of Pumpkin Pie' } }) },
  { name: 'v0.54 client (SSE)', direct: `/ask?query=${Q}&generate_mode=summarize`, ask: v054 },
  { name: 'NLIP', direct: `/ask?query=${Q}`, ask: nlip },
  { name: 'MCP tools/call', direct: `/ask?query=${Q}&generate_mode=summarize`, ask: mcp },
  { name: 'A2A message/send', direct: `/ask?query=${Q}`, ask: a2a },
  { name: 'webtools ask', direct: `/ask?query=${Q}`, ask: webtool },
  { name: 'old client GET /ask SSE', direct: `/ask?query=${Q}&generate_mode=summarize`, ask: (gw) => oldClient(gw, `query=${encodeURIComponent(Q)}&generate_mode=summarize`) },
  { name: 'old client GET /ask JSON', direct: `/ask?query=${Q}&streaming=false`, ask: (gw) => oldClient(gw, `query=${encodeURIComponent(Q)}&streaming=false`) },
  { name: 'old client generate', direct: `/ask?query=${Q}&generate_mode=generate`, ask: (gw) => oldClient(gw, `query=${encodeURIComponent(Q)}&generate_mode=generate`), scored: false },
  // The same server asked for its one-piece JSON (agent `streaming: false`).
  { name: 'upstream JSON summarize', direct: `/ask?query=${Q}&generate_mode=summarize&streaming=false`, ask: v055('nlweb-json', { query: { text: Q }, prefer: { streaming: false, mode: 'list, summarize' } }) },
  { name: 'upstream JSON two turns', direct: `/ask?query=vegan ones?&prev=pumpkin pie&streaming=false`, ask: (gw) => twoTurns(gw, 'nlweb-json') },
  { name: 'upstream JSON item details', direct: `/ask?query=ingredients of Pumpkin Pie&streaming=false`, ask: v055('nlweb-json', { query: { text: 'ingredients of Pumpkin Pie' } }) },
  { name: 'upstream JSON generate', direct: `/ask?query=${Q}&generate_mode=generate&streaming=false`, ask: (gw) => oldClient(gw, `query=${encodeURIComponent(Q)}&generate_mode=generate`, 'nlweb-json'), scored: false },
  { name: 'server /mcp (transport: mcp)', direct: `POST /mcp tools/call ask`, ask: v055('nlweb-mcp', { query: { text: Q }, prefer: { streaming: false, mode: 'list, summarize' } }) },
];

/** The gateway config that puts both of the server's APIs behind the gateway. */
export function gatewayAgents(url: string): Array<Record<string, unknown>> {
  return [
    { name: 'nlweb', kind: 'nlweb-legacy', url },
    { name: 'nlweb-json', kind: 'nlweb-legacy', url, streaming: false },
    { name: 'nlweb-mcp', kind: 'nlweb-legacy', url, transport: 'mcp' },
  ];
}

/** One cell of the table: what a client saw, in a line. */
export function describeSeen(s: Seen): string {
  const top = s.items[0];
  const parts = [`${s.items.length} items`];
  if (top) parts.push(`top ${top.type ?? '?'} "${top.name}" score ${top.score}${top.url ? '' : ' NO URL'}${top.description ? '' : ' NO DESCRIPTION'}`);
  if (s.text) parts.push(`text "${s.text.slice(0, 60)}"`);
  if (top?.description) parts.push(`description "${top.description.slice(0, 50)}"`);
  if (s.decontextualized) parts.push(`rewritten "${s.decontextualized}"`);
  if (s.conversation) parts.push('conversation');
  parts.push(...s.notes);
  return parts.join('; ');
}

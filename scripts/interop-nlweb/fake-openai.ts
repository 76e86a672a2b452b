/**
 * A deterministic stand-in for the OpenAI API, enough for Microsoft's NLWeb server to run end to
 * end without a model: `POST /v1/embeddings` and `POST /v1/chat/completions` (non-streaming, which
 * is all NLWeb's OpenAI provider asks for).
 *
 * Embeddings are a bag of hashed words, so a query lands near the recipes that share its words and
 * the vector search answers sensibly. Chat answers are built from the JSON shape NLWeb puts in the
 * system message ("Provide a valid JSON response matching this schema: {...}", one per prompt in
 * its config/prompts.xml and tools.xml): every key NLWeb reads gets a value of the kind its parser
 * expects, and the ranking score comes from word overlap so the answers differ per query.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';

/** NLWeb's conversation store and its index are sized for text-embedding-3-small. */
export const EMBEDDING_DIMENSIONS = 1536;

function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z]{3,}/g) ?? [];
}

export function embed(text: string): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const w of words(text)) {
    const h = createHash('sha256').update(w).digest();
    const a = h.readUInt32BE(0) % EMBEDDING_DIMENSIONS;
    const b = h.readUInt32BE(4) % EMBEDDING_DIMENSIONS;
    v[a] = v[a]! + 1;
    v[b] = v[b]! + 0.5;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  // A constant component keeps an empty text from being the zero vector (cosine of zero is NaN).
  return v.map((x, i) => (i === 0 ? x / norm + 0.01 : x / norm));
}

/** The first match of the patterns, trimmed of quotes and the prompt's trailing period. */
function pick(prompt: string, ...patterns: RegExp[]): string {
  for (const p of patterns) {
    const m = p.exec(prompt);
    if (m?.[1]) return m[1].replace(/^[\\"' ]+|[\\"'. ]+$/g, '');
  }
  return '';
}

function userQuery(prompt: string): string {
  return pick(
    prompt,
    /The user's query is:\s*(.+?)\.\s*\n/,
    /The user has the following query:\s*(.+?)\.\s*\n/,
    /The user's question is:\s*\\?"(.+?)\\?"/,
    /The user's question is:\s*(.+?)\.\s*\n/,
    /The user query is:\s*'(.+?)'/,
    /The user's query:\s*(.+?)\n/,
    /question:\s*'(.+?)'/,
  );
}

function previousQueries(prompt: string): string[] {
  const raw = pick(prompt, /Previous queries were:\s*(.+?)\.\s*\n/);
  if (!raw || raw === '[]') return [];
  const quoted = raw.match(/'([^']+)'|"([^"]+)"/g);
  return (quoted ?? [raw]).map((s) => s.replace(/^['"]|['"]$/g, '')).filter(Boolean);
}

function itemName(prompt: string): string {
  // NLWeb fills its prompts with Python reprs of the stored item: {'name': ['Pumpkin Pie'], ...}.
  return pick(prompt, /'name':\s*\[?'(.+?)'/, /\\?"name\\?":\s*\[?\\?"(.+?)\\?"/);
}

function overlapScore(query: string, text: string): number {
  const have = new Set(words(text));
  const hits = words(query).filter((w) => have.has(w)).length;
  return Math.min(95, 40 + 20 * hits);
}

const DETAILS = /\b(ingredients|how long|calories|instructions) (of|for|in)\b/i;

/** The JSON object answering one NLWeb prompt, keyed by what its schema asks for. */
export function answerFor(schema: Record<string, unknown>, prompt: string): Record<string, unknown> {
  const query = userQuery(prompt);
  const prev = previousQueries(prompt);
  const out: Record<string, unknown> = {};
  for (const [key, hint] of Object.entries(schema)) {
    const h = typeof hint === 'string' ? hint : '';
    if (/True or False/.test(h)) out[key] = 'False';
    else if (Array.isArray(hint)) out[key] = [];
    else if (/integer/.test(h)) out[key] = 50;
    else out[key] = '';
  }
  if ('requires_decontextualization' in schema || ('decontextualized_query' in schema && prev.length)) {
    const rewritten = prev.length ? `${query} (following ${prev.join(', ')})` : query;
    out.requires_decontextualization = prev.length ? 'True' : 'False';
    out.decontextualized_query = rewritten;
  } else if ('decontextualized_query' in schema) out.decontextualized_query = query;
  if ('rewritten_queries' in schema) {
    out.rewritten_queries = [query];
    out.query_count = 1;
  }
  if ('single_item_type_query' in schema) out.single_item_type_query = 'True';
  if ('item_type' in schema) out.item_type = 'Recipe';
  if ('score' in schema) {
    const tool = /whether (?:the |this )?([\w ]*?)tool is appropriate/.exec(prompt)?.[1]?.trim();
    if (tool !== undefined) {
      // Tool selection: search for everything but an explicit "ingredients of X", which NLWeb's
      // details tool answers with an item_details message.
      const details = DETAILS.test(query);
      out.score = /details/.test(tool) ? (details ? 95 : 10) : /search/.test(tool) ? (details ? 40 : 90) : 5;
      if ('item_name' in schema) out.item_name = query.replace(/^.*?\b(?:of|for|in)\s+/i, '');
      if ('details_requested' in schema) out.details_requested = DETAILS.exec(query)?.[1] ?? '';
    } else {
      const name = itemName(prompt);
      // Item matching (the details tool): only the item the user named matches.
      const wanted = pick(prompt, /looking for some details about:\s*(.+?)\n/).toLowerCase();
      out.score = 'item_details' in schema
        ? (wanted && name.toLowerCase() === wanted ? 95 : 10)
        : overlapScore(query, prompt.slice(Math.max(0, prompt.search(/schema\.org format is|item is:|Item description:/))));
      if ('description' in schema) out.description = `${name || 'This recipe'}: a match for "${query}".`;
      if ('item_details' in schema) out.item_details = `Details of ${name}: ${pick(prompt, /recipeIngredient\\?":\s*\[(.+?)\]/) || 'see the recipe'}`;
    }
  }
  if ('summary' in schema) out.summary = `Summary for "${query}": ${(prompt.match(/'name':/g) ?? []).length} recipes found.`;
  if ('answer' in schema) {
    const urls = [...new Set(prompt.match(/https?:\/\/[^\s"'\\,]+/g) ?? [])].slice(0, 3);
    out.answer = `An answer to "${query}" drawn from ${urls.length} recipes.`;
    out.urls = urls;
  }
  if ('description' in schema && !('score' in schema)) out.description = `Used in the answer to "${query}".`;
  if ('is_memory_request' in schema) out.is_memory_request = 'False';
  if ('site_is_irrelevant_to_query' in schema) out.site_is_irrelevant_to_query = 'False';
  if ('item_details_query' in schema) out.item_details_query = 'False';
  return out;
}

async function body(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

function schemaOf(messages: Array<{ role: string; content: string }>): Record<string, unknown> {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const at = system.indexOf('{');
  try {
    return at >= 0 ? JSON.parse(system.slice(at)) : {};
  } catch {
    return {};
  }
}

export interface FakeOpenAI {
  url: string;
  server: Server;
  /** How many calls of each kind it answered, for the run's report. */
  counts: { chat: number; embeddings: number };
  close(): Promise<void>;
}

export async function startFakeOpenAI(port = 0): Promise<FakeOpenAI> {
  const counts = { chat: 0, embeddings: 0 };
  const server = createServer(async (req, res) => {
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    try {
      const b = await body(req);
      if (req.url?.endsWith('/embeddings')) {
        counts.embeddings++;
        const inputs: string[] = Array.isArray(b.input) ? b.input : [b.input];
        return send(200, {
          object: 'list',
          model: b.model,
          data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: embed(String(t)) })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        });
      }
      if (req.url?.endsWith('/chat/completions')) {
        counts.chat++;
        const messages = b.messages ?? [];
        const prompt = messages.filter((m: any) => m.role === 'user').map((m: any) => m.content).join('\n') + '\n';
        const content = JSON.stringify(answerFor(schemaOf(messages), prompt));
        // FAKE_OPENAI_LOG=<file>: every prompt and answer, to see what NLWeb asked when a row fails.
        if (process.env.FAKE_OPENAI_LOG) appendFileSync(process.env.FAKE_OPENAI_LOG, JSON.stringify({ messages, content }) + '\n');
        return send(200, {
          id: `chatcmpl-${counts.chat}`,
          object: 'chat.completion',
          created: 0,
          model: b.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      }
      send(404, { error: { message: `no route ${req.url}` } });
    } catch (e) {
      send(500, { error: { message: String(e) } });
    }
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}/v1`,
    server,
    counts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

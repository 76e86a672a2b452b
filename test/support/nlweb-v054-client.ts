import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The official v0.54 browser client's own parsing (`@nlweb-ai/search-components` 0.1.10,
 * `src/lib/parseSchema.ts` and `useNlWeb`'s `handleStreamingResponse`), for tests that check the
 * gateway's v0.54 output is what that client accepts. `parseSchema` is loaded from the package's
 * published bundle itself (its zod schemas for Recipe, Movie, Article and Summary); the frame loop
 * below mirrors `handleStreamingResponse` line by line.
 */

const require = createRequire(import.meta.url);
const BUNDLE = require.resolve('@nlweb-ai/search-components').replace(/index\.js$/, 'index.mjs');

type ParseSchema = (data: unknown) => Record<string, unknown> | null;
let cached: ParseSchema | undefined;

/** The client's `parseSchema`, cut from its bundle (between its `util.ts` and `useNlWeb.ts` sections). */
export async function clientParseSchema(): Promise<ParseSchema> {
  if (cached) return cached;
  const source = readFileSync(BUNDLE, 'utf8');
  const start = source.indexOf('// src/lib/util.ts');
  const end = source.indexOf('// src/lib/useNlWeb.ts', start);
  if (start < 0 || end < 0) throw new Error(`Cannot find parseSchema in ${BUNDLE}`);
  const zod = pathToFileURL(require.resolve('zod')).href;
  const dir = mkdtempSync(join(tmpdir(), 'nlgate-v054-client-'));
  const file = join(dir, 'parse-schema.mjs');
  writeFileSync(file, `import { z } from ${JSON.stringify(zod)};\n${source.slice(start, end)}\nexport { parseSchema };\n`);
  try {
    const mod = (await import(pathToFileURL(file).href)) as { parseSchema: ParseSchema };
    cached = (data) => {
      const log = console.log;
      console.log = () => undefined; // the client logs every item it rejects
      try {
        return mod.parseSchema(data);
      } finally {
        console.log = log;
      }
    };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the client ends up with after reading a stream (its SearchResponse plus what it threw on). */
export interface ClientView {
  results: Array<Record<string, unknown>>;
  summary: string;
  decontextualizedQuery: string;
  /** Errors it raised for `Failure` frames. */
  failures: string[];
  /** `data:` lines it could not parse as JSON. */
  badLines: string[];
  /** Items of `results` arrays it dropped (parseSchema returned null). */
  dropped: unknown[];
}

/** `handleStreamingResponse` over a whole SSE text: the same line handling, in the same order. */
export async function readAsV054Client(sse: string): Promise<ClientView> {
  const parseSchema = await clientParseSchema();
  const view: ClientView = { results: [], summary: '', decontextualizedQuery: '', failures: [], badLines: [], dropped: [] };
  for (const line of sse.split('\n')) {
    if (!line.trim() || !line.startsWith('data: ')) continue;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(line.slice(6)) as Record<string, unknown>;
    } catch {
      view.badLines.push(line);
      continue;
    }
    const meta = data._meta as Record<string, unknown> | undefined;
    const error = data.error as { code?: string; message?: string } | undefined;
    if (meta) {
      if (meta.response_type === 'Failure' && error) {
        view.failures.push(`Error (${error.code}): ${error.message}`);
        continue; // the client throws here, inside its per-line try: the rest of the frame is skipped
      } else if (meta.decontextualized_query) {
        view.decontextualizedQuery = String(meta.decontextualized_query);
      }
    }
    if (Array.isArray(data.results)) {
      for (const result of data.results) {
        const parsed = parseSchema(result);
        if (!parsed) view.dropped.push(result);
        else if (parsed['@type'] == 'Summary') view.summary = String(parsed.text);
        else if (!view.results.some((r) => r['@id'] == parsed['@id'])) view.results.push(parsed);
      }
    }
  }
  view.results.sort((a, b) => (Number(b.score) || 0) - (Number(a.score) || 0));
  return view;
}

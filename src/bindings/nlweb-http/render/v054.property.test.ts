import fc from 'fast-check';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../core/events.ts';
import { V054FrameSchema } from '../../../protocol/nlweb/index.ts';
import { readAsV054Client } from '../../../../test/support/nlweb-v054-client.ts';
import { v054Wire } from './v054.ts';

/** Streams `events` through the real v0.54 renderer and returns the SSE text a client receives. */
async function render(events: AgentEvent[], format?: string): Promise<string> {
  const app = new Hono();
  app.get('/', (c) =>
    v054Wire.stream(
      c,
      { agent: 'a', conversationId: 'conv_x', sessionContext: { conversation_id: 'conv_x' }, events: (async function* () { yield* events; })() },
      { format, abort: new AbortController(), decorate: (item) => item },
    ),
  );
  return (await app.request('/')).text();
}

const text = fc.string({ maxLength: 30 });
const recipe = fc.record({
  '@type': fc.constant('Recipe'),
  '@id': fc.webUrl(),
  name: text,
  site: fc.constantFrom('quick-dinners', 'baking-corner'),
  score: fc.double({ min: 0, max: 100, noNaN: true }),
  description: text,
});
// Items the client has no schema for (other types, missing fields): dropped by it, never breaking it.
const looseItem = fc.record(
  { '@type': fc.constantFrom('Thing', 'Event', 'Place'), url: text, name: text, score: fc.integer(), site: text },
  { requiredKeys: [] },
);
const middle: fc.Arbitrary<AgentEvent> = fc.oneof(
  recipe.map((item) => ({ type: 'result' as const, item })),
  looseItem.map((item) => ({ type: 'result' as const, item })),
  text.map((t) => ({ type: 'result' as const, item: { '@type': 'SearchSummary', text: t } })),
  fc.record({ type: fc.constant('progress' as const), progress: fc.double({ min: 0, max: 1, noNaN: true }), message: text }),
  fc.record({ type: fc.constant('error' as const), code: fc.constantFrom('UPSTREAM_ERROR', 'X'), message: text, recoverable: fc.constant(true) }),
);
const ending: fc.Arbitrary<AgentEvent[]> = fc.oneof(
  fc.constant<AgentEvent[]>([]),
  fc.record({ type: fc.constant('error' as const), code: fc.constantFrom('NO_RESULTS', 'TIMEOUT', 'UPSTREAM_ERROR'), message: text, recoverable: fc.constant(false) }).map((e) => [e]),
  fc.record({ text }).map((elicitation) => [{ type: 'elicitation' as const, elicitation }]),
);
const stream = fc
  .tuple(fc.option(text.filter((t) => t.trim().length > 0), { nil: undefined }), fc.array(middle, { maxLength: 12 }), ending, fc.option(text.filter((t) => t.length > 0), { nil: undefined }))
  .map(([decontextualized, body, end, late]): AgentEvent[] => [
    decontextualized === undefined ? { type: 'start' } : { type: 'start', meta: { decontextualized_query: decontextualized } },
    ...body,
    ...end,
    late === undefined ? { type: 'complete' } : { type: 'complete', meta: { decontextualized_query: late } },
  ]);

describe('the official v0.54 client accepts every v0.54 frame the gateway emits (fast-check)', () => {
  it('parses every data: line, keeps every valid item and the summary, and sees failures as Failure', async () => {
    await fc.assert(
      fc.asyncProperty(stream, fc.constantFrom(undefined, 'conv_search', 'chatgpt_app'), async (events, format) => {
        const sse = await render(events, format);
        expect(sse).not.toMatch(/^event:/m);
        const view = await readAsV054Client(sse);
        expect(view.badLines).toEqual([]);
        for (const line of sse.split('\n').filter((l) => l.startsWith('data: '))) {
          expect(V054FrameSchema.safeParse(JSON.parse(line.slice(6))).success).toBe(true);
        }
        const first = JSON.parse(sse.split('\n')[0]!.slice(6));
        expect(first._meta).toMatchObject({ response_type: 'Answer', version: '0.54', session_context: { conversation_id: 'conv_x' } });
        const recipes = new Set(events.flatMap((e) => (e.type === 'result' && e.item['@type'] === 'Recipe' && typeof e.item['@id'] === 'string' ? [e.item['@id']] : [])));
        expect(new Set(view.results.map((r) => r['@id']))).toEqual(recipes);
        const summaries = events.flatMap((e) => (e.type === 'result' && e.item['@type'] === 'SearchSummary' ? [e.item.text] : []));
        expect(view.summary).toBe(summaries.at(-1) ?? '');
        const fatal = events.filter((e) => e.type === 'error' && !e.recoverable);
        expect(view.failures).toHaveLength(fatal.length);
        const start = events[0]!.type === 'start' ? (events[0]!.meta?.decontextualized_query as string | undefined) : undefined;
        const late = events.at(-1)!.type === 'complete' ? (events.at(-1) as { meta?: { decontextualized_query?: string } }).meta?.decontextualized_query : undefined;
        const ended = events.some((e) => e.type === 'elicitation' || (e.type === 'error' && !e.recoverable));
        expect(view.decontextualizedQuery).toBe((!ended && late) || start || '');
      }),
      { numRuns: 150 },
    );
  });
});

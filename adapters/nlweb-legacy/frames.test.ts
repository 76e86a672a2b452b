import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.ts';
import { ResultItemSchema } from '../../src/protocol/nlweb/index.ts';
import { LegacyFrameReader } from './frames.ts';

const item = (n: number) => ({ url: `https://ex.org/${n}`, name: `Item ${n}`, site: 'ex', score: 90 - n, description: 'd', schema_object: { '@type': 'Recipe', name: `Item ${n}` } });

function readAll(frames: unknown[]): { events: AgentEvent[]; reader: LegacyFrameReader; logged: string[] } {
  const logged: string[] = [];
  const reader = new LegacyFrameReader('old', (what, msg) => logged.push(`${what}:${msg}`));
  const events: AgentEvent[] = [];
  for (const f of frames) {
    events.push(...reader.push(f));
    if (reader.done) break;
  }
  if (!reader.done) events.push(...reader.finish());
  return { events, reader, logged };
}

describe('LegacyFrameReader, mid-2025 (A/B) frames', () => {
  it('turns result_batch into result events and stops at complete', () => {
    const { events, reader } = readAll([
      { message_type: 'decontextualized_query', query: 'pumpkin pie recipes' },
      { message_type: 'result_batch', results: [item(1), item(2)], query_id: 'q1' },
      { message_type: 'summary', message: 'Two pies.' },
      { message_type: 'complete' },
      { message_type: 'result_batch', results: [item(3)] },
    ]);
    expect(events.map((e) => e.type)).toEqual(['result', 'result', 'result']);
    expect(events[0]).toMatchObject({ item: { '@type': 'Recipe', '@id': 'https://ex.org/1', score: 89 } });
    expect(events[2]).toEqual({ type: 'result', item: { '@type': 'SearchSummary', text: 'Two pies.' } });
    expect(reader.decontextualizedQuery).toBe('pumpkin pie recipes');
    expect(reader.dialect).toBe('AB');
  });

  it('reads the later decontextualized_query frame field too', () => {
    const { reader } = readAll([{ message_type: 'decontextualized_query', decontextualized_query: 'dq', original_query: 'q' }]);
    expect(reader.decontextualizedQuery).toBe('dq');
  });

  it('ask_user is an elicitation and ends the answer', () => {
    const { events, reader } = readAll([{ message_type: 'ask_user', message: 'Which city?' }, { message_type: 'result_batch', results: [item(1)] }]);
    expect(events).toEqual([{ type: 'elicitation', elicitation: { text: 'Which city?' } }]);
    expect(reader.done).toBe(true);
  });

  it('no_results is a NO_RESULTS error event', () => {
    const { events } = readAll([{ message_type: 'no_results', message: 'nothing' }]);
    expect(events).toEqual([{ type: 'error', code: 'NO_RESULTS', message: 'No results matched the query' }]);
  });

  it('error frames become error events without the upstream text, which is logged instead', () => {
    const { events, logged } = readAll([{ message_type: 'error', error: 'Traceback: KeyError at /srv/app.py', status: 500 }]);
    expect(events).toEqual([{ type: 'error', code: 'UPSTREAM_ERROR', message: 'Agent "old" reported an error' }]);
    expect(JSON.stringify(events)).not.toContain('Traceback');
    expect(logged).toEqual(['error:Traceback: KeyError at /srv/app.py']);
    expect(readAll([{ message_type: 'error', error: 'slow down', status: 429 }]).events[0]).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('nlws (generate mode) gives the answer as a summary and its items', () => {
    const { events } = readAll([{ message_type: 'nlws', answer: 'Bake it.', items: [item(1)] }]);
    expect(events.map((e) => (e.type === 'result' ? e.item['@type'] : e.type))).toEqual(['SearchSummary', 'Recipe']);
  });
});

describe('LegacyFrameReader, late-2025 (C) frames', () => {
  it('reads result content arrays and Summary results between begin and end', () => {
    const { events, reader } = readAll([
      { message_type: 'begin-nlweb-response', conversation_id: 'c', query: 'q' },
      { message_type: 'result', content: [{ '@type': 'Item', ...item(1) }] },
      { message_type: 'result', '@type': 'Summary', content: 'One pie.' },
      { message_type: 'end-nlweb-response', conversation_id: 'c' },
    ]);
    expect(events).toHaveLength(2);
    expect(events[1]).toEqual({ type: 'result', item: { '@type': 'SearchSummary', text: 'One pie.' } });
    expect(reader.dialect).toBe('C');
    expect(reader.done).toBe(true);
  });

  it('an end-nlweb-response with error:true waits for the error frame that follows', () => {
    const { events } = readAll([
      { message_type: 'begin-nlweb-response' },
      { message_type: 'end-nlweb-response', error: true },
      { message_type: 'error', error: 'boom', status: 400 },
    ]);
    expect(events).toEqual([{ type: 'error', code: 'INVALID_QUERY', message: 'Agent "old" refused the query' }]);
  });

  it('an errored end whose error frame never comes still fails at EOF', () => {
    const { events } = readAll([{ message_type: 'end-nlweb-response', error: true }]);
    expect(events[0]).toMatchObject({ type: 'error', code: 'UPSTREAM_ERROR' });
  });

  it('EOF without a terminal frame is completion', () => {
    const { events, reader } = readAll([{ message_type: 'begin-nlweb-response' }, { message_type: 'result', content: [item(1)] }]);
    expect(events).toHaveLength(1);
    expect(reader.done).toBe(true);
  });
});

describe('LegacyFrameReader, envelopes and strays', () => {
  it('unwraps the mid-2025 /mcp function_stream_event and ends at function_stream_end', () => {
    const { events, reader } = readAll([
      { type: 'function_stream_event', content: { message_type: 'result_batch', results: [item(1)] } },
      { type: 'function_stream_event', content: { partial_response: 'x' } },
      { type: 'function_stream_end', status: 'success' },
    ]);
    expect(events).toHaveLength(1);
    expect(reader.done).toBe(true);
  });

  it('keeps unknown message types out of the results and goes on', () => {
    const { events, logged } = readAll([
      { message_type: 'results_map', content: [item(9)] },
      { message_type: 'asking_sites', message: 'Asking ex' },
      { message_type: 'result_batch', results: [item(1)] },
    ]);
    expect(events).toHaveLength(1);
    expect(logged).toEqual(['unknown:results_map']);
  });

  it('reads the non-streaming object shape (results + summary.message)', () => {
    const { events } = readAll([{ query_id: 'q', results: [item(1), item(2)], summary: { message: 'S' } }]);
    expect(events.map((e) => e.type)).toEqual(['result', 'result', 'result']);
    expect(events[0]).toMatchObject({ item: { '@type': 'SearchSummary', text: 'S' } });
  });
});

const frameArb = fc.oneof(
  fc.record({ message_type: fc.constantFrom('result_batch', 'result', 'summary', 'nlws', 'decontextualized_query', 'ask_user', 'no_results', 'error', 'complete', 'begin-nlweb-response', 'end-nlweb-response', 'weird'), results: fc.anything(), content: fc.anything(), message: fc.anything(), error: fc.anything(), status: fc.anything(), items: fc.anything(), answer: fc.anything() }, { requiredKeys: ['message_type'] }),
  fc.record({ type: fc.constantFrom('function_stream_event', 'function_stream_end', 'x'), content: fc.anything(), status: fc.anything() }),
  fc.anything(),
);

describe('LegacyFrameReader properties', () => {
  it('property: any frame sequence yields only well-formed events and never throws', () => {
    fc.assert(
      fc.property(fc.array(frameArb, { maxLength: 12 }), (frames) => {
        const { events } = readAll(frames);
        let terminal = 0;
        for (const e of events) {
          if (e.type === 'result') expect(ResultItemSchema.safeParse(e.item).success).toBe(true);
          else expect(['elicitation', 'error']).toContain(e.type);
          if (e.type !== 'result') terminal++;
        }
        // At most one terminal event, and it is the last one.
        expect(terminal).toBeLessThanOrEqual(1);
        if (terminal === 1) expect(events.at(-1)!.type).not.toBe('result');
      }),
      { numRuns: 400 },
    );
  });

  it('property: every item of a result_batch comes out, in order, as a typed result', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 99 }), { maxLength: 20 }), (scores) => {
        const results = scores.map((s, i) => ({ ...item(i), score: s }));
        const { events } = readAll([{ message_type: 'result_batch', results }, { message_type: 'complete' }]);
        expect(events.map((e) => (e.type === 'result' ? e.item.score : null))).toEqual(scores);
      }),
    );
  });
});

/** Frames as Microsoft's NLWeb server (commit 8612638) sends them (test/legacy/real-nlweb). */
describe('LegacyFrameReader, the real NLWeb server', () => {
  it('regression: generate mode sent its answer twice (nlws with items [] then with items) and the client got two summaries', () => {
    const { events } = readAll([
      { message_type: 'nlws', answer: 'Two chilis.', items: [], query_id: '' },
      { message_type: 'nlws', answer: 'Two chilis.', items: [item(1)], query_id: '' },
      { message_type: 'complete' },
    ]);
    expect(events.filter((e) => e.type === 'result' && e.item['@type'] === 'SearchSummary')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'result' && e.item['@type'] === 'Recipe')).toHaveLength(1);
  });

  it('regression: item_details frames (the details tool) were dropped as unknown; they are items with the details as description', () => {
    const { events, logged } = readAll([
      { message_type: 'tool_selection', selected_tool: 'details', score: 95 },
      { message_type: 'intermediate_message', message: 'Searching for Pumpkin Pie' },
      { message_type: 'item_details', name: 'Pumpkin Pie', details: 'pumpkin, sugar, eggs', score: 90, explanation: '', url: 'https://ex.org/pie', site: 'bakingbook', schema_object: { '@type': 'Recipe', name: 'Pumpkin Pie' } },
      { message_type: 'item_details', name: 'Pecan Pie', details: { ingredients: ['pecans'] }, score: 40, url: 'https://ex.org/pecan', schema_object: { '@type': 'Recipe' } },
      { message_type: 'complete' },
    ]);
    expect(events).toEqual([
      { type: 'result', item: { '@type': 'Recipe', '@id': 'https://ex.org/pie', url: 'https://ex.org/pie', name: 'Pumpkin Pie', site: 'bakingbook', description: 'pumpkin, sugar, eggs', score: 90 } },
      { type: 'result', item: expect.objectContaining({ name: 'Pecan Pie', description: '{"ingredients":["pecans"]}', score: 40 }) },
    ]);
    expect(logged).toEqual([]);
  });

  it('drops the deployment headers and retrieval counts on purpose, without logging them as unknown', () => {
    const { events, logged } = readAll([
      { message_type: 'retrieval_count', query: 'q', site: 'all', count: 30, requested_count: 50, query_id: '' },
      { message_type: 'license', content: 'MIT' },
      { message_type: 'data_retention', content: '1 day' },
      { message_type: 'ui_component', content: 'x' },
      { message_type: 'result_batch', results: [item(1)] },
      { message_type: 'complete' },
    ]);
    expect(events.map((e) => e.type)).toEqual(['result']);
    expect(logged).toEqual([]);
  });
});

describe('LegacyFrameReader, the real NLWeb server\'s non-streaming object', () => {
  const headers = { license: { message: 'MIT' }, data_retention: { message: '1 day' }, ui_component: { message: 'x' }, query_id: '' };

  it('regression: generate\'s answer (under "nlws") was not read from the object; it is the summary and its items', () => {
    const { events } = readAll([{ ...headers, nlws: { answer: 'Two chilis.', items: [item(1)] } }]);
    expect(events).toEqual([
      { type: 'result', item: { '@type': 'SearchSummary', text: 'Two chilis.' } },
      { type: 'result', item: expect.objectContaining({ '@type': 'Recipe', name: 'Item 1' }) },
    ]);
  });

  it('regression: item_details and the rewritten query under their keys were not read', () => {
    const { events, reader } = readAll([
      { ...headers, decontextualized_query: { decontextualized_query: 'pie (following soup)', original_query: 'pie' }, tool_selection: { selected_tool: 'details' }, item_details: { name: 'Pie', details: 'flour', url: 'https://ex.org/pie', score: 95, schema_object: { '@type': 'Recipe' } } },
    ]);
    expect(reader.decontextualizedQuery).toBe('pie (following soup)');
    expect(events).toEqual([{ type: 'result', item: expect.objectContaining({ name: 'Pie', description: 'flour', score: 95 }) }]);
  });

  it('reads results and the summary as before, and no header becomes a result', () => {
    const { events } = readAll([{ ...headers, asking_sites: { message: 'Asking A' }, results: [item(1), item(2)], summary: { message: 'Two.' } }]);
    expect(events.map((e) => (e.type === 'result' ? e.item['@type'] : e.type))).toEqual(['SearchSummary', 'Recipe', 'Recipe']);
  });
});

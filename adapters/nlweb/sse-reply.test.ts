import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.ts';
import { readSse, type SseMessage } from '../../src/protocol/sse.ts';
import { SseReplyMapper } from './sse-reply.ts';

const fixtureText = (path: string) => readFileSync(new URL(`../../test/fixtures/${path}`, import.meta.url), 'utf8');
const frame = (data: unknown, event?: string): SseMessage => ({ event, data: typeof data === 'string' ? data : JSON.stringify(data) });
const types = (events: AgentEvent[]) => events.map((e) => e.type);

/** Runs frames through a mapper and ends the stream, as the adapter does. */
function mapAll(frames: SseMessage[]): AgentEvent[] {
  const mapper = new SseReplyMapper('up');
  const out: AgentEvent[] = [];
  for (const f of frames) {
    out.push(...mapper.frame(f));
    if (mapper.done) return out;
  }
  return [...out, ...mapper.end()];
}

describe('SseReplyMapper: v0.55 named events (6.1)', () => {
  it('maps the B.4 stream: start, three results, complete with session_context', () => {
    const events = JSON.parse(fixtureText('nlweb-v055/b4-streaming.events.json')) as Array<{ event: string; data: unknown }>;
    const out = mapAll(events.map((e) => frame(e.data, e.event)));
    expect(types(out)).toEqual(['start', 'result', 'result', 'result', 'complete']);
    expect(out[0]).toEqual({ type: 'start', meta: { response_type: 'answer', version: '0.55' } });
    expect(out[1]).toMatchObject({ item: { '@type': 'SearchSummary' } });
    expect(out[4]).toMatchObject({ meta: { session_context: { conversation_id: 'conv_pasta_456' } } });
  });

  it('marks an error recoverable when the stream goes on after it', () => {
    const out = mapAll([
      frame({ _meta: { response_type: 'answer', version: '0.55' } }, 'start'),
      frame({ index: 0, item: { name: 'a' } }, 'result'),
      frame({ error: { code: 'TOKEN_LIMIT', message: 'skipped one' } }, 'error'),
      frame({ index: 1, item: { name: 'b' } }, 'result'),
      frame({ _meta: { response_type: 'answer', version: '0.55' } }, 'complete'),
    ]);
    expect(types(out)).toEqual(['start', 'result', 'error', 'result', 'complete']);
    expect(out[2]).toMatchObject({ code: 'TOKEN_LIMIT', recoverable: true });
  });

  it('marks an error final when complete or EOF follows it', () => {
    const withComplete = mapAll([frame({ error: { code: 'NO_RESULTS' } }, 'error'), frame({ _meta: {} }, 'complete')]);
    expect(types(withComplete)).toEqual(['start', 'error', 'complete']);
    expect(withComplete[1]).toMatchObject({ code: 'NO_RESULTS', recoverable: false });
    const withEof = mapAll([frame({ error: { code: 'NO_RESULTS' } }, 'error')]);
    expect(withEof[1]).toMatchObject({ recoverable: false });
  });

  it('ignores everything after complete and unknown event names', () => {
    const out = mapAll([frame({ n: 1 }, 'ping'), frame({ index: 0, item: { name: 'a' } }, 'result'), frame({ _meta: {} }, 'complete'), frame({ index: 1, item: { name: 'late' } }, 'result')]);
    expect(types(out)).toEqual(['start', 'result', 'complete']);
  });

  it('tolerates a bare item as result data', () => {
    expect(mapAll([frame({ name: 'bare', '@type': 'Thing' }, 'result')])[1]).toEqual({ type: 'result', item: { name: 'bare', '@type': 'Thing' } });
  });
});

describe('SseReplyMapper: v0.54 unnamed frames', () => {
  it('maps a real v0.54 stream (keepalives, result chunks, EOF = complete)', async () => {
    const body = new Response(fixtureText('nlweb-v054/stream.sse')).body!;
    const frames: SseMessage[] = [];
    for await (const m of readSse(body)) frames.push(m);
    const out = mapAll(frames);
    expect(types(out)).toEqual(['start', 'result', 'result', 'result', 'complete']);
    expect(out[0]).toMatchObject({ meta: { response_type: 'answer', version: '0.54' } });
    expect(out[4]).toMatchObject({ meta: { session_context: { conversation_id: 'conv_98765' } } });
  });

  it('maps an elicitation frame and an error frame', () => {
    expect(types(mapAll([frame({ _meta: { response_type: 'Elicitation' } }), frame({ elicitation: { text: 'Which?' } })]))).toEqual(['start', 'elicitation', 'complete']);
    const failed = mapAll([frame({ _meta: { response_type: 'Failure' } }), frame({ error: { code: 'NO_RESULTS', message: 'none' } })]);
    expect(types(failed)).toEqual(['start', 'error', 'complete']);
    expect(failed[1]).toMatchObject({ code: 'NO_RESULTS', recoverable: false });
  });

  it('reports a Failure _meta that never sends its error', () => {
    const out = mapAll([frame({ _meta: { response_type: 'Failure' } })]);
    expect(types(out)).toEqual(['start', 'error', 'complete']);
  });

  it('starts the answer even when results come before any _meta', () => {
    expect(types(mapAll([frame({ results: [{ name: 'a' }] }), frame({ _meta: { response_type: 'answer' } })]))).toEqual(['start', 'result', 'complete']);
  });
});

describe('SseReplyMapper: broken streams', () => {
  it('ends with INTERNAL_ERROR and complete on non-JSON data, after the delivered results', () => {
    const out = mapAll([frame({ results: [{ name: 'a' }] }), frame('<html>oops'), frame({ results: [{ name: 'never' }] })]);
    expect(types(out)).toEqual(['start', 'result', 'error', 'complete']);
    expect(out[2]).toMatchObject({ code: 'INTERNAL_ERROR', recoverable: false });
    expect((out[2] as { message: string }).message).toMatch(/not JSON/);
  });

  it('treats JSON that is not an object as garbage', () => {
    expect(types(mapAll([frame('[1,2]')]))).toEqual(['start', 'error', 'complete']);
  });

  it('reports an empty stream as an error', () => {
    expect(types(mapAll([]))).toEqual(['start', 'error', 'complete']);
  });

  it('broken() keeps what came, flushes a pending error as recoverable, and ends', () => {
    const mapper = new SseReplyMapper('up');
    const out = [
      ...mapper.frame(frame({ index: 0, item: { name: 'a' } }, 'result')),
      ...mapper.frame(frame({ error: { code: 'TOKEN_LIMIT' } }, 'error')),
      ...mapper.broken('INTERNAL_ERROR', 'cut'),
    ];
    expect(types(out)).toEqual(['start', 'result', 'error', 'error', 'complete']);
    expect(out[2]).toMatchObject({ code: 'TOKEN_LIMIT', recoverable: true });
    expect(out[3]).toMatchObject({ code: 'INTERNAL_ERROR', recoverable: false });
    expect(mapper.done).toBe(true);
    expect(mapper.end()).toEqual([]);
  });
});

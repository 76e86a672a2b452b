import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { ElicitationSchema, PromiseInfoSchema, ResultItemSchema } from '../../src/protocol/nlweb/index.ts';
import { mapJsonReply } from './json-reply.ts';
import { SseReplyMapper } from './sse-reply.ts';

/** Every event the mappers emit is one the gateway can render strictly. */
function expectValidEvents(events: AgentEvent[]): void {
  expect(events[0]?.type).toBe('start');
  expect(events.at(-1)?.type).toBe('complete');
  expect(events.filter((e) => e.type === 'start')).toHaveLength(1);
  expect(events.filter((e) => e.type === 'complete')).toHaveLength(1);
  for (const e of events) {
    if (e.type === 'result') expect(ResultItemSchema.safeParse(e.item).success).toBe(true);
    if (e.type === 'promise') expect(PromiseInfoSchema.safeParse(e.promise).success).toBe(true);
    if (e.type === 'elicitation') expect(ElicitationSchema.safeParse(e.elicitation).success).toBe(true);
    if (e.type === 'error') {
      expect(e.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(e.message.length).toBeGreaterThan(0);
    }
  }
  // A final (non-recoverable) error can only be followed by complete.
  const finalError = events.findIndex((e) => e.type === 'error' && e.recoverable === false);
  if (finalError >= 0) expect(events.slice(finalError + 1).every((e) => e.type === 'error' || e.type === 'complete')).toBe(true);
}

/** Values shaped like NLWeb replies, with every field allowed to be wrong. */
const loose = fc.oneof(fc.jsonValue(), fc.string(), fc.integer());
const replyish = fc.record(
  {
    _meta: fc.oneof(fc.record({ response_type: fc.constantFrom('answer', 'Answer', 'failure', 'Failure', 'promise', 'elicitation', 'odd'), version: loose, session_context: loose, api_version: loose }, { requiredKeys: [] }), loose),
    response_type: loose,
    results: fc.oneof(fc.array(fc.oneof(fc.dictionary(fc.constantFrom('@type', '@id', 'name', 'score', 'url', 'actions', 'grounding', 'text'), loose), loose)), loose),
    structuredData: fc.oneof(fc.array(fc.dictionary(fc.string(), loose)), loose),
    content: fc.oneof(fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text: loose })), loose),
    elicitation: fc.oneof(fc.record({ text: loose, questions: fc.array(fc.dictionary(fc.constantFrom('id', 'text', 'type', 'options'), loose)) }), loose),
    promise: fc.oneof(fc.record({ token: loose, estimated_time: loose, progress: loose, message: loose }, { requiredKeys: [] }), loose),
    error: fc.oneof(fc.record({ code: loose, message: loose }, { requiredKeys: [] }), loose),
  },
  { requiredKeys: [] },
);

describe('property: upstream JSON never crashes the mappers', () => {
  it('mapJsonReply yields valid events or throws a GatewayError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), replyish), (body) => {
        let events: AgentEvent[];
        try {
          events = mapJsonReply(body, 'prop');
        } catch (err) {
          expect(err).toBeInstanceOf(GatewayError);
          return;
        }
        expectValidEvents(events);
      }),
      { numRuns: 400 },
    );
  });

  it('SseReplyMapper turns any frame sequence into a valid event stream without throwing', () => {
    const frame = fc.record({
      event: fc.option(fc.constantFrom('start', 'result', 'error', 'complete', 'message', 'ping'), { nil: undefined }),
      data: fc.oneof(
        fc.jsonValue().map((v) => JSON.stringify(v)),
        replyish.map((v) => JSON.stringify(v)),
        fc.record({ index: fc.nat(), item: loose }).map((v) => JSON.stringify(v)),
        fc.string(),
      ),
    });
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 12 }), fc.boolean(), (frames, breakOff) => {
        const mapper = new SseReplyMapper('prop');
        const events: AgentEvent[] = [];
        for (const f of frames) {
          events.push(...mapper.frame(f));
          if (mapper.done) break;
        }
        events.push(...(breakOff ? mapper.broken('INTERNAL_ERROR', 'cut') : mapper.end()));
        expectValidEvents(events);
        expect(mapper.done).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});

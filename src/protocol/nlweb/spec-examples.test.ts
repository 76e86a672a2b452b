import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ActionSchema,
  AskRequestSchema,
  AwaitRequestSchema,
  CompleteEventSchema,
  ErrorEventSchema,
  NlwebResponseSchema,
  ResultEventSchema,
  StartEventSchema,
} from './index.ts';

/** The NLWeb v0.55 spec's own examples (Appendix B, sections 4-6), copied into test/fixtures. */
const dir = new URL('../../../test/fixtures/nlweb-v055/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
const load = (name: string): unknown => JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
const EVENT_SCHEMAS = { start: StartEventSchema, result: ResultEventSchema, error: ErrorEventSchema, complete: CompleteEventSchema };
/** The spec's 4.1.1 example uses `{"...": "..."}` as a placeholder action: not a valid action. */
const PLACEHOLDER = 's411-conversational-search.response.json';

describe('NLWeb v0.55 spec examples', () => {
  it('has every Appendix B example and the section 4-6 examples', () => {
    for (const name of [
      'b1-answer.request.json', 'b1-answer.response.json', 'b2-elicitation.request.json', 'b2-elicitation.response.json',
      'b3-promise.request.json', 'b3-promise.response.json', 'b3-promise.await.json', 'b4-streaming.request.json',
      'b4-streaming.events.json', 'b5-failure.request.json', 'b5-failure.response.json', 's411-chatgpt-app.response.json',
      's412-promise.response.json', 's413-elicitation.response.json', 's414-failure.response.json', 's42-await.await.json',
      's62-streaming.events.json',
    ]) {
      expect(files).toContain(name);
    }
  });

  it.each(files.filter((f) => f.endsWith('.request.json')))('%s parses with AskRequestSchema', (name) => {
    const parsed = AskRequestSchema.safeParse(load(name));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it.each(files.filter((f) => f.endsWith('.await.json')))('%s parses with AwaitRequestSchema', (name) => {
    expect(AwaitRequestSchema.safeParse(load(name)).success).toBe(true);
  });

  it.each(files.filter((f) => f.endsWith('.response.json') && f !== PLACEHOLDER))('%s validates with NlwebResponseSchema', (name) => {
    const parsed = NlwebResponseSchema.safeParse(load(name));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it('rejects the 4.1.1 example only for its placeholder action', () => {
    const body = load(PLACEHOLDER) as { results: Array<Record<string, unknown>> };
    expect(NlwebResponseSchema.safeParse(body).success).toBe(false);
    delete body.results[1]!.actions;
    expect(NlwebResponseSchema.safeParse(body).success).toBe(true);
  });

  it.each(files.filter((f) => f.endsWith('.events.json')))('%s: every SSE event validates with its 6.1 schema', (name) => {
    const events = load(name) as Array<{ event: keyof typeof EVENT_SCHEMAS; data: unknown }>;
    expect(events[0]?.event).toBe('start');
    expect(events.at(-1)?.event).toBe('complete');
    for (const e of events) expect(EVENT_SCHEMAS[e.event].safeParse(e.data).success).toBe(true);
  });

  it.each(files.filter((f) => f.endsWith('.item.json')))('%s: every section 5 action validates with ActionSchema', (name) => {
    const { actions } = load(name) as { actions: unknown[] };
    expect(actions.length).toBeGreaterThan(0);
    for (const a of actions) expect(ActionSchema.safeParse(a).success).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { mapJsonReply } from './json-reply.ts';

const fixture = (dir: 'nlweb-v055' | 'nlweb-v054', name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/${dir}/${name}`, import.meta.url), 'utf8'));
const types = (events: AgentEvent[]) => events.map((e) => e.type);
const pick = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

describe('mapJsonReply: v0.55 spec examples', () => {
  it('maps the B.1 answer to start, one result, complete, keeping extra _meta fields', () => {
    const events = mapJsonReply(fixture('nlweb-v055', 'b1-answer.response.json'), 'recipes');
    expect(types(events)).toEqual(['start', 'result', 'complete']);
    expect(pick(events, 'start')[0]!.meta).toMatchObject({ response_type: 'answer', version: '0.55', processing_time_ms: 145 });
    expect(pick(events, 'result')[0]!.item).toMatchObject({ '@type': 'Recipe', name: 'Veggie-Packed Scrambled Eggs' });
  });

  it('maps the ChatGPT App answer (4.1.1): content text becomes a SearchSummary, structuredData the results', () => {
    const events = mapJsonReply(fixture('nlweb-v055', 's411-chatgpt-app.response.json'), 'recipes');
    const items = pick(events, 'result').map((e) => e.item);
    expect(items[0]).toEqual({ '@type': 'SearchSummary', text: 'Here are protein-rich pumpkin recipes with cinnamon...' });
    expect(items[1]).toMatchObject({ '@type': 'Recipe', name: 'Pumpkin spice with coconut' });
    expect(pick(events, 'complete')[0]!.meta).toMatchObject({ 'openai/outputTemplate': 'https://example.com/recipe-widget' });
  });

  it('maps the B.2 elicitation with its three questions', () => {
    const events = mapJsonReply(fixture('nlweb-v055', 'b2-elicitation.response.json'), 'recipes');
    expect(types(events)).toEqual(['start', 'elicitation', 'complete']);
    expect(pick(events, 'elicitation')[0]!.elicitation.questions?.map((q) => q.id)).toEqual([
      'sauce_type', 'dietary_restrictions', 'cooking_time',
    ]);
  });

  it('maps the B.3 promise and keeps its session_context on complete', () => {
    const events = mapJsonReply(fixture('nlweb-v055', 'b3-promise.response.json'), 'recipes');
    expect(types(events)).toEqual(['start', 'promise', 'complete']);
    expect(pick(events, 'promise')[0]!.promise).toEqual({
      token: 'promise_mealplan_xyz789', estimated_time: 30, message: 'Analyzing your meal history and preferences...', progress: 0.1,
    });
    expect(pick(events, 'complete')[0]!.meta?.session_context).toEqual({ conversation_id: 'conv_meal_plan_789' });
  });

  it('maps the B.5 failure (HTTP 200) to a final error event', () => {
    const events = mapJsonReply(fixture('nlweb-v055', 'b5-failure.response.json'), 'recipes');
    expect(types(events)).toEqual(['start', 'error', 'complete']);
    expect(pick(events, 'error')[0]).toEqual({ type: 'error', code: 'NO_RESULTS', message: 'No recipes found matching your query.', recoverable: false });
  });

  it('keeps an item whose placeholder action is invalid, dropping only that action', () => {
    const events = mapJsonReply(fixture('nlweb-v055', 's411-conversational-search.response.json'), 'recipes');
    const items = pick(events, 'result').map((e) => e.item);
    expect(items).toHaveLength(3);
    expect(items[1]).toMatchObject({ name: 'Pumpkin spice with coconut', cookTime: 'PT30M' });
    expect(items[1]).not.toHaveProperty('actions');
  });
});

describe('mapJsonReply: v0.54 replies', () => {
  it('reads response_type "Answer" and api_version', () => {
    const events = mapJsonReply(fixture('nlweb-v054', 'answer-capitalised.response.json'), 'old');
    const start = pick(events, 'start')[0]!;
    expect(start.meta).toMatchObject({ response_type: 'answer', version: '0.54', session_context: { conversation_id: 'conv_98765' } });
    expect(start.meta).not.toHaveProperty('api_version');
    expect(pick(events, 'result')[0]!.item).toMatchObject({ '@id': 'https://example.com/r/1', score: 87, site: 'example.com' });
  });

  it('reads the 4.1.2 promise with response_type at the top level', () => {
    const events = mapJsonReply(fixture('nlweb-v054', 's412-promise.response.json'), 'old');
    expect(pick(events, 'promise')[0]!.promise).toEqual({ token: 'promise_xyz', estimated_time: 120 });
  });

  it('reads the 4.1.3 elicitation and the 4.1.4 failure without a version', () => {
    expect(types(mapJsonReply(fixture('nlweb-v054', 's413-elicitation.response.json'), 'old'))).toEqual(['start', 'elicitation', 'complete']);
    const failure = pick(mapJsonReply(fixture('nlweb-v054', 's414-failure.response.json'), 'old'), 'error')[0]!;
    expect(failure).toMatchObject({ code: 'NO_RESULTS', message: 'Ran out of tokens.' });
  });

  it.each(['Answer', 'ANSWER', 'answer'])('accepts response_type %s', (responseType) => {
    const events = mapJsonReply({ _meta: { response_type: responseType, version: '0.54' }, results: [{ name: 'x' }] }, 'old');
    expect(pick(events, 'start')[0]!.meta?.response_type).toBe('answer');
  });
});

describe('mapJsonReply: loose input, strict output', () => {
  it('reads a numeric-string score as a number and drops fields that cannot be fixed', () => {
    const events = mapJsonReply({ _meta: { response_type: 'answer', version: '0.55' }, results: [{ name: 'x', score: '87', url: 5 }, 'junk'] }, 'a');
    expect(pick(events, 'result').map((e) => e.item)).toEqual([{ name: 'x', score: 87 }]);
  });

  it('turns a failure without an error body into INTERNAL_ERROR', () => {
    const error = pick(mapJsonReply({ _meta: { response_type: 'Failure', version: '0.55' } }, 'a'), 'error')[0]!;
    expect(error).toMatchObject({ code: 'INTERNAL_ERROR', recoverable: false });
  });

  it('upper-cases failure codes and replaces ones that are not codes', () => {
    expect(pick(mapJsonReply({ error: { code: 'no_results' } }, 'a'), 'error')[0]!.code).toBe('NO_RESULTS');
    expect(pick(mapJsonReply({ error: { code: 'no results!' } }, 'a'), 'error')[0]!.code).toBe('INTERNAL_ERROR');
    expect(pick(mapJsonReply({ error: 'plain text failure' }, 'a'), 'error')[0]!.message).toBe('plain text failure');
  });

  it('reports a promise without a token as an error, not a promise', () => {
    const events = mapJsonReply({ _meta: { response_type: 'promise', version: '0.55' }, promise: { estimated_time: 3 } }, 'a');
    expect(types(events)).toEqual(['start', 'error', 'complete']);
  });

  it.each([42, 'text', null, [], {}, { foo: 1 }])('throws UPSTREAM_ERROR for %j, which is not an NLWeb reply', (body) => {
    expect(() => mapJsonReply(body, 'a')).toThrow(GatewayError);
    try {
      mapJsonReply(body, 'a');
    } catch (err) {
      expect((err as GatewayError).code).toBe('UPSTREAM_ERROR');
    }
  });
});

describe('mapJsonReply: regressions found by the property test', () => {
  it('regression: an estimated_time beyond a safe integer is dropped instead of emitting an invalid promise', () => {
    const events = mapJsonReply({ promise: { token: 't', estimated_time: 9007199254740992 } }, 'a');
    expect(pick(events, 'promise')[0]!.promise).toEqual({ token: 't' });
  });

  it('regression: a _meta.version object with a non-function toString does not crash', () => {
    const events = mapJsonReply(JSON.parse('{"_meta":{"version":{"toString":{}}},"results":[]}'), 'a');
    expect(pick(events, 'start')[0]!.meta).toEqual({});
  });
});

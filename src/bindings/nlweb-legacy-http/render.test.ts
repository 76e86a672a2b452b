import { describe, expect, it } from 'vitest';
import { answerResponse, elicitationResponse, failureResponse } from '../../core/responses.ts';
import { failureFrame, legacyItem, objectReply, resultFrame } from './render.ts';

const fc = { conversationId: 'conv_1', queryId: 'q1', site: 'recipes' };
const recipe = { '@type': 'Recipe', '@id': 'https://ex.org/pie', name: 'Pie', score: 0.9, description: 'd', recipeYield: '8' };

describe('late-2025 rendering', () => {
  it('renders an item as "@type":"Item" with the typed item as schema_object', () => {
    expect(legacyItem(recipe, fc)).toEqual({
      '@type': 'Item',
      url: 'https://ex.org/pie',
      name: 'Pie',
      site: 'recipes',
      siteUrl: 'recipes',
      score: 0.9,
      description: 'd',
      schema_object: recipe,
    });
  });

  it('renders results in content arrays and a summary as a Summary result', () => {
    expect(resultFrame(recipe, fc)).toMatchObject({ message_type: 'result', content: [{ name: 'Pie' }], conversation_id: 'conv_1', query_id: 'q1' });
    expect(resultFrame({ '@type': 'SearchSummary', text: 'S' }, fc)).toMatchObject({ message_type: 'result', '@type': 'Summary', content: 'S' });
  });

  it('renders NO_RESULTS as no_results and other failures as error frames with a status', () => {
    expect(failureFrame('NO_RESULTS', 'none', fc)).toMatchObject({ message_type: 'no_results', message: 'none' });
    expect(failureFrame('RATE_LIMITED', 'slow down', fc)).toMatchObject({ message_type: 'error', error: 'slow down', code: 'RATE_LIMITED', status: 429 });
    expect(failureFrame('WORKER_LOST', 'lost', fc)).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
  });

  it('the non-streaming object keys each message by its message_type', () => {
    const answer = objectReply(answerResponse([{ '@type': 'SearchSummary', text: 'S' }, recipe], { decontextualized_query: 'dq' }), 'q', fc);
    expect(answer).toMatchObject({ query: 'q', query_id: 'q1', results: [{ name: 'Pie' }], summary: { message: 'S' }, decontextualized_query: { decontextualized_query: 'dq' } });
    const ask = objectReply(elicitationResponse({ text: 'Which?', questions: [{ id: 'a', text: 'Size?', type: 'single_select', options: ['s', 'l'] }] }), 'q', fc);
    expect(ask.ask_user).toMatchObject({ message_type: 'ask_user', message: 'Which?\n- Size? (s, l)' });
    expect(objectReply(failureResponse('NO_RESULTS', 'none'), 'q', fc).no_results).toMatchObject({ message: 'none' });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ElicitationSchema, type Elicitation } from '../../protocol/nlweb/index.ts';
import { askWithAnswers, decodeElicitationState, elicitationForm, encodeElicitationState } from './elicitation.ts';

/** NLWeb v0.55 4.1.3's example. */
const DINNER: Elicitation = {
  text: "I'd love to help you find a great dinner recipe!",
  questions: [
    { id: 'dietary_restrictions', text: 'Do you have any dietary restrictions or preferences?', type: 'multi_select', options: ['vegetarian', 'vegan', 'none'] },
    { id: 'protein_type', text: 'What type of protein would you like?', type: 'single_select', options: ['chicken', 'tofu'] },
    { id: 'servings', text: 'How many servings?', type: 'number', default: 2 },
    { id: 'spicy', text: 'Spicy?', type: 'boolean' },
    { id: 'notes', text: 'Anything else?', type: 'free_text' },
  ],
};

describe('NLWeb elicitation as an MCP elicitation form', () => {
  it('maps each question type to a flat property keyed by its id', () => {
    expect(elicitationForm(DINNER)).toEqual({
      mode: 'form',
      message: DINNER.text,
      requestedSchema: {
        type: 'object',
        properties: {
          dietary_restrictions: { title: DINNER.questions![0]!.text, type: 'array', items: { type: 'string', enum: ['vegetarian', 'vegan', 'none'] } },
          protein_type: { title: 'What type of protein would you like?', type: 'string', enum: ['chicken', 'tofu'] },
          servings: { title: 'How many servings?', type: 'number', default: 2 },
          spicy: { title: 'Spicy?', type: 'boolean' },
          notes: { title: 'Anything else?', type: 'string' },
        },
      },
    });
  });

  it('folds accepted answers into the follow-up ask: text, context.answers and context.prev', () => {
    const next = askWithAnswers({ query: { text: 'I need something for dinner' }, context: { prev: ['lunch ideas'] } }, DINNER, {
      dietary_restrictions: ['vegan'],
      protein_type: 'tofu',
      unknown_field: 'ignored',
      notes: '',
    });
    expect(next.query.text).toBe('I need something for dinner (Do you have any dietary restrictions or preferences? vegan; What type of protein would you like? tofu)');
    expect(next.context).toEqual({ prev: ['lunch ideas', 'I need something for dinner'], answers: { dietary_restrictions: ['vegan'], protein_type: 'tofu' } });
  });

  it('leaves the request alone when nothing was answered', () => {
    const request = { query: { text: 'dinner' } };
    expect(askWithAnswers(request, DINNER, {})).toBe(request);
  });

  it('gives every question a property, whatever its id or type (property)', () => {
    const question = fc.record({ id: fc.string({ minLength: 1 }), text: fc.string(), type: fc.string(), options: fc.array(fc.string(), { minLength: 1 }) });
    fc.assert(
      fc.property(fc.uniqueArray(question, { selector: (q) => q.id }), (questions) => {
        const form = elicitationForm({ questions });
        expect(Object.keys(form.requestedSchema.properties).sort()).toEqual(questions.map((q) => q.id).sort());
        for (const p of Object.values(form.requestedSchema.properties)) expect(['string', 'array', 'number', 'boolean']).toContain(p.type);
      }),
    );
  });
});

describe('the requestState of an ask round (a 2026 client holds and echoes it)', () => {
  it('round-trips an elicitation', () => {
    expect(decodeElicitationState(encodeElicitationState(DINNER))).toEqual(DINNER);
  });

  it('never throws on what a client sends back, and yields only elicitations (property)', () => {
    const anyJson = fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString('base64url'));
    fc.assert(
      fc.property(fc.oneof(fc.string(), anyJson, fc.anything()), (state) => {
        const decoded = decodeElicitationState(state);
        if (decoded !== undefined) expect(ElicitationSchema.safeParse(decoded).success).toBe(true);
        // And what it yields is safe to answer: building the follow-up ask does not throw either.
        if (decoded !== undefined) askWithAnswers({ query: { text: 'q' } }, decoded, { any: 'answer' });
      }),
    );
  });
});

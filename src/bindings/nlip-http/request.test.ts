import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nlipMessage, textPart, tokenPart, jsonPart, binaryPart, toAttachment } from '../../protocol/nlip/index.ts';
import { AskRequestSchema, type AskRequest } from '../../protocol/nlweb/index.ts';
import { attachmentsNote, plainAsk, readAsk, readCredentials, withAttachments } from './request.ts';

describe('NLIP message → canonical ask', () => {
  it('joins the text parts into query.text and carries the conversation id', () => {
    const ask = readAsk(nlipMessage(textPart('soup'), [textPart('with leeks', { label: 'more' })]), { conversationId: 'conv_x', uploads: [] });
    expect(ask.request).toEqual({ query: { text: 'soup\nwith leeks' }, meta: { session_context: { conversation_id: 'conv_x' } } });
    expect(ask.notes).toEqual([]);
  });

  it('reads filters (unlabelled or any label) and context (label "context"), never replacing the question', () => {
    const msg = nlipMessage(textPart('q'), [
      jsonPart({ itemType: 'Recipe', text: 'not the question' }),
      jsonPart({ site: 'quick-dinners' }, 'filters'),
      jsonPart({ prev: ['earlier'], memory: 'vegan' }, 'Context'),
      jsonPart({ questions: [] }, 'elicitation'),
      jsonPart([1, 2], 'list'),
    ]);
    const ask = readAsk(msg, { uploads: [] });
    expect(ask.request.query).toEqual({ text: 'q', itemType: 'Recipe', site: 'quick-dinners' });
    expect(ask.request.context).toEqual({ prev: ['earlier'], memory: 'vegan' });
    expect(ask.notes).toEqual(['A structured/json part labelled "list" is not a JSON object and was not used.']);
  });

  it('regression: a structured/json {"query": ...} part is the question, not "message has no question" (issue 17)', () => {
    const plain = readAsk(nlipMessage(jsonPart({ query: 'vegan curry' })), { uploads: [] });
    expect(plain.text).toBe('vegan curry');
    expect(plain.request.query).toEqual({ text: 'vegan curry' });
    const nlweb = readAsk(nlipMessage(jsonPart({ query: { text: 'soup', site: 'quick-dinners' }, context: { prev: ['curry'] } })), { uploads: [] });
    expect(nlweb.request).toEqual({ query: { text: 'soup', site: 'quick-dinners' }, context: { prev: ['curry'] } });
    // Text parts stay the question; the structured query's filters still apply.
    const both = readAsk(nlipMessage(textPart('pasta'), [jsonPart({ query: { text: 'ignored', itemType: 'Recipe' } })]), { uploads: [] });
    expect(both.request.query).toEqual({ text: 'pasta', itemType: 'Recipe' });
    expect(readAsk(nlipMessage(jsonPart({ query: 42 })), { uploads: [] }).text).toBe('');
  });

  it('maps a text location to a string and GPS to schema.org GeoCoordinates', () => {
    const text = readAsk(nlipMessage(textPart('q'), [{ format: 'location', subformat: 'text', content: 'Idaho' }]), { uploads: [] });
    expect(text.request.query.location).toBe('Idaho');
    const gps = readAsk(nlipMessage(textPart('q'), [{ format: 'location', subformat: 'gps', content: { lat: 1, lon: 2 } }]), { uploads: [] });
    expect(gps.request.query.location).toEqual({ '@type': 'GeoCoordinates', latitude: 1, longitude: 2 });
  });

  it('collects binaries and uploads as attachments, and notes undecodable ones', () => {
    const upload = toAttachment('audio/wav', Buffer.from('abc'), 'memo.wav');
    const ask = readAsk(nlipMessage(textPart('q'), [binaryPart('image/png', Buffer.from([1, 2])), { format: 'binary', subformat: 'jpeg', content: '***' }]), { uploads: [upload] });
    expect(ask.attachments.map((a) => a.encodingFormat)).toEqual(['audio/wav', 'image/png']);
    expect(ask.notes).toEqual(['A binary part (jpeg) is not valid base64 and was not used.']);
    expect(withAttachments(ask.request, ask.attachments).context?.attachments).toHaveLength(2);
    expect(attachmentsNote('a', ask.attachments)).toBe('Agent "a" does not take binary content, so these parts were not passed on: memo.wav (audio/wav), image/png.');
  });

  it('reads credentials from the header first, else an authentication/authorization token', () => {
    const msg = nlipMessage(textPart('q'), [tokenPart('authorization', 'abc')]);
    expect(readCredentials('Bearer hdr', msg)).toEqual({ authorization: 'Bearer hdr' });
    expect(readCredentials(undefined, msg)).toEqual({ authorization: 'Bearer abc' });
    expect(readCredentials(undefined, nlipMessage(textPart('q'), [tokenPart('authentication', 'Basic eDp5')]))).toEqual({ authorization: 'Basic eDp5' });
    expect(readCredentials(undefined, nlipMessage(textPart('q')))).toBeUndefined();
  });
});

describe('the plain ask, without the schema (issue 25)', () => {
  it('is what AskRequestSchema gives back for the request with that question, whenever it answers (property)', () => {
    const text = fc.oneof(fc.string({ maxLength: 6 }), fc.tuple(fc.constantFrom(' ', '\n', '\u00a0', '\ufeff', ''), fc.string({ maxLength: 4 })).map(([w, t]) => `${w}${t}${w}`));
    const message = fc.tuple(fc.array(text, { minLength: 1, maxLength: 3 }), fc.option(fc.dictionary(fc.constantFrom('site', 'itemType', 'num_results', 'text'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })), fc.option(fc.constantFrom('conv_abc', 'conv_{id}')));
    let plain = 0;
    fc.assert(
      fc.property(message, text, ([texts, filters, conversation], stand) => {
        const msg = nlipMessage(textPart(texts[0]!), [...texts.slice(1).map((t) => textPart(t)), ...(filters ? [jsonPart(filters)] : [])]);
        const ask = readAsk(msg, { ...(conversation ? { conversationId: conversation } : {}), uploads: [] });
        const question = ask.text || stand;
        const fast = plainAsk(ask.request, question);
        if (!fast) return;
        plain++;
        const parsed = AskRequestSchema.safeParse({ ...ask.request, query: { ...ask.request.query, text: question } });
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 2000 },
    );
    expect(plain).toBeGreaterThan(100); // the property is about plain asks: enough of them were made
  });

  it('leaves filters, context and conversations to the schema', () => {
    const q = (more: Partial<AskRequest>, query: Record<string, unknown> = {}) => ({ query: { text: 'x', ...query }, ...more }) as AskRequest;
    expect(plainAsk(q({}), 'soup')).toStrictEqual({ query: { text: 'soup' } });
    expect(plainAsk(q({}), ' soup')).toBeUndefined();
    expect(plainAsk(q({}, { site: 'a' }), 'soup')).toBeUndefined();
    expect(plainAsk(q({ context: {} }), 'soup')).toBeUndefined();
    expect(plainAsk(q({ meta: { session_context: { conversation_id: 'conv_x' } } }), 'soup')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { nlipMessage, textPart, tokenPart, jsonPart, binaryPart, toAttachment } from '../../protocol/nlip/index.ts';
import { attachmentsNote, readAsk, readCredentials, withAttachments } from './request.ts';

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

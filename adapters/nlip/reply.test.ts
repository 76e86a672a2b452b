import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.ts';
import { nlipMessage, textPart, jsonPart, errorPart, tokenPart, uriPart, binaryPart } from '../../src/protocol/nlip/index.ts';
import { asksForAuthentication, replyEvents } from './reply.ts';
import { buildAskMessage } from './request.ts';

const events = (m: ReturnType<typeof nlipMessage>): AgentEvent[] => [...replyEvents(m, 'up', (t) => `packed:${t}`)];

describe('NLIP reply → canonical events', () => {
  it('text is a SearchSummary; json objects and arrays are items; other structured parts are data, not links to follow', () => {
    const ev = events(nlipMessage(textPart('Hello'), [jsonPart({ name: 'A', score: 1 }), jsonPart([{ name: 'B' }, 7], 'list'), uriPart('https://x.example/p'), jsonPart({ prev: [] }, 'context')]));
    expect(ev).toEqual([
      { type: 'start' },
      { type: 'result', item: { '@type': 'SearchSummary', text: 'Hello' } },
      { type: 'result', item: { name: 'A', score: 1 } },
      { type: 'result', item: { name: 'B' } },
      { type: 'result', item: { '@type': 'PropertyValue', name: 'list', value: 7 } },
      { type: 'result', item: { '@type': 'WebPage', url: 'https://x.example/p' } },
      { type: 'complete' },
    ]);
  });

  it('binary parts become MediaObjects with data: URLs', () => {
    const ev = events(nlipMessage(textPart('pic'), [binaryPart('image/png', Buffer.from([1]))]));
    expect(ev[2]).toMatchObject({ item: { '@type': 'MediaObject', encodingFormat: 'image/png', contentUrl: 'data:image/png;base64,AQ==' } });
  });

  it('a promise token is a promise with the packed token', () => {
    expect(events(nlipMessage(textPart('wait'), [tokenPart('promise', 'P')]))[1]).toEqual({ type: 'promise', promise: { token: 'packed:P', message: 'wait' } });
  });

  it('error parts without items are a failure; an unknown code becomes UPSTREAM_ERROR', () => {
    expect(events(nlipMessage(textPart('none'), [errorPart('code', 'NO_RESULTS')]))[1]).toEqual({ type: 'error', code: 'NO_RESULTS', message: 'none' });
    expect(events(nlipMessage(errorPart('code', 'E17'), [errorPart('text', 'broke')]))[1]).toEqual({ type: 'error', code: 'UPSTREAM_ERROR', message: 'broke' });
  });

  it('an empty reply is NO_RESULTS', () => {
    expect(events(nlipMessage(textPart('  ')))).toContainEqual({ type: 'error', code: 'NO_RESULTS', message: 'Agent "up" answered with an empty message' });
  });

  it('recognises a 6.5 request for authentication only in a control message', () => {
    expect(asksForAuthentication(nlipMessage(textPart('Please authenticate'), [], { control: true }))).toBe(true);
    expect(asksForAuthentication(nlipMessage(textPart('Authorization is a topic'), []))).toBe(false);
  });
});

describe('canonical ask → NLIP message', () => {
  it('puts the question first and echoes the upstream tokens last; context only while there is no token', () => {
    const tokens = [tokenPart('conversation_up', 'T')];
    const req = { query: { text: 'q', location: { latitude: 1, longitude: 2 } }, context: { prev: ['p'] } };
    expect(buildAskMessage(req, tokens, { withContext: false })).toEqual({
      format: 'text', subformat: 'english', content: 'q',
      submessages: [{ format: 'location', subformat: 'GPS', content: '1,2' }, ...tokens],
    });
    expect(buildAskMessage(req, [], { withContext: true }).submessages).toContainEqual(jsonPart({ prev: ['p'] }, 'context'));
  });
});

import fc from 'fast-check';
import { Message, SendMessageRequest } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { AskRequestSchema, inConversation } from '../../protocol/nlweb/index.ts';
import { askFromMessage, askOfText, messageText } from './request.ts';

/** Text with the whitespace `trim` removes, at the ends and inside. */
const text = fc.oneof(fc.string({ maxLength: 8 }), fc.tuple(fc.constantFrom(' ', '\n', '\t', '\u00a0', '\ufeff', '\u2028', ''), fc.string({ maxLength: 4 })).map(([w, s]) => `${w}${s}${w}`));

describe('a message as an ask (issue 25: the schema parses only what it may change)', () => {
  it('askOfText is what AskRequestSchema gives back for any trimmed, non-empty text (property)', () => {
    fc.assert(
      fc.property(text, (raw) => {
        const t = raw.trim();
        if (!t) return;
        const parsed = AskRequestSchema.safeParse({ query: { text: t } });
        expect(parsed.success).toBe(true);
        expect(askOfText(t)).toStrictEqual(parsed.data);
      }),
      { numRuns: 2000 },
    );
  });

  it('a message of text parts asks what the schema makes of its text, in its conversation or none (property)', () => {
    const parts = fc.array(text.map((t) => ({ text: t })), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(parts, fc.constantFrom(undefined, 'conv_abc'), (ps, conversation) => {
        const params = SendMessageRequest.fromJSON({ message: Message.toJSON(Message.fromJSON({ messageId: 'm', role: 'ROLE_USER', parts: ps })) });
        const question = messageText(params.message!);
        if (!question) {
          expect(() => askFromMessage(params, conversation)).toThrow(/no text part/);
          return;
        }
        const expected = AskRequestSchema.parse({ query: { text: question } });
        expect(askFromMessage(params, conversation)).toStrictEqual(conversation ? inConversation(expected, conversation) : expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('the fields of object data parts are still the schema\'s to judge', () => {
    const params = (data: unknown) => SendMessageRequest.fromJSON({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: ' soup ' }, { data }] } });
    expect(askFromMessage(params({ site: 'recipes', num_results: '3' }), undefined)).toStrictEqual({ query: { site: 'recipes', num_results: 3, text: 'soup' } });
    expect(askFromMessage(params([1]), undefined)).toStrictEqual({ query: { text: 'soup' } });
    expect(() => askFromMessage(params({ num_results: 'many' }), undefined)).toThrow(/not valid query filters/);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { placeholderProblem } from './placeholder.ts';
import { AskRequestSchema } from './request.ts';

describe('placeholder conversation ids (issue 13 item 9: a placeholder silently started a new conversation)', () => {
  it.each(['<conversation_id>', '', '  ', '$CONV', '${CONV}', '{{conversation_id}}', '[id]', 'PASTE_HERE', 'conv_PASTE_ID', 'YOUR_CONVERSATION_ID', 'xxxx', '...', 'null', 'undefined', 'conversation_id'])(
    'refuses %j, saying what to send instead',
    (id) => {
      expect(placeholderProblem(id)).toMatch(/looks like a placeholder.*leave it out to start a new conversation/);
      const parsed = AskRequestSchema.safeParse({ query: { text: 'q' }, meta: { session_context: { conversation_id: id } } });
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path).toEqual(['meta', 'session_context', 'conversation_id']);
    },
  );

  it('accepts every id the gateway mints (property)', () => {
    fc.assert(fc.property(fc.constant(null), () => placeholderProblem(`conv_${randomBytes(16).toString('base64url')}`) === undefined), { numRuns: 500 });
  });

  it('accepts ordinary client-chosen ids: letters, digits and separators that spell no placeholder (property)', () => {
    const id = fc.stringMatching(/^[a-z0-9][a-z0-9-]{15,40}$/).filter((s) => !/(^|-)(paste|your|replace|placeholder|changeme)(-|$)/.test(s));
    fc.assert(fc.property(id, (s) => placeholderProblem(s) === undefined));
  });

  it('never throws, whatever the string (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), (s) => {
      const problem = placeholderProblem(s);
      return problem === undefined || problem.startsWith(JSON.stringify(s));
    }));
  });
});

import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../base/errors.ts';
import { answerResponse, elicitationResponse, promiseResponse } from '../../core/responses.ts';
import { NlipMessageSchema, toWire } from '../../protocol/nlip/index.ts';
import { renderAuthRequest, renderError, renderResponse, renderUploadLocation } from './reply.ts';

const token = { format: 'token' as const, subformat: 'conversation', content: 'tok' };
const style = { tokens: [token], legacyControl: false };

describe('canonical response → NLIP reply', () => {
  it('answer: the summary as text, items as labelled json (summary item left out), tokens last', () => {
    const reply = renderResponse(answerResponse([{ '@type': 'SearchSummary', text: 'Two soups.' }, { name: 'A' }, { name: 'B' }]), style, ['A note.']);
    expect(toWire(reply)).toEqual({
      format: 'text', subformat: 'english', content: 'Two soups.\nA note.',
      submessages: [
        { format: 'structured', subformat: 'json', content: { name: 'A' }, label: 'result-1' },
        { format: 'structured', subformat: 'json', content: { name: 'B' }, label: 'result-2' },
        token,
      ],
    });
  });

  it('elicitation: its text and the questions', () => {
    const e = { text: 'Which?', questions: [{ id: 'q', text: 'Q?', type: 'free_text' }] };
    const reply = renderResponse(elicitationResponse(e), style);
    expect(reply.content).toBe('Which?\n- Q?');
    expect(reply.submessages?.[0]).toEqual({ format: 'structured', subformat: 'json', content: e, label: 'elicitation' });
  });

  it('promise: text saying it is working and a token with subformat "promise"', () => {
    const reply = renderResponse(promiseResponse({ token: 'prom_1', message: 'Working', progress: 0.5 }), style);
    expect(reply.content).toContain('Working');
    expect(reply.submessages?.slice(0, 2)).toEqual([
      { format: 'token', subformat: 'promise', content: 'prom_1' },
      { format: 'structured', subformat: 'json', content: { message: 'Working', progress: 0.5 }, label: 'promise' },
    ]);
  });

  it('failure: text and the NLWeb error code', () => {
    const reply = renderError(new GatewayError('RATE_LIMITED', 'Slow down'), style);
    expect(reply.content).toBe('The request failed (RATE_LIMITED): Slow down');
    expect(reply.submessages?.[0]).toEqual({ format: 'error', subformat: 'code', content: 'RATE_LIMITED' });
  });

  it('control replies are control messages (with the legacy flag for peers that used it)', () => {
    const auth = renderAuthRequest('locked', { tokens: [], legacyControl: true });
    expect(toWire(auth)).toMatchObject({ messagetype: 'control', control: true });
    const upload = renderUploadLocation('http://h/nlip/upload/', style);
    expect(upload.submessages?.[0]).toEqual({ format: 'structured', subformat: 'uri', content: 'http://h/nlip/upload/', label: 'upload' });
    for (const m of [auth, upload]) expect(NlipMessageSchema.safeParse(m).success).toBe(true);
  });
});

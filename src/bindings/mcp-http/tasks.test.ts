import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureResponse, promiseResponse } from '../../core/responses.ts';
import { TaskIdParamsSchema, stateOf } from './tasks.ts';

describe('stateOf (an NLWeb response as an MCP task status)', () => {
  it('maps a promise to working with its message and progress', () => {
    expect(stateOf(promiseResponse({ token: 'prm_x', message: 'cooking', progress: 0.4 }))).toEqual({ status: 'working', statusMessage: 'cooking (40%)' });
    expect(stateOf(promiseResponse({ token: 'prm_x' }))).toEqual({ status: 'working' });
  });

  it('maps CANCELLED to cancelled, any other failure to failed, everything else to completed', () => {
    expect(stateOf(failureResponse('CANCELLED', 'stopped')).status).toBe('cancelled');
    expect(stateOf(failureResponse('NO_RESULTS', 'none')).status).toBe('failed');
    expect(stateOf({ _meta: { response_type: 'answer', version: '0.55' }, results: [] } as never).status).toBe('completed');
    expect(stateOf({ _meta: { response_type: 'elicitation', version: '0.55' }, elicitation: { text: 'which?' } } as never).status).toBe('completed');
  });

  it('always yields one of the 2025-11-25 statuses for any failure code', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (code, message) => {
        expect(['failed', 'cancelled']).toContain(stateOf(failureResponse(code, message)).status);
      }),
    );
  });
});

describe('TaskIdParamsSchema', () => {
  it('accepts exactly the params with a non-empty string taskId', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const ok = TaskIdParamsSchema.safeParse(value).success;
        const expected = value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as { taskId?: unknown }).taskId === 'string' && (value as { taskId: string }).taskId.length > 0;
        expect(ok).toBe(expected);
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { GatewayError } from '../base/errors.ts';
import { answerResponse, failureResponse } from './responses.ts';
import { toolResultAnswer, toolResultOf, toolRun } from './tool-promises.ts';

describe('tool promises (a structured tool call as a gateway promise)', () => {
  it('a tool result survives the round trip through its promise answer, input_required included', () => {
    const result = { content: [{ type: 'text', text: 'hi' }], isError: true, inputRequired: { inputRequests: { a: { method: 'elicitation/create' } }, requestState: 's' } };
    expect(toolResultOf(toolResultAnswer(result))).toEqual(result);
  });

  it('any other response carries no tool result', () => {
    expect(toolResultOf(answerResponse([{ '@type': 'Recipe', name: 'x' }]))).toBeUndefined();
    expect(toolResultOf(failureResponse('INTERNAL_ERROR', 'boom'))).toBeUndefined();
  });

  it('a call that throws settles as its failure, and the run can be aborted', async () => {
    let seen: AbortSignal | undefined;
    const run = toolRun(async (signal) => {
      seen = signal;
      throw new GatewayError('UPSTREAM_ERROR', 'the tool could not run');
    });
    const { response } = await run.done;
    expect(response._meta.response_type).toBe('failure');
    expect((response as { error: { message: string } }).error.message).toBe('the tool could not run');
    run.controller.abort();
    expect(seen?.aborted).toBe(true);
  });
});

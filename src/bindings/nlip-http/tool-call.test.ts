import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NlipMessage } from '../../protocol/nlip/index.ts';
import { readToolCall, renderToolResult } from './tool-call.ts';

const withPart = (content: unknown, label = 'tool'): NlipMessage =>
  ({ format: 'text', subformat: 'english', content: 'x', submessages: [{ format: 'structured', subformat: 'json', label, content }] }) as NlipMessage;

describe('NLIP structured tool requests', () => {
  it('reads {name, arguments} from the part labelled "tool" (any case); none without one', () => {
    expect(readToolCall(withPart({ name: 'getProduct', arguments: { id: 1 } }, 'Tool'))).toEqual({ name: 'getProduct', arguments: { id: 1 } });
    expect(readToolCall(withPart({ name: 'ping' }))).toEqual({ name: 'ping', arguments: {} });
    expect(readToolCall(withPart({ name: 'x' }, 'filters'))).toBeUndefined();
    expect(readToolCall(withPart({ arguments: {} }))).toMatchObject({ problem: expect.stringContaining('"name"') });
    expect(readToolCall(withPart({ name: 'x', arguments: [1] }))).toMatchObject({ problem: expect.stringContaining('"arguments"') });
  });

  it('property: any part content gives a call, a problem or nothing, never a throw', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (content) => {
        const r = readToolCall(withPart(content));
        if (r && 'name' in r) expect(typeof r.arguments).toBe('object');
      }),
    );
  });

  it('renders the result: text, the structured value labelled "result", TOOL_ERROR on a failure', () => {
    const ok = renderToolResult({ text: 'found', structured: { a: 1 } }, [], false);
    expect(ok).toMatchObject({ format: 'text', content: 'found', submessages: [{ format: 'structured', subformat: 'json', label: 'result', content: { a: 1 } }] });
    const failed = renderToolResult({ isError: true, text: 'HTTP 404' }, [], false);
    expect(failed.submessages).toEqual([{ format: 'error', subformat: 'code', content: 'TOOL_ERROR' }]);
  });
});

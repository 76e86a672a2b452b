import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerResponse, elicitationResponse, failureResponse, promiseResponse, withSessionContext } from '../../core/responses.ts';
import { checkedToolResult, legacyCodec, ownToolResult } from './legacy-codec.ts';
import { renderNlwebResult } from './render.ts';

const codec = legacyCodec!;
/** What the SDK's tools/call seam answers for a result: the codec's validation, then its encoding. */
function sdkSeam(result: unknown): string {
  const checked = codec.validateResult('tools/call', result);
  return checked.ok ? JSON.stringify(codec.encodeResult('tools/call', checked.value)) : `invalid: ${checked.message}`;
}

const json = fc.jsonValue({ maxDepth: 3 });
const item = fc.dictionary(fc.constantFrom('@type', 'name', 'url', 'score', '0', '__proto__', 'description'), json, { maxKeys: 5 });
const meta = fc.dictionary(fc.constantFrom('session_context', 'agent', '1', 'progressToken', 'io.modelcontextprotocol/related-task', '__proto__', 'x'), json, { maxKeys: 3 });
/** NLWeb responses of every kind, with extra `_meta` (and hostile keys) where the core allows it. */
const response = fc.oneof(
  fc.tuple(fc.array(item, { maxLength: 4 }), meta).map(([items, m]) => answerResponse(items as never, m as never)),
  fc.tuple(fc.string(), fc.string(), meta).map(([code, message, m]) => failureResponse(code || 'X', message, m as never)),
  fc.string({ minLength: 1 }).map((token) => promiseResponse({ token } as never)),
  fc.constant(elicitationResponse({ text: 'Which?', questions: [{ id: 'q', text: 'Q?', type: 'free_text' }] } as never)),
);

describe('the SDK 2025 codec as the session fast path uses it (issue 25)', () => {
  it('the SDK release offers the 2025 codec (else the session fast path is off)', () => {
    expect(legacyCodec?.era).toBe('2025-11-25');
  });

  it('an ask or await result is taken as it is, with exactly the text the codec\'s validation gives (property)', () => {
    fc.assert(
      fc.property(response, fc.option(fc.dictionary(fc.string(), json, { maxKeys: 2 })), (r, context) => {
        const result = renderNlwebResult(context ? withSessionContext(r, context) : r);
        const own = ownToolResult(result);
        if (own) expect(JSON.stringify(codec.encodeResult('tools/call', own))).toBe(sdkSeam(result));
        expect(JSON.stringify(checkedToolResult(codec, result))).toBe(sdkSeam(result));
      }),
      { numRuns: 500 },
    );
  });

  it('the plain renderings the fast path answers are taken without the validation', () => {
    for (const r of [answerResponse([{ '@type': 'Recipe', name: 'Pasta' }] as never), failureResponse('NO_RESULTS', 'nothing'), promiseResponse({ token: 'prm_x' } as never)]) {
      expect(ownToolResult(renderNlwebResult(r))).toBeDefined();
    }
  });

  it('anything else goes through the codec: other shapes, and what its schema would change or refuse', () => {
    const shapes = [
      { content: [{ text: 'x', type: 'text' }] }, // member order the schema rebuilds
      { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] },
      { content: [{ type: 'text', text: 'x' }], structuredContent: JSON.parse('{"__proto__":{"a":1},"b":2}') },
      { content: [{ type: 'text', text: 'x' }], _meta: { progressToken: 1 } },
      { content: [{ type: 'text', text: 'x' }], extra: 1 },
      { content: 'x' },
      { content: [{ type: 'text', text: 'x' }], isError: 'yes' },
    ];
    for (const s of shapes) {
      expect(ownToolResult(s)).toBeUndefined();
      let seen: string;
      try {
        seen = JSON.stringify(checkedToolResult(codec, s));
      } catch (err) {
        seen = `invalid: ${(err as Error).message.replace(/^Invalid tools\/call result: /, '')}`;
      }
      expect(seen).toBe(sdkSeam(s));
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NLIP_FORMATS, parseNlipText } from '../../protocol/nlip/index.ts';
import { plainNlipMessage } from './plain-message.ts';
import { expectRecogniserAgrees, jsonOrUndefined, PROTO_KEY, withOwnProto } from '../../../test/support/recogniser-property.ts';


const value = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string({ maxLength: 3 }), fc.constant([]), fc.constant({}), fc.constant([1, 'a']));
const content = fc.oneof(fc.string({ maxLength: 8 }), fc.dictionary(fc.constantFrom('a', 'query', PROTO_KEY, '1'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }));
/** Valid parts, each member drawn from what the wire schema takes as it is: the accepted side of the property. */
const plainPart = fc.record({ format: fc.constantFrom(...NLIP_FORMATS), subformat: fc.string({ maxLength: 6 }), content, label: fc.string({ maxLength: 3 }) }, { requiredKeys: ['format', 'content'] });
const plainMessage = fc
  .tuple(plainPart, fc.option(fc.array(plainPart, { maxLength: 3 })), fc.option(fc.constantFrom('control', 'Control', 'data', '')))
  .map(([first, subs, messagetype]) => ({ ...first, ...(subs === null ? {} : { submessages: subs }), ...(messagetype === null ? {} : { messagetype }) }));

type Json = Record<string, unknown>;
/** One change at the edge of what the schema takes as it is. */
const edits: fc.Arbitrary<(m: Json) => void>[] = [
  fc.constantFrom('format', 'subformat', 'content', 'label', 'messagetype', 'submessages', 'control', 'x', PROTO_KEY).chain((k) => value.map((v) => (m: Json) => void (m[k] = v))),
  fc.constantFrom('TEXT', ' text', 'Structured', 'video', '').map((v) => (m: Json) => void (m.format = v)),
  fc.constantFrom('Format', 'SUBFORMAT', 'Content', 'Label', 'MessageType', 'Submessages').chain((k) => fc.constantFrom('text', 'x', 1).map((v) => (m: Json) => void (m[k] = v))),
  fc.constantFrom(true, false, 'true', 'FALSE', 'x').map((v) => (m: Json) => void (m.control = v)),
  fc.constantFrom('format', 'subformat', 'content', 'label', 'x', 'Format', PROTO_KEY).chain((k) => value.map((v) => (m: Json) => {
    const subs = Array.isArray(m.submessages) && m.submessages.length > 0 ? (m.submessages as Json[]) : (m.submessages = [{ format: 'text', content: 'a' }]) as Json[];
    subs[0]![k] = v;
  })),
  value.map((v) => (m: Json) => void (m.submessages = [v])),
];
const edited = fc.tuple(plainMessage, fc.oneof(...edits)).map(([m, edit]) => {
  const copy = JSON.parse(JSON.stringify(m)) as Json;
  edit(copy);
  return withOwnProto(JSON.stringify(copy));
});
/** Bodies as text: plain messages, plain messages changed once at an edge, and any JSON at all. */
const body = fc.oneof(
  { arbitrary: plainMessage.map((m) => withOwnProto(JSON.stringify(m))), weight: 4 },
  { arbitrary: edited, weight: 6 },
  fc.json({ maxDepth: 2 }),
);

describe('the plain NLIP message, recognised without the wire schema (issue 25)', () => {
  it('recognises what the reference client sends, and leaves other spellings to the schema', () => {
    expect(plainNlipMessage({ format: 'text', subformat: 'english', content: 'pasta' })).toStrictEqual({ format: 'text', subformat: 'english', content: 'pasta' });
    expect(plainNlipMessage({ format: 'text', content: 'x', submessages: [] })).toStrictEqual({ format: 'text', subformat: '', content: 'x' });
    expect(plainNlipMessage({ Format: 'text', content: 'x' })).toBeUndefined();
    expect(plainNlipMessage({ format: 'Text', content: 'x' })).toBeUndefined();
    expect(plainNlipMessage({ format: 'text', content: 'x', label: 1 })).toBeUndefined();
    expect(plainNlipMessage({ format: 'text', content: 'x', control: true })).toBeUndefined();
  });

  it('answers exactly what parseNlipText answers with the schema (property, on generated bodies)', () => {
    expectRecogniserAgrees(body, {
      recognised: (text) => plainNlipMessage(jsonOrUndefined(text)) !== undefined,
      withIt: (text) => parseNlipText(text, plainNlipMessage),
      without: (text) => parseNlipText(text),
      minRecognised: 300,
    });
  });
});

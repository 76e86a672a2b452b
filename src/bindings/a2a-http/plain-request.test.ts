import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonRpc, parseSendBody } from '../../protocol/a2a/index.ts';
import { plainJsonRpcRequest, plainSendParams } from './plain-request.ts';
import { expectRecogniserAgrees, jsonOrUndefined, PROTO_KEY, withOwnProto } from '../../../test/support/recogniser-property.ts';


const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string({ maxLength: 3 }), fc.constant([]), fc.constant({}));
const idString = fc.oneof({ arbitrary: fc.string({ minLength: 1, maxLength: 5 }), weight: 6 }, fc.constantFrom('', 'x'.repeat(256), 'x'.repeat(257)), value);
const count = fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.constant(2 ** 60), fc.constant(-0), value);
const record = fc.oneof(
  { arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }), weight: 3 },
  fc.dictionary(fc.constantFrom(PROTO_KEY, 'a', '1'), value, { maxKeys: 2 }),
  value,
);
const strings = fc.oneof({ arbitrary: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }), weight: 3 }, fc.array(value, { minLength: 1, maxLength: 2 }), value);

const plainPart = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 5 }), mediaType: fc.constant('text/plain'), metadata: record }, { requiredKeys: ['text'] }),
  fc.record({ data: fc.jsonValue({ maxDepth: 2 }), mediaType: fc.string({ maxLength: 3 }) }, { requiredKeys: ['data'] }),
  fc.record({ url: fc.webUrl(), filename: fc.string({ maxLength: 3 }) }, { requiredKeys: ['url'] }),
  fc.record({ raw: fc.base64String({ maxLength: 8 }) }),
);
const anyPart = fc.oneof(
  fc.record({ text: value, data: fc.jsonValue({ maxDepth: 1 }), url: value, raw: value, mediaType: value, filename: value, metadata: record, x: value, [PROTO_KEY]: value }, { requiredKeys: [] }),
  value,
);
const parts = fc.oneof(
  { arbitrary: fc.array(plainPart, { minLength: 1, maxLength: 3 }), weight: 6 },
  fc.array(fc.oneof(plainPart, anyPart), { maxLength: 3 }),
  fc.constant(Array.from({ length: 65 }, () => ({ text: 'a' }))),
  fc.constant(Array.from({ length: 64 }, () => ({ text: 'a' }))),
  value,
);
const role = fc.oneof({ arbitrary: fc.constant('ROLE_USER'), weight: 6 }, fc.constantFrom('user', 'ROLE_AGENT', 'agent', 1, 2, 0, 'x'), value);
const message = fc.oneof(
  { arbitrary: fc.record({ messageId: idString, role, parts, contextId: idString, taskId: idString, metadata: record, extensions: strings, referenceTaskIds: strings }, { requiredKeys: ['messageId', 'role', 'parts'] }), weight: 6 },
  fc.record({ messageId: idString, role, parts, contextId: idString, metadata: record, x: value, [PROTO_KEY]: value }, { requiredKeys: [] }),
  value,
);
const configuration = fc.oneof(
  { arbitrary: fc.record({ acceptedOutputModes: strings, historyLength: count, returnImmediately: fc.oneof(fc.boolean(), value), taskPushNotificationConfig: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] }), weight: 3 },
  fc.record({ historyLength: count, x: value, [PROTO_KEY]: value }, { requiredKeys: [] }),
  value,
);
const sendParams = fc.oneof(
  { arbitrary: fc.record({ message, configuration, tenant: fc.oneof(fc.string({ maxLength: 3 }), value), metadata: record }, { requiredKeys: ['message'] }), weight: 6 },
  fc.record({ message, x: value, [PROTO_KEY]: value, '': value }, { requiredKeys: [] }),
);
const taskParams = fc.record({ id: idString, historyLength: count, tenant: fc.oneof(fc.string({ maxLength: 3 }), value), metadata: record, x: value }, { requiredKeys: [] });
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null), fc.constant(undefined), fc.double(), fc.constant(2 ** 60), fc.boolean());
const method = fc.constantFrom('SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask', 'SubscribeToTask', 'ListTasks', 'Nope', '');
const envelope = fc.record({ jsonrpc: fc.oneof({ arbitrary: fc.constant('2.0'), weight: 8 }, fc.constant('1.0'), value), id, method, params: fc.oneof(sendParams, taskParams, value), x: value }, { requiredKeys: ['jsonrpc', 'method', 'params'] });
/** Valid requests of the kinds recognised, each member drawn from what the schemas accept: the accepted side of the property. */
const validId = fc.string({ minLength: 1, maxLength: 5 });
const validRecord = fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 });
const validStrings = fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 });
const validMessage = fc.record(
  { messageId: validId, role: fc.constant('ROLE_USER'), parts: fc.array(plainPart, { minLength: 1, maxLength: 3 }), contextId: validId, taskId: validId, metadata: validRecord, extensions: validStrings, referenceTaskIds: validStrings },
  { requiredKeys: ['messageId', 'role', 'parts'] },
);
const validConfiguration = fc.record({ acceptedOutputModes: validStrings, historyLength: fc.nat(), returnImmediately: fc.boolean(), taskPushNotificationConfig: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] });
const validParams = fc.oneof(
  fc.record({ message: validMessage, configuration: validConfiguration, tenant: fc.string({ maxLength: 3 }), metadata: validRecord }, { requiredKeys: ['message'] }),
  fc.record({ id: validId, historyLength: fc.nat(), tenant: fc.string({ maxLength: 3 }), metadata: validRecord }, { requiredKeys: ['id'] }),
);
const validEnvelope = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null), fc.constant(undefined)), method, params: validParams }, { requiredKeys: ['jsonrpc', 'method', 'params'] });
/** A generated body, changed in place at any depth. */
type Json = Record<string, any>;
const edgeId = fc.constantFrom('', 'x'.repeat(256), 'x'.repeat(257), 1, null);
const edgeCount = fc.constantFrom(-1, -0, 1.5, 2 ** 53, 2 ** 60, '1', null);
const protoRecord = fc.constant({ [PROTO_KEY]: { a: 1 }, b: 2 });
/** One change at the edge of what the schemas accept, to a valid request (a SendMessage's, or a task method's). */
const edits: fc.Arbitrary<(e: Json) => void>[] = [
  edgeId.map((v) => (e) => void (e.params.message ? (e.params.message.messageId = v) : (e.params.id = v))),
  edgeId.map((v) => (e) => void (e.params.message && (e.params.message.contextId = v))),
  edgeId.map((v) => (e) => void (e.params.message && (e.params.message.taskId = v))),
  fc.constantFrom('user', 'agent', 'ROLE_AGENT', 1, 2, 0).map((v) => (e) => void (e.params.message && (e.params.message.role = v))),
  fc.constantFrom(0, 64, 65).map((n) => (e) => void (e.params.message && (e.params.message.parts = Array.from({ length: n }, () => ({ text: 'a' }))))),
  fc.constantFrom('text', 'data', 'url', 'raw', 'mediaType', 'filename', 'metadata', 'x', PROTO_KEY).chain((k) => fc.oneof(value, protoRecord).map((v) => (e: Json) => void (e.params.message && (e.params.message.parts[0][k] = v)))),
  fc.constantFrom('extensions', 'referenceTaskIds', 'metadata', 'x', PROTO_KEY).chain((k) => fc.oneof(value, protoRecord, fc.constant([1])).map((v) => (e: Json) => void (e.params.message ? (e.params.message[k] = v) : (e.params[k] = v)))),
  fc.constantFrom('historyLength', 'acceptedOutputModes', 'returnImmediately', 'x', PROTO_KEY).chain((k) => fc.oneof(value, edgeCount, fc.constant([1])).map((v) => (e: Json) => void (e.params.message ? (e.params.configuration = { ...e.params.configuration, [k]: v }) : (e.params[k] = v)))),
  fc.constantFrom('tenant', 'metadata', 'configuration', 'x', PROTO_KEY, '').chain((k) => fc.oneof(value, protoRecord).map((v) => (e: Json) => void (e.params[k] = v))),
  fc.constantFrom(1.5, 2 ** 60, true, {}).map((v) => (e) => void (e.id = v)),
  fc.constantFrom('jsonrpc', 'method', 'x', PROTO_KEY, 'result').chain((k) => value.map((v) => (e: Json) => void (e[k] = v))),
];
const edited = fc.tuple(validEnvelope, fc.oneof(...edits)).map(([e, edit]) => {
  const copy = JSON.parse(JSON.stringify(e)) as Json;
  edit(copy);
  return withOwnProto(JSON.stringify(copy));
});
/** Bodies as text: valid requests, valid requests changed once at an edge, envelopes of any members, and anything else that is JSON. */
const body = fc.oneof(
  { arbitrary: validEnvelope.map((e) => JSON.stringify(e)), weight: 4 },
  { arbitrary: edited, weight: 8 },
  { arbitrary: envelope.map((e) => withOwnProto(JSON.stringify(e))), weight: 4 },
  fc.json({ maxDepth: 2 }),
  fc.constant('[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}]'),
);

describe('the plain A2A JSON-RPC request, recognised without the schemas (issue 25)', () => {
  it('recognises what the SDK client sends', () => {
    const send = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'pasta' }, { data: { site: 'x' } }], contextId: 'c'.repeat(16) }, configuration: { acceptedOutputModes: ['text/plain'], returnImmediately: false } } };
    expect(plainJsonRpcRequest(send)).toStrictEqual(send);
    expect(plainJsonRpcRequest({ jsonrpc: '2.0', method: 'GetTask', params: { id: 'task_1', historyLength: 0 } })).toStrictEqual({ jsonrpc: '2.0', id: null, method: 'GetTask', params: { id: 'task_1', historyLength: 0 } });
  });

  it('leaves the rest to the schemas: older role names, unnamed members, other methods', () => {
    const send = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], ...message }, ...extra } });
    expect(plainJsonRpcRequest(send({ role: 'user' }))).toBeUndefined();
    expect(plainJsonRpcRequest(send({ x: 1 }))).toBeUndefined();
    expect(plainJsonRpcRequest(send({}, { x: 1 }))).toBeUndefined();
    expect(plainJsonRpcRequest(send({ parts: [{ text: 'x', data: {} }] }))).toBeUndefined();
    expect(plainJsonRpcRequest({ ...send({}), method: 'ListTasks' })).toBeUndefined();
    expect(plainJsonRpcRequest(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","metadata":{"__proto__":{}}}}'))).toBeUndefined();
  });

  it('answers exactly what parseJsonRpc answers with the schemas (property, on generated bodies)', () => {
    expectRecogniserAgrees(body, {
      recognised: (text) => plainJsonRpcRequest(jsonOrUndefined(text)) !== undefined,
      withIt: (text) => parseJsonRpc(text, plainJsonRpcRequest),
      without: (text) => parseJsonRpc(text),
      minRecognised: 200,
    });
  });

  it('answers an HTTP+JSON send body exactly as parseSendBody does with the schema (property: the params of the same bodies)', () => {
    const params = (text: string) => (jsonOrUndefined(text) as { params?: unknown } | null | undefined)?.params;
    expectRecogniserAgrees(body.map(params), {
      recognised: (p) => plainSendParams(p) !== undefined,
      withIt: (p) => parseSendBody(p, plainSendParams),
      without: (p) => parseSendBody(p),
      minRecognised: 200,
    });
  });
});

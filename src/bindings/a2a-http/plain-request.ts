import { A2A_METHODS, MAX_ID_CHARS, MAX_PARTS, type ParsedJsonRpcRequest, type SendMessageParams } from '../../protocol/a2a/index.ts';
import { isPlainObject, isRequestId, MESSAGE_KEYS, onlyKeys, type Params } from '../json-shape.ts';

/**
 * The plain A2A JSON-RPC request recognised by its shape (issue 25): a `SendMessage` or
 * `SendStreamingMessage` of a `ROLE_USER` message whose every member is one the wire schemas name,
 * or a `GetTask`/`CancelTask`/`SubscribeToTask` of a task id (and the HTTP+JSON `message:send` and
 * `message:stream` body of such a message). For such a body `parseJsonRpc`'s (`parseSendBody`'s) zod
 * schemas (src/protocol/a2a/wire.ts, the source of truth) accept it and answer the same request
 * (plain-request.test.ts holds the two to that on generated bodies, valid and invalid); anything
 * else — other roles, members the schemas do not name, a `__proto__` key zod drops — is left to the
 * schemas. In place, parseJsonRpc took 20-21 µs of a SendMessage with the schemas, 7-9 with this.
 */

const SEND_METHODS = new Set<string>([A2A_METHODS.send, A2A_METHODS.stream]);
const TASK_METHODS = new Set<string>([A2A_METHODS.getTask, A2A_METHODS.cancelTask, A2A_METHODS.subscribe]);
const SEND_KEYS = ['message', 'configuration', 'tenant', 'metadata'];
const MESSAGE_FIELDS = ['messageId', 'role', 'parts', 'contextId', 'taskId', 'metadata', 'extensions', 'referenceTaskIds'];
const PART_KEYS = ['text', 'data', 'url', 'raw', 'mediaType', 'filename', 'metadata'];
const CONFIGURATION_KEYS = ['acceptedOutputModes', 'historyLength', 'returnImmediately', 'taskPushNotificationConfig'];
const TASK_KEYS = ['tenant', 'id', 'historyLength', 'metadata'];

const isId = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_CHARS;
const optional = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || check(v);
const isString = (v: unknown): boolean => typeof v === 'string';
const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every(isString);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
/** A metadata record zod gives back as it is: an object without an own `__proto__` (zod drops that key). */
const isRecord = (v: unknown): boolean => isPlainObject(v) && !Object.hasOwn(v, '__proto__');

/** §4.1.6 a part of exactly one kind, of the named members only. */
function isPlainPart(p: unknown): boolean {
  if (!isPlainObject(p) || !onlyKeys(p, PART_KEYS)) return false;
  const kinds = (p.text !== undefined ? 1 : 0) + (p.data !== undefined ? 1 : 0) + (p.url !== undefined ? 1 : 0) + (p.raw !== undefined ? 1 : 0);
  return kinds === 1 && optional(p.text, isString) && optional(p.url, isString) && optional(p.raw, isString) && optional(p.mediaType, isString) && optional(p.filename, isString) && optional(p.metadata, isRecord);
}

/** §4.1.4 a client's message as the schema takes it without changing it (`ROLE_USER`: the older role names are rewritten). */
function isPlainMessage(m: unknown): boolean {
  if (!isPlainObject(m) || !onlyKeys(m, MESSAGE_FIELDS) || m.role !== 'ROLE_USER' || !isId(m.messageId)) return false;
  const { parts } = m;
  if (!Array.isArray(parts) || parts.length === 0 || parts.length > MAX_PARTS || !parts.every(isPlainPart)) return false;
  return optional(m.contextId, isId) && optional(m.taskId, isId) && optional(m.metadata, isRecord) && optional(m.extensions, isStrings) && optional(m.referenceTaskIds, isStrings);
}

function isPlainConfiguration(c: unknown): boolean {
  if (!isPlainObject(c) || !onlyKeys(c, CONFIGURATION_KEYS)) return false;
  return optional(c.acceptedOutputModes, isStrings) && optional(c.historyLength, isCount) && optional(c.returnImmediately, (v) => typeof v === 'boolean');
}

function isPlainParams(method: string, params: Params): boolean {
  if (SEND_METHODS.has(method)) {
    return onlyKeys(params, SEND_KEYS) && isPlainMessage(params.message) && optional(params.configuration, isPlainConfiguration) && optional(params.tenant, isString) && optional(params.metadata, isRecord);
  }
  return TASK_METHODS.has(method) && onlyKeys(params, TASK_KEYS) && isId(params.id) && optional(params.historyLength, isCount) && optional(params.tenant, isString) && optional(params.metadata, isRecord);
}

/** The request of a plain JSON-RPC body (see above), as `parseJsonRpc` answers it; undefined for anything else. */
export function plainJsonRpcRequest(body: unknown): ParsedJsonRpcRequest | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || !isPlainObject(params)) return undefined;
  if (!(id === undefined || id === null || isRequestId(id)) || !isPlainParams(method, params)) return undefined;
  return { jsonrpc, id: id ?? null, method, params };
}

/** The params of a plain HTTP+JSON `message:send`/`message:stream` body (see above), as `parseSendBody` answers them; undefined for anything else. */
export function plainSendParams(body: unknown): SendMessageParams | undefined {
  return isPlainObject(body) && isPlainParams(A2A_METHODS.send, body) ? (body as SendMessageParams) : undefined;
}

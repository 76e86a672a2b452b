import { jsonTooDeep } from '../../protocol/json-depth.ts';
import type { Context } from 'hono';
import { CancelTaskRequest, GetTaskRequest, SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, type StreamResponse as StreamEvent } from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  restStatusFor,
  toRestErrorBody,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { parseSendBody, TaskIdParamsSchema, issuesText } from '../../protocol/a2a/index.ts';
import { toA2AError } from './errors.ts';
import type { GatewayRequestHandler } from './handler.ts';
import { applyTransportStatus, isJsonContentType, sendSse, versionSupported } from './jsonrpc.ts';
import { plainSendParams } from './plain-request.ts';
import { restJson } from './rest-json.ts';

/**
 * The HTTP+JSON binding (A2A 1.0 §11) under `/a2a/{agent}/rest`: `POST message:send`,
 * `POST message:stream`, `GET tasks/{id}`, `POST tasks/{id}:cancel`, `GET|POST tasks/{id}:subscribe`.
 * Bodies are validated before the SDK's converters see them; errors are the §11.6 error body
 * (`{error: {code, status, message, details}}`) with its HTTP status.
 */

const fail = (c: Context, handler: GatewayRequestHandler, thrown: unknown): Response => {
  const err = toA2AError(thrown);
  const status = applyTransportStatus(c, handler, restStatusFor(err));
  return restJson(c, toRestErrorBody(err, status), status);
};

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  const tooDeep = jsonTooDeep(text);
  if (tooDeep) throw new RequestMalformedError(tooDeep);
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestMalformedError('Invalid JSON payload.');
  }
}

function taskIdParams(taskId: string, historyLength?: string) {
  const raw = { id: taskId, ...(historyLength !== undefined ? { historyLength: Number(historyLength) } : {}) };
  const parsed = TaskIdParamsSchema.safeParse(raw);
  if (!parsed.success) throw new RequestMalformedError(`Invalid request: ${issuesText('', parsed.error.issues)}`);
  return parsed.data;
}

async function streamOut(c: Context, handler: GatewayRequestHandler, events: AsyncGenerator<StreamEvent>): Promise<Response> {
  let first: IteratorResult<StreamEvent>;
  try {
    first = await events.next();
  } catch (err) {
    return fail(c, handler, err);
  }
  return sendSse(c, events, first, (v) => StreamResponse.toJSON(v), (err) => toRestErrorBody(toA2AError(err), restStatusFor(toA2AError(err))));
}

/** Serves one HTTP+JSON request; `rest` is the path after `/rest` (e.g. `/tasks/abc:cancel`). */
export async function serveRest(c: Context, handler: GatewayRequestHandler, rest: string): Promise<Response> {
  try {
    if (!versionSupported(c)) throw new VersionNotSupportedError('Use A2A version 1.0');
    const method = c.req.method;
    const task = /^\/tasks\/([^/]+?)(:cancel|:subscribe)?$/.exec(rest);
    if (method === 'POST' && (rest === '/message:send' || rest === '/message:stream')) {
      if (!isJsonContentType(c)) throw new ContentTypeNotSupportedError('expected application/json or application/a2a+json');
      const parsed = parseSendBody(await readJson(c), plainSendParams);
      if (!parsed.ok) throw new RequestMalformedError(parsed.message);
      const params = SendMessageRequest.fromJSON(parsed.params);
      if (rest === '/message:stream') return await streamOut(c, handler, handler.sendMessageStream(params));
      const result = await handler.sendMessage(params);
      return restJson(c, SendMessageResponse.toJSON({ payload: { $case: 'task', value: result as Task } }));
    }
    if (task) {
      const taskId = decodeURIComponent(task[1]!);
      if (method === 'GET' && task[2] === undefined) {
        const p = taskIdParams(taskId, c.req.query('historyLength'));
        return restJson(c, Task.toJSON(await handler.getTask(GetTaskRequest.fromJSON(p))));
      }
      if (method === 'POST' && task[2] === ':cancel') return restJson(c, Task.toJSON(await handler.cancelTask(CancelTaskRequest.fromJSON(taskIdParams(taskId)))));
      if ((method === 'GET' || method === 'POST') && task[2] === ':subscribe') {
        return await streamOut(c, handler, handler.resubscribe(SubscribeToTaskRequest.fromJSON(taskIdParams(taskId))));
      }
    }
    if (/^\/tasks\/[^/]+\/pushNotificationConfigs/.test(rest)) throw new PushNotificationNotSupportedError();
    if (rest === '/tasks') throw new UnsupportedOperationError('ListTasks is not supported');
    if (rest === '/extendedAgentCard') throw new ExtendedAgentCardNotConfiguredError();
    return restJson(c, toRestErrorBody(new Error(`No A2A operation at ${method} ${rest}`), 404), 404);
  } catch (err) {
    return fail(c, handler, err);
  }
}

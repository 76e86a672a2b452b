import { z } from 'zod';

/**
 * A2A 1.0 wire schemas for what the gateway parses (A2A spec 1.0 §4 data model, §9 JSON-RPC binding,
 * §11 HTTP+JSON binding). The SDK's `fromJSON` converters accept anything and fill defaults, so the
 * gateway validates the JSON first with these and only then hands it to the SDK: a malformed request
 * gets A2A's own "invalid params" answer instead of an empty message reaching an agent.
 * Accept loosely (v0.3 role names, extra fields), emit strictly (the SDK's `toJSON`).
 */

/** Most parts one message may carry (each becomes query text or a filter). */
export const MAX_PARTS = 64;
/** Longest id (task, context, message) the gateway accepts; ids become hashed store keys. */
export const MAX_ID_CHARS = 256;

const id = z.string().min(1, 'must not be empty').max(MAX_ID_CHARS, `must be at most ${MAX_ID_CHARS} characters`);
const metadata = z.record(z.string(), z.unknown());

/** §4.1.6 Part: exactly one of `text`, `data`, `url`, `raw` (base64), plus optional media type and name. */
export const PartSchema = z
  .looseObject({
    text: z.string().optional(),
    data: z.unknown().optional(),
    url: z.string().optional(),
    raw: z.string().optional(),
    mediaType: z.string().optional(),
    filename: z.string().optional(),
    metadata: metadata.optional(),
  })
  // Counted field by field: the same check over a list of the four keys took a microsecond per part (issue 25).
  .refine((p) => (p.text !== undefined ? 1 : 0) + (p.data !== undefined ? 1 : 0) + (p.url !== undefined ? 1 : 0) + (p.raw !== undefined ? 1 : 0) === 1, {
    message: 'a part has exactly one of text, data, url or raw',
  });
export type WirePart = z.infer<typeof PartSchema>;

/** §4.1.5 Role: `ROLE_USER`/`ROLE_AGENT` (v0.3 peers send `user`/`agent`; both accepted). */
export const RoleSchema = z
  .union([z.enum(['ROLE_USER', 'ROLE_AGENT', 'user', 'agent']), z.literal(1), z.literal(2)])
  .transform((r) => (r === 'user' || r === 1 ? 'ROLE_USER' : r === 'agent' || r === 2 ? 'ROLE_AGENT' : r));

/** §4.1.4 Message as a client sends it: a user message with at least one part. */
export const MessageSchema = z.looseObject({
  messageId: id,
  role: RoleSchema.refine((r) => r === 'ROLE_USER', 'a client sends messages with role ROLE_USER'),
  parts: z.array(PartSchema).min(1, 'a message needs at least one part').max(MAX_PARTS, `at most ${MAX_PARTS} parts`),
  contextId: id.optional(),
  taskId: id.optional(),
  metadata: metadata.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type WireMessage = z.infer<typeof MessageSchema>;

/** §3.2.1 SendMessageRequest (`SendMessage`, `SendStreamingMessage`, `message:send`, `message:stream`). */
export const SendMessageParamsSchema = z.looseObject({
  tenant: z.string().optional(),
  message: MessageSchema,
  configuration: z
    .looseObject({
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: z.number().int().nonnegative().optional(),
      returnImmediately: z.boolean().optional(),
      taskPushNotificationConfig: z.unknown().optional(),
    })
    .optional(),
  metadata: metadata.optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParamsSchema>;

/** §3.1.3/3.1.5/3.1.6 GetTask, CancelTask, SubscribeToTask: a task id (and for GetTask a history length). */
export const TaskIdParamsSchema = z.looseObject({
  tenant: z.string().optional(),
  id,
  historyLength: z.number().int().nonnegative().optional(),
  metadata: metadata.optional(),
});
export type TaskIdParams = z.infer<typeof TaskIdParamsSchema>;

/** §9.3 the JSON-RPC 2.0 request structure. */
export const JsonRpcRequestSchema = z.looseObject({
  jsonrpc: z.literal('2.0', { error: 'jsonrpc must be "2.0"' }),
  id: z.union([z.string(), z.number().int(), z.null()]).optional(),
  method: z.string({ error: 'method must be a string' }).min(1, 'method must not be empty'),
  params: z.unknown().optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

/** The A2A 1.0 JSON-RPC method names (§9.4). */
export const A2A_METHODS = {
  send: 'SendMessage',
  stream: 'SendStreamingMessage',
  getTask: 'GetTask',
  cancelTask: 'CancelTask',
  subscribe: 'SubscribeToTask',
} as const;

import { z } from 'zod';
import { ActionSchema } from './actions.ts';

/** 4.1.4 Standard failure codes; `CANCELLED` comes from 4.2. Other codes are allowed by extensibility. */
export const FAILURE_CODES = [
  'NO_RESULTS',
  'INVALID_QUERY',
  'UNSUPPORTED_FORMAT',
  'UNSUPPORTED_MODE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'TIMEOUT',
  'TOKEN_LIMIT',
  'CANCELLED',
] as const;

/** 4.1.1 A result item: typed, semi-structured, with optional `grounding` and `actions`. */
export const ResultItemSchema = z.looseObject({
  '@type': z.string().optional(),
  '@id': z.string().optional(),
  url: z.string().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  site: z.string().optional(),
  score: z.number().optional(),
  text: z.string().optional(),
  grounding: z.record(z.string(), z.unknown()).optional(),
  actions: z.array(ActionSchema).optional(),
});
export type ResultItem = z.infer<typeof ResultItemSchema>;

/** 4 `_meta`: `response_type` and `version` required; `response_format`, `session_context` and extras optional. */
export const ResponseMetaSchema = z.looseObject({
  response_type: z.enum(['answer', 'elicitation', 'promise', 'failure']),
  version: z.string(),
  response_format: z.string().optional(),
  session_context: z.record(z.string(), z.unknown()).optional(),
});
export type ResponseMeta = z.infer<typeof ResponseMetaSchema>;

/** 4.1.3 The five question types; others may come through extensibility. */
export const QUESTION_TYPES = ['single_select', 'multi_select', 'free_text', 'number', 'boolean'] as const;

/** 4.1.3 A structured question; `options` are required for the two select types. */
export const QuestionSchema = z
  .looseObject({
    id: z.string(),
    text: z.string(),
    type: z.string(),
    options: z.array(z.string()).optional(),
    default: z.unknown().optional(),
  })
  .refine((q) => !(q.type === 'single_select' || q.type === 'multi_select') || (q.options?.length ?? 0) > 0, {
    message: 'single_select and multi_select questions need options',
  });
export type Question = z.infer<typeof QuestionSchema>;

/** 4.1.3 Elicitation: optional `text` and `questions`. */
export const ElicitationSchema = z.looseObject({
  text: z.string().optional(),
  questions: z.array(QuestionSchema).optional(),
});
export type Elicitation = z.infer<typeof ElicitationSchema>;

/** 4.1.2 Promise: opaque `token`, optional `estimated_time` (seconds), `message`, `progress` in [0, 1]. */
export const PromiseInfoSchema = z.looseObject({
  token: z.string().min(1),
  estimated_time: z.number().int().nonnegative().optional(),
  message: z.string().optional(),
  progress: z.number().min(0).max(1).optional(),
});
export type PromiseInfo = z.infer<typeof PromiseInfoSchema>;

/** 4.1.4 Failure body: a machine-readable `code` and an optional `message`. */
export const FailureSchema = z.looseObject({ code: z.string(), message: z.string().optional() });
export type Failure = z.infer<typeof FailureSchema>;

const meta = (type: ResponseMeta['response_type']) =>
  ResponseMetaSchema.extend({ response_type: z.literal(type) });

/** 4.1.1 Conversational Search answer: `results[]`. */
export const AnswerResponseSchema = z.looseObject({ _meta: meta('answer'), results: z.array(ResultItemSchema) });
/** 4.1.1 ChatGPT App answer: `content[]` text for the model and `structuredData[]` items. */
export const ChatgptAppResponseSchema = z.looseObject({
  _meta: meta('answer'),
  content: z.array(z.looseObject({ type: z.literal('text'), text: z.string() })),
  structuredData: z.array(ResultItemSchema),
});
export const ElicitationResponseSchema = z.looseObject({ _meta: meta('elicitation'), elicitation: ElicitationSchema });
export const PromiseResponseSchema = z.looseObject({ _meta: meta('promise'), promise: PromiseInfoSchema });
export const FailureResponseSchema = z.looseObject({ _meta: meta('failure'), error: FailureSchema });

/** Any v0.55 response, strictly as the gateway emits it. */
export const NlwebResponseSchema = z.union([
  AnswerResponseSchema,
  ChatgptAppResponseSchema,
  ElicitationResponseSchema,
  PromiseResponseSchema,
  FailureResponseSchema,
]);
export type AnswerResponse = z.infer<typeof AnswerResponseSchema>;
export type ChatgptAppResponse = z.infer<typeof ChatgptAppResponseSchema>;
export type ElicitationResponse = z.infer<typeof ElicitationResponseSchema>;
export type PromiseResponse = z.infer<typeof PromiseResponseSchema>;
export type FailureResponse = z.infer<typeof FailureResponseSchema>;
export type NlwebResponse = z.infer<typeof NlwebResponseSchema>;

/** The canonical (conversational_search) response the core produces; bindings render other formats. */
export type CanonicalResponse = AnswerResponse | ElicitationResponse | PromiseResponse | FailureResponse;

/** 6.1 SSE payloads: `start` and `complete` carry `_meta`; `result` carries `index` + `item`; `error` is a failure. */
export const StartEventSchema = z.looseObject({ _meta: ResponseMetaSchema.partial({ version: true }).extend({ streaming: z.boolean().optional() }) });
export const ResultEventSchema = z.looseObject({ index: z.number().int().nonnegative(), item: ResultItemSchema });
export const ErrorEventSchema = z.looseObject({ _meta: ResponseMetaSchema.partial().optional(), error: FailureSchema });
export const CompleteEventSchema = z.looseObject({ _meta: ResponseMetaSchema.partial() });

/** Narrowing helpers: `_meta.response_type` is nested, so TypeScript cannot discriminate on it alone. */
export const isAnswer = (r: CanonicalResponse): r is AnswerResponse => r._meta.response_type === 'answer';
export const isElicitation = (r: CanonicalResponse): r is ElicitationResponse => r._meta.response_type === 'elicitation';
export const isPromise = (r: CanonicalResponse): r is PromiseResponse => r._meta.response_type === 'promise';
export const isFailure = (r: CanonicalResponse): r is FailureResponse => r._meta.response_type === 'failure';

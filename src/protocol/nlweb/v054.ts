import { z } from 'zod';
import { ElicitationSchema, FailureSchema, PromiseInfoSchema, ResultItemSchema } from './response.ts';

/**
 * The v0.54 wire as the gateway emits it to v0.54 clients (v0.54 sections 4 and 8.4; interop.md):
 * the same content as v0.55 with a capitalised `response_type`, the summary as a `Summary` item, and
 * streams of unnamed `data:` frames.
 */

/** v0.54 4: `_meta` with `response_type` Answer | Elicitation | Promise | Failure and `version`. */
export const V054ResponseMetaSchema = z.looseObject({
  response_type: z.enum(['Answer', 'Elicitation', 'Promise', 'Failure']),
  version: z.literal('0.54'),
  response_format: z.string().optional(),
  session_context: z.record(z.string(), z.unknown()).optional(),
  decontextualized_query: z.string().optional(),
});

/** v0.54 4.1: a whole JSON response. */
export const V054ResponseSchema = z.looseObject({
  _meta: V054ResponseMetaSchema,
  results: z.array(ResultItemSchema).optional(),
  structuredData: z.array(ResultItemSchema).optional(),
  content: z.array(z.looseObject({ type: z.literal('text'), text: z.string() })).optional(),
  elicitation: ElicitationSchema.optional(),
  promise: PromiseInfoSchema.optional(),
  error: FailureSchema.optional(),
});
export type V054Response = z.infer<typeof V054ResponseSchema>;

/** v0.54 8.4: one `data:` frame of a stream: a `_meta` frame, a `results` chunk, or an error. */
export const V054FrameSchema = z.union([
  z.looseObject({ _meta: V054ResponseMetaSchema }),
  z.looseObject({ results: z.array(ResultItemSchema) }),
  z.looseObject({ error: FailureSchema }),
]);

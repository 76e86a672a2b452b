import { z } from 'zod';
import { checkResultsPath } from './results-path.ts';

/** An operationId as OpenAPI allows it (any string; kept short and free of control characters here). */
const OperationId = z.string().min(1).max(128).regex(/^[^\u0000-\u001f]+$/, 'must be an operationId');

/** The fields of a `kind: openapi` agent entry (besides the common ones). */
export const OpenapiConfigSchema = z.strictObject({
  /** The OpenAPI 3.0 or 3.1 description (JSON or YAML): a file (relative to the config file) or an http(s) URL. */
  spec: z.string().min(1),
  /** Where the API is served; by default the spec's first `servers` entry (resolved against the spec's URL). Never taken from a client. */
  baseUrl: z.url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL' }).optional(),
  /** Extra headers sent with every API call (not with the spec's download). */
  headers: z.record(z.string(), z.string()).optional(),
  /** Credentials for the security schemes the spec declares, by scheme name: an API key's value, or a bearer token (http bearer, oauth2, openIdConnect); http basic takes `user:password`. */
  auth: z.record(z.string(), z.string()).optional(),
  /** Only these operations (by operationId) become tools; by default every operation that has an operationId. */
  operations: z.array(OperationId).min(1).optional(),
  /** How a natural-language ask (NLWeb, NLIP text, A2A text) is answered; without it the agent offers only its operations as tools. */
  ask: z
    .strictObject({
      /** The operationId the ask calls. */
      operation: OperationId,
      /** The input (a parameter's name, or `body`) that receives the query text. */
      query: z.string().min(1),
      /** Where the list of results is in the reply: a JSONPath of member names and indexes (`$.items`, `$.data[0].hits`); the whole reply when absent. */
      results: z
        .string()
        .superRefine((p, ctx) => {
          const problem = checkResultsPath(p);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
    })
    .optional(),
  /** Largest spec document (and each document it references) read, in bytes. */
  maxSpecBytes: z.number().int().positive().max(64 * 1_048_576).optional(),
}).superRefine((c, ctx) => {
  // An ask through an operation the allow-list leaves out could never run: say so when the config is read.
  if (c.ask && c.operations && !c.operations.includes(c.ask.operation)) {
    ctx.addIssue({ code: 'custom', path: ['ask', 'operation'], message: `"${c.ask.operation}" is not in operations` });
  }
});
export type OpenapiConfig = z.infer<typeof OpenapiConfigSchema>;

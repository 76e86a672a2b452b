import { z } from 'zod';
import { formatIssues } from './issues.ts';
import { MAX_VERSION_LENGTH } from './semver.ts';
import type { ParseResult } from './metadata.ts';

/**
 * "POST {webtoolUrl}/": the execution request as the gateway emits it. `sessionId`, `version` and
 * `config` are optional; `request` is the action's input, matching its `requestSchema`.
 */
export const ExecutionRequestSchema = z.looseObject({
  sessionId: z.string().min(1).max(256).optional(),
  version: z.string().min(1).max(MAX_VERSION_LENGTH).optional(),
  action: z.string({ error: 'action must be a string' }).min(1, 'action must not be empty').max(128),
  config: z.record(z.string(), z.unknown(), { error: 'config must be an object' }).optional(),
  request: z.unknown(),
});
export type ExecutionRequest = z.infer<typeof ExecutionRequestSchema>;

const OPTIONAL_KEYS = ['sessionId', 'version', 'config'] as const;

/**
 * Parses an execution request ("POST {webtoolUrl}/"), accepting loosely: `null` counts as absent for
 * the optional fields, a numeric `sessionId` becomes a string, and an absent `request` is `{}` (the
 * action's `requestSchema` then decides whether that is enough). Never throws.
 */
export function parseExecutionRequest(raw: unknown): ParseResult<ExecutionRequest> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, message: 'the body must be a JSON object with an "action" and a "request"' };
  }
  const body: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const key of OPTIONAL_KEYS) if (body[key] === null) delete body[key];
  if (typeof body.sessionId === 'number' && Number.isFinite(body.sessionId)) body.sessionId = String(body.sessionId);
  if (body.request === undefined || body.request === null) body.request = {};
  const parsed = ExecutionRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, message: formatIssues(parsed.error.issues) };
  return { ok: true, value: parsed.data };
}

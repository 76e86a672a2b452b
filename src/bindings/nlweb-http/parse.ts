import { jsonTooDeep } from '../../protocol/json-depth.ts';
import type { Context } from 'hono';
import type { z } from 'zod';
import { GatewayError, describeIssues } from '../../base/errors.ts';
import { requestHeader } from '../../base/request-headers.ts';

/**
 * A request body as a JSON object (7.1), unvalidated. Content-Type is not required (curl's `-d`
 * sends form encoding): any body that parses as a JSON object is taken. Bad input is INVALID_QUERY
 * with a message saying what is wrong. Given the text, not the request: the route reads the body
 * with one `.then` (each async layer between the socket and the parse cost two promises, issue 25).
 */
export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  if (text.trim().length === 0) throw new GatewayError('INVALID_QUERY', `The request body is empty: send a JSON ${what}`);
  const tooDeep = jsonTooDeep(text);
  if (tooDeep) throw new GatewayError('INVALID_QUERY', tooDeep);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new GatewayError('INVALID_QUERY', 'The request body is not valid JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new GatewayError('INVALID_QUERY', `The request body must be a JSON object (a ${what})`);
  }
  return raw as Record<string, unknown>;
}

/** Validates a JSON object against a request schema (3, 4.2); a problem is INVALID_QUERY naming the field. */
export function validateBody<S extends z.ZodType>(raw: Record<string, unknown>, schema: S, what: string): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new GatewayError('INVALID_QUERY', `Invalid ${what}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** 6 / 7.3: streaming is asked for by `prefer.streaming: true` or `Accept: text/event-stream`. */
export function wantsStream(c: Context, preferStreaming: boolean | undefined): boolean {
  if (preferStreaming === false) return false;
  return preferStreaming === true || (requestHeader(c.req.raw, 'accept') ?? '').includes('text/event-stream');
}

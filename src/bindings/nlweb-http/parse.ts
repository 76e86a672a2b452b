import type { Context } from 'hono';
import type { z } from 'zod';
import { GatewayError, describeIssues } from '../../core/errors.ts';

/**
 * Reads a request body as JSON and validates it (7.1). Content-Type is not required (curl's `-d`
 * sends form encoding): any body that parses as a JSON object is taken. Bad input is INVALID_QUERY
 * with a message saying what is wrong.
 */
export async function parseJsonBody<S extends z.ZodType>(c: Context, schema: S, what: string): Promise<z.infer<S>> {
  const text = await c.req.text();
  if (text.trim().length === 0) throw new GatewayError('INVALID_QUERY', `The request body is empty: send a JSON ${what}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new GatewayError('INVALID_QUERY', 'The request body is not valid JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new GatewayError('INVALID_QUERY', `The request body must be a JSON object (a ${what})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new GatewayError('INVALID_QUERY', `Invalid ${what}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** 6 / 7.3: streaming is asked for by `prefer.streaming: true` or `Accept: text/event-stream`. */
export function wantsStream(c: Context, preferStreaming: boolean | undefined): boolean {
  if (preferStreaming === false) return false;
  return preferStreaming === true || (c.req.header('accept') ?? '').includes('text/event-stream');
}

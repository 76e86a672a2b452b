import {
  A2AError,
  ContentTypeNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { ERROR_TABLE, toGatewayError, type A2aErrorName, type GatewayError } from '../../base/errors.ts';

/**
 * Gateway errors as A2A 1.0 errors (spec §3.3.2) through the one error table's `a2a` column. The
 * SDK's transport handlers render an A2AError as JSON-RPC `error` (code + ErrorInfo) or as the
 * HTTP+JSON error body; anything else they would render with its raw message, so every error
 * leaving the gateway's request handler goes through `toA2AError` first.
 */

const CLASSES: Record<Exclude<A2aErrorName, 'InternalError'>, new (message: string) => A2AError> = {
  TaskNotFoundError,
  TaskNotCancelableError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  RequestMalformedError,
};

/** HTTP statuses A2A has no error for: the binding answers them at the HTTP level (§11.6, §9.5). */
const TRANSPORT_STATUSES = new Set([401, 403, 413, 429, 503, 504]);

/** The A2A error for a GatewayError (client-safe message only). */
export function a2aErrorOf(err: GatewayError): A2AError {
  const name = ERROR_TABLE[err.code].a2a;
  if (name === 'InternalError') return new A2AError({ message: err.message });
  return new CLASSES[name](err.message);
}

/** The HTTP status to answer with instead of 200/4xx-by-A2A, when the error is a transport matter. */
export function transportStatusOf(err: GatewayError): number | undefined {
  const status = err.mapping.http;
  return TRANSPORT_STATUSES.has(status) ? status : undefined;
}

/** Anything thrown, as an A2A error; already-A2A errors pass through. */
export function toA2AError(err: unknown): A2AError {
  if (err instanceof A2AError) return err;
  return a2aErrorOf(toGatewayError(err));
}

/** §3.3.2 the one answer for an unknown, expired or someone else's task. */
export const taskNotFound = (): A2AError => new TaskNotFoundError('Task not found');

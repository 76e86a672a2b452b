/**
 * The gateway's one error type. Every failure inside nlgate is a GatewayError with an UPPER_SNAKE
 * code; each binding renders it through ERROR_TABLE, so a code means the same thing on every wire.
 */

/** How one error code appears on each transport. */
export interface ErrorMapping {
  /** HTTP status for a transport-level rejection (NLWeb 7.4; webtools per interop.md). */
  readonly http: number;
  /** The NLWeb v0.55 failure code (4.1.4). */
  readonly nlweb: string;
  /** The webtool error code (webtools draft, interop.md decisions). */
  readonly webtool: string;
  /** The JSON-RPC error code used when the MCP binding must answer with a protocol error. */
  readonly jsonrpc: number;
  /**
   * The A2A 1.0 error (spec 1.0 §3.3.2, the SDK's error class names) when a call fails before any task
   * exists; `InternalError` is JSON-RPC -32603 / HTTP 500. A2A has no code for 401/403/413/429/503/504:
   * the binding answers those with the `http` status.
   */
  readonly a2a: A2aErrorName;
}

/** The A2A errors the gateway answers with (A2A 1.0 §3.3.2 plus JSON-RPC's internal error). */
export type A2aErrorName = 'TaskNotFoundError' | 'TaskNotCancelableError' | 'UnsupportedOperationError' | 'ContentTypeNotSupportedError' | 'RequestMalformedError' | 'InternalError';

/** One frozen table: code → per-transport rendering. Add a code here and every binding knows it. */
export const ERROR_TABLE = Object.freeze({
  INVALID_QUERY: { http: 400, nlweb: 'INVALID_QUERY', webtool: 'SCHEMA_ERROR', jsonrpc: -32602, a2a: 'RequestMalformedError' },
  INVALID_REQUEST: { http: 400, nlweb: 'INVALID_QUERY', webtool: 'SCHEMA_ERROR', jsonrpc: -32600, a2a: 'RequestMalformedError' },
  NO_RESULTS: { http: 200, nlweb: 'NO_RESULTS', webtool: 'INTERNAL_ERROR', jsonrpc: -32603, a2a: 'InternalError' },
  UNSUPPORTED_FORMAT: { http: 200, nlweb: 'UNSUPPORTED_FORMAT', webtool: 'SCHEMA_ERROR', jsonrpc: -32602, a2a: 'ContentTypeNotSupportedError' },
  UNSUPPORTED_MODE: { http: 200, nlweb: 'UNSUPPORTED_MODE', webtool: 'SCHEMA_ERROR', jsonrpc: -32602, a2a: 'ContentTypeNotSupportedError' },
  RATE_LIMITED: { http: 429, nlweb: 'RATE_LIMITED', webtool: 'RATE_LIMIT', jsonrpc: -32000, a2a: 'InternalError' },
  TIMEOUT: { http: 504, nlweb: 'TIMEOUT', webtool: 'INTERNAL_ERROR', jsonrpc: -32001, a2a: 'InternalError' },
  TOKEN_LIMIT: { http: 200, nlweb: 'TOKEN_LIMIT', webtool: 'INTERNAL_ERROR', jsonrpc: -32603, a2a: 'InternalError' },
  CANCELLED: { http: 200, nlweb: 'CANCELLED', webtool: 'CANCELLED', jsonrpc: -32800, a2a: 'InternalError' },
  PROMISE_NOT_FOUND: { http: 200, nlweb: 'INVALID_QUERY', webtool: 'SCHEMA_ERROR', jsonrpc: -32602, a2a: 'TaskNotFoundError' },
  AGENT_NOT_FOUND: { http: 404, nlweb: 'INVALID_QUERY', webtool: 'WEBTOOL_NOT_FOUND', jsonrpc: -32602, a2a: 'RequestMalformedError' },
  TOOL_NOT_FOUND: { http: 404, nlweb: 'INVALID_QUERY', webtool: 'SCHEMA_ERROR', jsonrpc: -32602, a2a: 'UnsupportedOperationError' },
  SCHEMA_ERROR: { http: 400, nlweb: 'INVALID_QUERY', webtool: 'SCHEMA_ERROR', jsonrpc: -32602, a2a: 'RequestMalformedError' },
  CONFIG_ERROR: { http: 400, nlweb: 'INVALID_QUERY', webtool: 'CONFIG_ERROR', jsonrpc: -32602, a2a: 'RequestMalformedError' },
  UNAUTHORIZED: { http: 401, nlweb: 'UNAUTHORIZED', webtool: 'CONFIG_ERROR', jsonrpc: -32001, a2a: 'InternalError' },
  FORBIDDEN: { http: 403, nlweb: 'FORBIDDEN', webtool: 'CONFIG_ERROR', jsonrpc: -32003, a2a: 'InternalError' },
  PAYLOAD_TOO_LARGE: { http: 413, nlweb: 'INVALID_QUERY', webtool: 'SCHEMA_ERROR', jsonrpc: -32600, a2a: 'RequestMalformedError' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, nlweb: 'INVALID_QUERY', webtool: 'SCHEMA_ERROR', jsonrpc: -32600, a2a: 'ContentTypeNotSupportedError' },
  UPSTREAM_ERROR: { http: 502, nlweb: 'INTERNAL_ERROR', webtool: 'INTERNAL_ERROR', jsonrpc: -32603, a2a: 'InternalError' },
  STORE_UNAVAILABLE: { http: 503, nlweb: 'INTERNAL_ERROR', webtool: 'INTERNAL_ERROR', jsonrpc: -32603, a2a: 'InternalError' },
  WORKER_LOST: { http: 200, nlweb: 'INTERNAL_ERROR', webtool: 'INTERNAL_ERROR', jsonrpc: -32603, a2a: 'InternalError' },
  INTERNAL_ERROR: { http: 500, nlweb: 'INTERNAL_ERROR', webtool: 'INTERNAL_ERROR', jsonrpc: -32603, a2a: 'InternalError' },
} satisfies Record<string, ErrorMapping>);

export type ErrorCode = keyof typeof ERROR_TABLE;

/** True when `code` is one of the gateway's own codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_TABLE, code);
}

export interface GatewayErrorOptions {
  cause?: unknown;
  /** Seconds a client should wait before retrying (RATE_LIMITED, STORE_UNAVAILABLE). */
  retryAfter?: number;
  /** Extra fields safe to show the client (e.g. the zod issue path). */
  details?: Record<string, unknown>;
}

/** The single error type of the gateway: a semantic UPPER_SNAKE code plus a client-safe message. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: ErrorCode;
  readonly retryAfter: number | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryAfter = options.retryAfter;
    this.details = options.details;
  }

  /** The per-transport rendering of this error's code. */
  get mapping(): ErrorMapping {
    return ERROR_TABLE[this.code];
  }
}

/**
 * Turns anything thrown into a GatewayError. Unknown errors become INTERNAL_ERROR with a generic
 * message: internals (stack traces, upstream bodies, URLs with credentials) never reach a client.
 */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return err.name === 'TimeoutError'
      ? new GatewayError('TIMEOUT', 'The agent did not answer in time', { cause: err })
      : new GatewayError('CANCELLED', 'The call was cancelled', { cause: err });
  }
  return new GatewayError('INTERNAL_ERROR', 'An internal error occurred', { cause: err });
}

/** Renders a zod-style issue list as one readable sentence ("query.text: must be a string; …"). */
export function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { GatewayError } from '../../src/base/errors.ts';

/** Longest upstream error message passed on (MCP error messages are meant for clients; bodies are not). */
const MAX_MESSAGE = 200;

/**
 * Turns what the MCP client threw into a GatewayError: a JSON-RPC error from the upstream keeps its
 * meaning (invalid params, unknown method) and its short message; transport failures become
 * UPSTREAM_ERROR or TIMEOUT without internals; a cancelled call stays cancelled.
 */
export function upstreamError(err: unknown, agent: string, signal?: AbortSignal): GatewayError {
  if (signal?.aborted && signal.reason instanceof GatewayError) return signal.reason;
  if (err instanceof GatewayError) return err;
  if (ProtocolError.isInstance(err)) {
    const message = err.message.replace(/^MCP error -?\d+:\s*/, '').slice(0, MAX_MESSAGE);
    // The upstream's own error `data` (e.g. SEP-2164's `{uri}`) travels on to MCP clients unchanged.
    const details = { details: { jsonrpcCode: err.code, ...(err.data !== undefined ? { jsonrpcData: err.data } : {}) } };
    if (err.code === -32602 || err.code === -32002) return new GatewayError('SCHEMA_ERROR', message || 'Invalid params', { cause: err, ...details });
    if (err.code === -32601) return new GatewayError('TOOL_NOT_FOUND', message || 'Method not found', { cause: err, ...details });
    return new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered with an error: ${message}`, { cause: err, ...details });
  }
  if (SdkError.isInstance(err)) {
    if (err.code === SdkErrorCode.RequestTimeout) return new GatewayError('TIMEOUT', `Agent "${agent}" did not answer in time`, { cause: err });
    return new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" could not complete the call`, { cause: err });
  }
  if (err instanceof Error && err.name === 'AbortError') return new GatewayError('CANCELLED', 'The call was cancelled', { cause: err });
  return new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" could not complete the call`, { cause: err });
}

/** The reason an upstream is told when a call is cancelled: the message alone, never `GatewayError: …`. */
export function cancelReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message || 'The call was cancelled';
  return typeof reason === 'string' && reason ? reason : 'The call was cancelled';
}

/**
 * A signal that aborts with `signal` but carries a plain-text reason: the SDK client sends
 * `String(reason)` upstream in `notifications/cancelled` (MCP "Cancellation": an optional reason
 * that may be logged or displayed). `dispose` detaches it once the call is over.
 */
export function plainReasonSignal(signal: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(cancelReason(signal.reason));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, dispose: () => signal.removeEventListener('abort', onAbort) };
}

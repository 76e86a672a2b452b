import { pino, type DestinationStream } from 'pino';

/** The logging surface the gateway uses (pino's, narrowed so tests can pass a silent one). */
export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/**
 * Paths pino redacts wherever they appear: tokens and credentials are never logged
 * (a promise token or conversation token is a bearer credential).
 */
export const REDACTED_PATHS = [
  'token',
  'promise_token',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'credentials',
  '*.token',
  '*.authorization',
  'session_context',
  '*.session_context',
];

/**
 * Creates the gateway logger (JSON lines on stdout, or `destination`). `LOG_LEVEL` sets the level.
 * Stdout is written asynchronously (pino's SonicBoom with `sync: false`): a log line never blocks
 * the event loop on a slow pipe; pino flushes what is pending when the process exits.
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false })) as unknown as Logger;
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = createLogger('silent');

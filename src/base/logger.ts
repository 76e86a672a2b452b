import { pino, type DestinationStream } from 'pino';
import { logDestination } from './log-destination.ts';

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
 * Stdout is written asynchronously, the lines of a few milliseconds in one write (log-destination.ts):
 * a log line never blocks the event loop on a slow pipe; pino flushes what is pending at exit.
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  const log = pino(options, destination ?? logDestination());
  pinoDefaults.add(log);
  return log as unknown as Logger;
}

/**
 * The loggers whose lines are pino's default format (createLogger's, and their unredacted
 * children): no formatters, mixin, hooks, message prefix or custom levels, so a line can be built
 * by hand (lineSink). A logger a library user hands in is not one of them.
 */
const pinoDefaults = new WeakSet<object>();

/** Where a line built by hand goes: the logger's own stream, after the head pino would write. */
export interface LineSink {
  /** Whether `info` lines are written now (a logger's level can change while it runs). */
  infoEnabled(): boolean;
  /** What pino writes before an info line's own fields: `{"level":30,"time":…,"pid":…,"hostname":…`. */
  infoHead(): string;
  /** Writes one whole line (its `\n` included). */
  write(line: string): void;
}

/** pino's internals a LineSink reads (pino.symbols, pino v10). */
interface PinoInternals {
  isLevelEnabled(level: string): boolean;
  [key: symbol]: unknown;
}

/**
 * The line sink of a logger createLogger made (or an unredacted child of one), or undefined for any
 * other logger, whose lines only its own `info` can write. Undefined too when the stream wants
 * pino's per-line metadata (a multistream): a line written past pino would not carry it.
 */
export function lineSink(log: Logger): LineSink | undefined {
  if (!pinoDefaults.has(log)) return undefined;
  const p = log as unknown as PinoInternals;
  const { streamSym, chindingsSym, timeSym, needsMetadataGsym } = pino.symbols;
  const stream = p[streamSym] as DestinationStream & { [k: symbol]: unknown };
  if (stream[needsMetadataGsym]) return undefined;
  const time = p[timeSym] as () => string;
  return {
    infoEnabled: () => p.isLevelEnabled('info'),
    infoHead: () => `{"level":30${time()}${p[chindingsSym] as string}`,
    write: (line) => void stream.write(line),
  };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = createLogger('silent', { write: () => undefined });

/**
 * A child logger made on first use. Every agent call gets one (its lines carry the agent and the
 * request id), most calls never log, and making a pino child costs a redaction pass over its
 * bindings (`npm run bench:profile`: ~1% of a pass-through `/ask`). A class, so that the per-call
 * object is one allocation rather than five closures (issue 25).
 */
export function lazyChild(log: Logger, bindings: Record<string, unknown>): Logger {
  return new LazyChild(log, bindings);
}

class LazyChild implements Logger {
  private made: Logger | undefined;

  constructor(
    private readonly log: Logger,
    private readonly bindings: Record<string, unknown>,
  ) {}

  private get own(): Logger {
    return (this.made ??= this.log.child(this.bindings));
  }

  debug(obj: object | string, msg?: string): void {
    const enabled = (this.log as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.('debug') ?? true;
    if (enabled) this.own.debug(obj, msg);
  }

  info(obj: object | string, msg?: string): void {
    this.own.info(obj, msg);
  }

  warn(obj: object | string, msg?: string): void {
    this.own.warn(obj, msg);
  }

  error(obj: object | string, msg?: string): void {
    this.own.error(obj, msg);
  }

  child(more: Record<string, unknown>): Logger {
    return this.own.child(more);
  }
}

/**
 * A child logger without redaction, for lines built only from fields that are never secret (the
 * access log: principal name, route, status, duration). Redaction is most of such a line's cost.
 */
export function unredactedChild(log: Logger): Logger {
  const child = (log as Logger & { child(b: Record<string, unknown>, o: { redact: string[] }): Logger }).child({}, { redact: [] });
  // No bindings and no redaction: still pino's default line.
  if (pinoDefaults.has(log)) pinoDefaults.add(child);
  return child;
}

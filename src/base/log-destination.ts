import { pino } from 'pino';

/** pino's SonicBoom. */
export type LogDestination = ReturnType<typeof pino.destination>;

export interface LogDestinationOptions {
  /** Where the lines go: a file descriptor (stdout by default) or a path. */
  dest?: number | string;
  /** How long a line may wait for others to share its write, in ms. */
  holdMs?: number;
  /** Bytes pending that are written at once, without waiting for `holdMs`. */
  holdBytes?: number;
  /** Bytes pending past which new lines are dropped (a log reader that stopped reading). */
  maxBytes?: number;
}

/** A line waits at most this long for company (an access line is read by people, not by the request). */
const HOLD_MS = 20;
/** Under SonicBoom's `maxWrite` (16 KiB), so one write is still one batch of whole lines. */
const HOLD_BYTES = 15 * 1024;
/** A log pipe nobody drains costs at most this much memory, not all of it. */
const MAX_BYTES = 16 * 1024 * 1024;

/**
 * The gateway's log destination: pino's SonicBoom writing asynchronously (a slow pipe never blocks
 * the event loop), its lines gathered for up to `holdMs` (or `holdBytes`) into one write.
 *
 * Why (issue 25): each asynchronous write is a trip through libuv's thread pool (a futex wake, a
 * context switch, the completion back on the loop). SonicBoom on its own starts one for every run of
 * lines that arrive while the last write is in flight, a write every few requests under load, and
 * those trips were most of the access log's cost (`perf stat`: +0.22 futex calls and +0.08 context
 * switches a request; the line itself, into a stream that drops it, costs under a microsecond).
 *
 * The held lines are an array of our own, joined once when they go to SonicBoom. SonicBoom's own
 * buffer (`minLength`) held them first, but it appends each line to one string and measures that
 * string's UTF-8 length on every write, which flattens it: a copy of everything held, a line at a
 * time (`String::Utf8Length` and `WriteToFlat` were 2–3 % of an NLWeb pass-through's instructions;
 * issue 25). At exit pino's `flushSync` and `flush` reach the held lines too (overridden below), and
 * past `maxBytes` held or in flight new lines are dropped, with SonicBoom's `drop` event.
 */
export function logDestination(opts: LogDestinationOptions = {}): LogDestination {
  const holdMs = opts.holdMs ?? HOLD_MS;
  const holdBytes = opts.holdBytes ?? HOLD_BYTES;
  const maxBytes = opts.maxBytes ?? MAX_BYTES;
  // minLength 0: SonicBoom writes what it is given at once, or right after the write in flight.
  const out = pino.destination({ dest: opts.dest ?? 1, sync: false, minLength: 0 });
  let held: string[] = [];
  let heldBytes = 0;
  // Bytes given to SonicBoom and not yet written.
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const write = out.write.bind(out);
  /** Gives the held lines to SonicBoom as one string. */
  const release = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (held.length === 0 || closed) return;
    const text = held.join('');
    inFlight += heldBytes;
    held = [];
    heldBytes = 0;
    write(text);
  };
  out.write = (line: string): boolean => {
    const bytes = Buffer.byteLength(line);
    if (inFlight + heldBytes + bytes > maxBytes) {
      out.emit('drop', line);
      return false;
    }
    held.push(line);
    heldBytes += bytes;
    if (heldBytes >= holdBytes) release();
    else if (timer === undefined) {
      timer = setTimeout(release, holdMs);
      timer.unref();
    }
    return true;
  };
  out.on('write', (n: number) => void (inFlight -= n));
  // pino's flushSync at exit (and flush before it) write the held lines as well as SonicBoom's own.
  const flushSync = out.flushSync.bind(out);
  out.flushSync = () => {
    release();
    flushSync();
    inFlight = 0;
  };
  out.flush = (cb?: (err?: Error) => void) => {
    release();
    if (!cb) return;
    if (inFlight <= 0) cb();
    else out.once('drain', () => cb());
  };
  const end = out.end.bind(out);
  out.end = () => {
    release();
    end();
  };
  out.once('close', () => void (closed = true));
  return out;
}

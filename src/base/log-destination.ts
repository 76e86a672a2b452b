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
 * Held lines are SonicBoom's own buffer (`minLength`), so at exit pino writes them synchronously as
 * it writes any pending line, and a broken pipe is handled as pino handles it. The timer is armed
 * by a line, never while idle. Past `maxBytes` pending, SonicBoom drops new lines (`maxLength`).
 */
export function logDestination(opts: LogDestinationOptions = {}): LogDestination {
  const holdMs = opts.holdMs ?? HOLD_MS;
  const out = pino.destination({ dest: opts.dest ?? 1, sync: false, minLength: opts.holdBytes ?? HOLD_BYTES, maxLength: opts.maxBytes ?? MAX_BYTES });
  // Bytes given to SonicBoom and not yet written: what a flush has to do (no empty writes, no idle timer).
  let pending = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const flush = () => {
    timer = undefined;
    // A write in flight makes this a no-op; its 'drain' arms the timer again for what is left.
    if (pending > 0 && !closed) out.flush();
  };
  const arm = () => {
    if (timer !== undefined || pending <= 0) return;
    timer = setTimeout(flush, holdMs);
    timer.unref();
  };
  const write = out.write.bind(out);
  out.write = (line: string): boolean => {
    // Bytes, as SonicBoom reports what it wrote (it measures the line too; a flat ASCII line is cheap).
    pending += Buffer.byteLength(line);
    const ok = write(line);
    arm();
    return ok;
  };
  // flushSync (pino's at exit) writes without a 'write' event: nothing is pending after it.
  const flushSync = out.flushSync.bind(out);
  out.flushSync = () => {
    flushSync();
    pending = 0;
  };
  out.on('write', (n: number) => void (pending -= n));
  out.on('drop', (line: string) => void (pending -= Buffer.byteLength(line)));
  out.on('drain', arm);
  out.once('close', () => void (closed = true));
  return out;
}

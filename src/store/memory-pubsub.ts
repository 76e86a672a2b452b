import type { EventEmitter } from 'node:events';
import type { Logger } from '../base/logger.ts';

/**
 * One memory store's side of the message channels its backend carries (design.md "State": the
 * cross-replica cancels and the topics), which the stores sharing a backend share. A message is
 * delivered on a later tick, as through Redis: no handler runs inside the publisher's call stack.
 * Each handler is guarded (one that throws is logged, and neither stops the others nor reaches the
 * publisher), and the store's close takes every handler it added off the shared backend.
 */
export class MemoryPubSub {
  private readonly added = new Set<readonly [EventEmitter, string, (message: string) => void]>();

  constructor(private readonly log?: Logger) {}

  /** Sends `message` to every handler of `channel` on `emitter`, on a later tick. */
  publish(emitter: EventEmitter, channel: string, message: string): void {
    setImmediate(() => emitter.emit(channel, message));
  }

  /** Adds `handler` for `channel` (`what` names it in the log when it throws); returns its removal. */
  subscribe(emitter: EventEmitter, channel: string, handler: (message: string) => void, what: string): () => Promise<void> {
    const listener = (message: string): void => {
      try {
        handler(message);
      } catch (err) {
        this.log?.warn({ err }, `${what} handler failed`);
      }
    };
    const entry = [emitter, channel, listener] as const;
    emitter.on(channel, listener);
    this.added.add(entry);
    return async () => {
      emitter.off(channel, listener);
      this.added.delete(entry);
    };
  }

  /** Removes every handler this store added. */
  close(): void {
    for (const [emitter, channel, listener] of this.added) emitter.off(channel, listener);
    this.added.clear();
  }
}

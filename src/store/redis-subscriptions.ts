import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../base/logger.ts';
import { ReadyGate, storeUnavailable, toStoreError } from './redis-connection.ts';

type Client = Redis | Cluster;

/**
 * The receiving side of the Redis store's pub/sub (cross-replica cancels, Store topics): one
 * subscriber connection, duplicated from the store's client on first use and re-subscribed by
 * ioredis after every reconnect; messages are dispatched to the handlers of their channel.
 */
export class RedisSubscriptions {
  private readonly cancelHandlers = new Set<(token: string) => void>();
  /** Topic handlers by full channel name (Store.onTopic). */
  private readonly topicHandlers = new Map<string, Set<(message: string) => void>>();
  private subscriber: Client | undefined;
  private subscribing: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly opts: {
      client: Client;
      /** The cancel channel (`<prefix>cancel`), always subscribed. */
      cancelChannel: string;
      connectTimeoutMs: number;
      log: Logger | undefined;
      /** Logs the subscriber connection's outages like the store's own (RedisStore.watch). */
      watch: (client: Client, role: string) => void;
    },
  ) {}

  /** Store.onCancel: the handler hears every cancel published by any replica. */
  async onCancel(handler: (token: string) => void): Promise<() => Promise<void>> {
    this.cancelHandlers.add(handler);
    try {
      await this.subscribe();
    } catch (err) {
      this.cancelHandlers.delete(handler);
      throw toStoreError(err);
    }
    return async () => {
      this.cancelHandlers.delete(handler);
    };
  }

  /** Store.onTopic on the full channel name; the returned function unsubscribes this handler. */
  async onTopic(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    const set = this.topicHandlers.get(channel) ?? new Set();
    set.add(handler);
    this.topicHandlers.set(channel, set);
    const drop = async () => {
      set.delete(handler);
      if (set.size > 0 || this.topicHandlers.get(channel) !== set) return;
      this.topicHandlers.delete(channel);
      await this.subscriber?.unsubscribe(channel).catch(() => undefined);
    };
    try {
      await this.subscribe();
      await this.subscriber!.subscribe(channel);
    } catch (err) {
      await drop();
      throw toStoreError(err);
    }
    return drop;
  }

  /** Drops every handler; returns the subscriber connection for the store to close. */
  close(): Client | undefined {
    this.closed = true;
    this.cancelHandlers.clear();
    this.topicHandlers.clear();
    return this.subscriber;
  }

  /** Opens the subscriber connection once; ioredis re-subscribes it after every reconnect. */
  private subscribe(): Promise<void> {
    if (this.closed) return Promise.reject(storeUnavailable());
    if (!this.subscriber) {
      const sub = this.opts.client.duplicate();
      this.subscriber = sub;
      this.opts.watch(sub, 'subscriber');
      sub.on('message', (channel: string, message: string) => this.dispatch(channel, message));
    }
    const sub = this.subscriber;
    this.subscribing ??= new ReadyGate(sub, this.opts.connectTimeoutMs)
      .wait()
      .then(async () => {
        await sub.subscribe(this.opts.cancelChannel);
      })
      .catch((err: unknown) => {
        this.subscribing = undefined;
        throw err;
      });
    return this.subscribing;
  }

  private dispatch(channel: string, message: string): void {
    const handlers = this.topicHandlers.get(channel) ?? (channel === this.opts.cancelChannel ? this.cancelHandlers : undefined);
    for (const handler of handlers ?? []) {
      try {
        handler(message);
      } catch (err) {
        this.opts.log?.warn({ err, channel }, 'a pub/sub handler failed');
      }
    }
  }
}

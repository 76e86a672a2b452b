import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { collector, releaseMemoryWhenIdle, type GcFunction } from './idle-release.ts';

const MiB = 1024 * 1024;

/** A replica's clock, RSS and `gc`, with a server that only counts `request` events. */
function replica(rssMiB = 100) {
  const server = new EventEmitter();
  const state = { rss: rssMiB * MiB, now: 1_000_000, collections: 0, afterGcMiB: 60 };
  const gc: GcFunction = (options) => {
    expect(options).toEqual({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    state.collections++;
    state.rss = state.afterGcMiB * MiB;
  };
  const idle = releaseMemoryWhenIdle(server, { periodMs: 0, minIntervalMs: 30_000, gc, rss: () => state.rss, now: () => state.now });
  const requests = (n: number) => {
    for (let i = 0; i < n; i++) server.emit('request');
  };
  return { server, state, idle, requests };
}

describe('releaseMemoryWhenIdle', () => {
  it('releases once a period passes quiet, start-up garbage included', () => {
    const { state, idle } = replica();
    expect(idle.check()).toBe(true);
    expect(state.collections).toBe(1);
  });

  it('does not release while the replica serves more than a request a second', () => {
    const { state, idle, requests } = replica();
    // periodMs 0 in the fixture: any request in the period is traffic.
    requests(1);
    expect(idle.check()).toBe(false);
    expect(state.collections).toBe(0);
    // The next period, with no request, is quiet.
    expect(idle.check()).toBe(true);
  });

  it('counts health probes as quiet: up to one request a second', () => {
    const server = new EventEmitter();
    let collections = 0;
    const idle = releaseMemoryWhenIdle(server, { periodMs: 60_000, gc: () => void collections++, rss: () => 200 * MiB });
    for (let i = 0; i < 60; i++) server.emit('request');
    expect(idle.check()).toBe(true);
    for (let i = 0; i < 61; i++) server.emit('request');
    idle.stop();
    expect(collections).toBe(1);
  });

  it('does not release again until RSS has grown by 8 MiB and six periods have passed', () => {
    const { state, idle } = replica();
    expect(idle.check()).toBe(true);
    // Grown, but too soon after the last release.
    state.rss = 90 * MiB;
    state.now += 1;
    expect(idle.check()).toBe(false);
    // Long after, but not grown enough: 60 MiB after the release, 67 now.
    state.now += 3_600_000;
    state.rss = 67 * MiB;
    expect(idle.check()).toBe(false);
    state.rss = 69 * MiB;
    expect(idle.check()).toBe(true);
    expect(state.collections).toBe(2);
  });

  it('the default interval is six periods', () => {
    const server = new EventEmitter();
    let at = 0;
    let collections = 0;
    // RSS grows by 100 MiB between every two looks: only the interval holds a release back.
    let rss = 0;
    const idle = releaseMemoryWhenIdle(server, { periodMs: 5000, gc: () => void collections++, rss: () => (rss += 100 * MiB), now: () => at });
    expect(idle.check()).toBe(true);
    at = 29_999;
    expect(idle.check()).toBe(false);
    at = 30_000;
    expect(idle.check()).toBe(true);
    idle.stop();
    expect(collections).toBe(2);
  });

  it('does nothing without a collector (gc: null)', () => {
    const server = new EventEmitter();
    const idle = releaseMemoryWhenIdle(server, { periodMs: 0, gc: null, rss: () => 500 * MiB });
    expect(idle.check()).toBe(false);
  });

  it('finds V8\'s gc without --expose-gc, at the first release, and it returns freed pages', () => {
    // Vitest's workers run without --expose-gc: the collector comes from a new context.
    const gc = collector();
    expect(typeof gc).toBe('function');
    // Garbage the size of a loaded replica's, then a last-resort collection: RSS falls.
    let junk: unknown[] | undefined = Array.from({ length: 400_000 }, (_, i) => ({ i, s: `x${i}`, o: [i] }));
    const before = process.memoryUsage.rss();
    junk = undefined;
    gc!({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    expect(junk).toBeUndefined();
    expect(process.memoryUsage.rss()).toBeLessThan(before);
    // And the default of releaseMemoryWhenIdle is that collector.
    const idle = releaseMemoryWhenIdle(new EventEmitter(), { periodMs: 0, rss: () => 500 * MiB });
    expect(idle.check()).toBe(true);
  });

  it('stop() takes its listener off the server', () => {
    const { server, idle } = replica();
    expect(server.listenerCount('request')).toBe(1);
    idle.stop();
    expect(server.listenerCount('request')).toBe(0);
  });
});

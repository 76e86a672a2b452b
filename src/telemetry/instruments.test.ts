import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastHistogram } from './instruments.ts';

const BUCKETS = [0.005, 0.01, 0.1, 1, 10];
const labelsArb = fc.record({ protocol: fc.constantFrom('nlweb', 'mcp', 'nlip'), agent: fc.constantFrom('recipes', 'other', 'a"b\\c\nd') });
/** Values on and around the bucket bounds, below the first and above the last. */
const valueArb = fc.oneof(fc.constantFrom(0, ...BUCKETS, 1e6), fc.double({ min: -5, max: 50, noNaN: true }));

/** The same metrics as prom-client's instruments and as ours, each in a registry of its own. */
function pair() {
  const theirs = new Registry();
  const ours = new Registry();
  const labelNames = ['protocol', 'agent'] as const;
  return {
    theirs,
    ours,
    reference: {
      counter: new Counter({ name: 'x_total', help: 'h', labelNames, registers: [theirs] }),
      histogram: new Histogram({ name: 'x_seconds', help: 'h', labelNames, buckets: BUCKETS, registers: [theirs] }),
    },
    fast: {
      counter: new FastCounter('x_total', 'h', labelNames, [ours]),
      histogram: new FastHistogram('x_seconds', 'h', labelNames, BUCKETS, [ours]),
    },
  };
}

describe('pre-resolved instruments (issue 25)', () => {
  it('expose exactly what prom-client exposes for the same observations (property: differential)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(labelsArb, valueArb, fc.boolean()), { maxLength: 60 }), async (steps) => {
        const p = pair();
        for (const [labels, value, viaHandle] of steps) {
          p.reference.counter.inc(labels);
          p.reference.histogram.observe(labels, value);
          if (viaHandle) {
            p.fast.counter.labels(labels).inc();
            p.fast.histogram.labels(labels).observe(value);
          } else {
            p.fast.counter.inc(labels);
            p.fast.histogram.observe(labels, value);
          }
        }
        expect(await p.ours.metrics()).toBe(await p.theirs.metrics());
        expect(await p.ours.getMetricsAsJSON()).toEqual(await p.theirs.getMetricsAsJSON());
      }),
      { numRuns: 200 },
    );
  });

  it('count by more than one, and keep a resolved series live across calls', async () => {
    const p = pair();
    const handle = p.fast.counter.labels({ protocol: 'mcp', agent: 'recipes' });
    handle.inc();
    handle.inc(4);
    p.fast.counter.inc({ protocol: 'mcp', agent: 'recipes' }, 2);
    expect(await p.ours.metrics()).toContain('x_total{protocol="mcp",agent="recipes"} 7');
  });

  it('drop a value that is not a number rather than corrupt the sum', async () => {
    const p = pair();
    p.fast.histogram.observe({ protocol: 'nlweb', agent: 'recipes' }, Number.NaN);
    p.fast.histogram.observe({ protocol: 'nlweb', agent: 'recipes' }, 0.5);
    const text = await p.ours.metrics();
    expect(text).toContain('x_seconds_sum{protocol="nlweb",agent="recipes"} 0.5');
    expect(text).toContain('x_seconds_count{protocol="nlweb",agent="recipes"} 1');
  });

  it('forget their series when the registry is reset', async () => {
    const p = pair();
    p.fast.counter.inc({ protocol: 'nlweb', agent: 'recipes' });
    p.ours.resetMetrics();
    expect(await p.ours.metrics()).not.toContain('x_total{');
  });
});

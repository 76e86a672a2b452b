import type { MetricValueWithName, Registry } from 'prom-client';

/**
 * Counters and histograms for the per-request path (issue 25 "metrics recorded into pre-resolved
 * series"), rendered by prom-client's own Registry. Why not prom-client's instruments: they check
 * every label and hash the label object on each call, even through a `labels()` child (≈ 3 µs per
 * request for a count and a duration, measured; caching the children saved nothing). Here a series
 * is found by its label values joined in `labelNames` order, and `labels()` hands back the series
 * itself, so a caller that keeps it pays one addition. The exposition is prom-client's: each
 * instrument answers `get()` with the MetricObject its Registry formats, so `/metrics` is unchanged.
 *
 * Label values are not validated here: every caller passes values from the bounded sets of labels.ts.
 */
type Labels<L extends string> = Record<L, string | number>;

/** One value as prom-client's Registry reads it (its `MetricValueWithName`, plus the labels shared by a histogram's lines). */
type Value = MetricValueWithName<string> & { sharedLabels?: Record<string, string | number> };

/** What `get()` answers: the shape of prom-client's own metrics, which its Registry renders. */
export interface Exposed {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Value[];
  aggregator: 'sum';
}

abstract class Instrument<L extends string, S extends { labels: Labels<L> }> {
  protected readonly series = new Map<string, S>();
  readonly aggregator = 'sum' as const;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    registers: Registry[],
  ) {
    // Registry.registerMetric renders any object with a name and get(); its typing names only its own classes.
    for (const registry of registers) registry.registerMetric(this as never);
  }

  protected abstract create(labels: Labels<L>): S;

  /** The series of these label values, created on first use. */
  protected slot(labels: Labels<L>): S {
    let key = '';
    for (const name of this.labelNames) key += `${labels[name]}\u0000`;
    let series = this.series.get(key);
    if (!series) this.series.set(key, (series = this.create({ ...labels })));
    return series;
  }

  /** Forgets every series (prom-client's `Registry.resetMetrics`). */
  reset(): void {
    this.series.clear();
  }
}

interface CounterSeries<L extends string> {
  labels: Labels<L>;
  value: number;
}

/** A Prometheus counter (exposition format "counter"). */
export class FastCounter<L extends string> extends Instrument<L, CounterSeries<L>> {
  readonly type = 'counter' as const;

  protected create(labels: Labels<L>): CounterSeries<L> {
    return { labels, value: 0 };
  }

  /** Adds `value` (default 1) to the series of `labels`. */
  inc(labels: Labels<L>, value = 1): void {
    this.slot(labels).value += value;
  }

  /** The series of `labels`, resolved once: `inc()` on it costs one addition. */
  labels(labels: Labels<L>): { inc(value?: number): void } {
    const series = this.slot(labels);
    return { inc: (value = 1) => void (series.value += value) };
  }

  /** The MetricObject prom-client's Registry renders. */
  get(): Exposed {
    const values = [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface HistogramSeries<L extends string> {
  labels: Labels<L>;
  /** Observations per bucket (not cumulative; the exposition sums them). */
  counts: Float64Array;
  sum: number;
  count: number;
}

/** A Prometheus histogram (exposition format "histogram": `_bucket` cumulative with `le`, `_sum`, `_count`). */
export class FastHistogram<L extends string> extends Instrument<L, HistogramSeries<L>> {
  readonly type = 'histogram' as const;

  constructor(name: string, help: string, labelNames: readonly L[], readonly buckets: readonly number[], registers: Registry[]) {
    super(name, help, labelNames, registers);
  }

  protected create(labels: Labels<L>): HistogramSeries<L> {
    return { labels, counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
  }

  /** Records one observation in the series of `labels`. */
  observe(labels: Labels<L>, value: number): void {
    this.record(this.slot(labels), value);
  }

  /** The series of `labels`, resolved once. */
  labels(labels: Labels<L>): { observe(value: number): void } {
    const series = this.slot(labels);
    return { observe: (value) => this.record(series, value) };
  }

  private record(series: HistogramSeries<L>, value: number): void {
    if (!Number.isFinite(value)) return;
    series.sum += value;
    series.count += 1;
    const { buckets } = this;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]!) {
        series.counts[i]! += 1;
        return;
      }
    }
  }

  /** The MetricObject prom-client's Registry renders as text: bucket bounds first, then the series' labels. */
  getForPromString(): Exposed {
    const values: Value[] = [];
    for (const s of this.series.values()) {
      const shared = (labels: Record<string, string | number>, value: number, suffix: string) =>
        values.push({ labels, value, metricName: `${this.name}${suffix}`, sharedLabels: s.labels });
      let cumulative = 0;
      this.buckets.forEach((le, i) => shared({ le }, (cumulative += s.counts[i]!), '_bucket'));
      shared({ le: '+Inf' }, s.count, '_bucket');
      shared({}, s.sum, '_sum');
      shared({}, s.count, '_count');
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The same as one object per value with every label on it (prom-client's `get()`, for `getMetricsAsJSON`). */
  get(): Exposed {
    const metric = this.getForPromString();
    // prom-client marks each bucket line with `exemplar: null` (exemplars are off); kept for equal JSON.
    const values = metric.values.map(({ sharedLabels, ...v }) => ({ ...v, ...(v.metricName?.endsWith('_bucket') ? { exemplar: null } : {}), labels: { ...v.labels, ...sharedLabels } }));
    return { ...metric, values };
  }
}

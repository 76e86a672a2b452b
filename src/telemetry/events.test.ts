import { afterEach, describe, expect, it } from 'vitest';
import { upstreamChannels, type UpstreamExchange } from '../core/upstream-events.ts';
import { subscribeMetrics } from './events.ts';
import { createMetrics, type GatewayMetrics } from './metrics.ts';

let exchangeId = 0;
const exchange = (agent: string, kind?: string): UpstreamExchange => ({
  id: ++exchangeId,
  agent,
  ...(kind ? { kind } : {}),
  method: 'POST',
  url: 'http://127.0.0.1:1/ask',
  headers: {},
  startedAt: 0,
});

/** One exchange's end, as UpstreamClient publishes it. */
const end = (agent: string, status: number | undefined, error?: string, kind = 'nlweb') =>
  upstreamChannels.end.publish({ exchange: exchange(agent, kind), ...(status !== undefined ? { status } : {}), ...(error ? { error } : {}), bytes: 0, durationMs: 20 });

/** The value of one series of a metric, by its labels (0 when there is none). */
async function valueOf(metrics: GatewayMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const match = metric?.values.find((v) => Object.entries(labels).every(([k, value]) => String(v.labels[k]) === value) && Object.keys(v.labels).length === Object.keys(labels).length);
  return match?.value ?? 0;
}

let unsubscribe: (() => void) | undefined;
afterEach(() => unsubscribe?.());

describe('upstream metrics from the exchanges published (issue 13 item 1; series resolved once, issue 25)', () => {
  it('counts each outcome in its own series: status classes, error codes, HTTP errors, agents outside the config', async () => {
    const metrics = createMetrics();
    unsubscribe = subscribeMetrics(metrics, { names: new Set(['recipes']), kindOf: () => 'nlweb' });
    end('recipes', 200);
    end('recipes', 204);
    end('recipes', 503);
    end('recipes', undefined, 'TIMEOUT');
    end('recipes', undefined, 'not a code');
    end('stranger', 200);
    end('recipes', 200, undefined, 'mcp');

    const requests = (agent: string, outcome: string, kind = 'nlweb') => valueOf(metrics, 'nlgate_upstream_requests_total', { agent, kind, outcome });
    expect(await requests('recipes', '2xx')).toBe(2);
    expect(await requests('recipes', '5xx')).toBe(1);
    expect(await requests('recipes', 'TIMEOUT')).toBe(1);
    expect(await requests('recipes', 'OTHER')).toBe(1);
    expect(await requests('other', '2xx')).toBe(1);
    expect(await requests('recipes', '2xx', 'mcp')).toBe(1);
    const errors = (error: string) => valueOf(metrics, 'nlgate_upstream_errors_total', { agent: 'recipes', kind: 'nlweb', error });
    expect(await errors('HTTP_5XX')).toBe(1);
    expect(await errors('TIMEOUT')).toBe(1);
    expect(await valueOf(metrics, 'nlgate_upstream_request_duration_seconds', { agent: 'recipes', kind: 'nlweb', le: '0.025' })).toBe(5);
  });

  it('keeps no series for a subscriber that was removed', async () => {
    const metrics = createMetrics();
    subscribeMetrics(metrics, { names: new Set(['recipes']), kindOf: () => 'nlweb' })();
    end('recipes', 200);
    expect(await valueOf(metrics, 'nlgate_upstream_requests_total', { agent: 'recipes', kind: 'nlweb', outcome: '2xx' })).toBe(0);
  });
});

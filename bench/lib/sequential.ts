/** One connection, one request at a time: latency without queueing, and SSE first/last event times. */
import { Agent, request } from 'undici';

export interface Percentiles {
  n: number;
  p50Ms: number;
  p99Ms: number;
}

export function percentiles(samples: number[]): Percentiles {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 1000) / 1000;
  return { n: s.length, p50Ms: at(0.5), p99Ms: at(0.99) };
}

export interface SequentialSpec {
  url: string;
  body: string;
  headers?: Record<string, string>;
  n: number;
}

const agent = new Agent({ connections: 1, pipelining: 1 });

/** Latency of `n` requests in a row over one keep-alive connection (after `n / 10` warm-up requests). */
export async function sequential(spec: SequentialSpec): Promise<Percentiles> {
  const samples: number[] = [];
  const warmup = Math.max(10, Math.floor(spec.n / 10));
  for (let i = 0; i < spec.n + warmup; i++) {
    const t = performance.now();
    const res = await request(spec.url, { method: 'POST', body: spec.body, headers: { 'content-type': 'application/json', ...spec.headers }, dispatcher: agent });
    await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${spec.url} answered ${res.statusCode}`);
    if (i >= warmup) samples.push(performance.now() - t);
  }
  return percentiles(samples);
}

/** SSE: time to the first `result` event and to the end of the stream, `n` times in a row. */
export async function sseTimes(spec: SequentialSpec): Promise<{ firstEvent: Percentiles; lastEvent: Percentiles }> {
  const first: number[] = [];
  const last: number[] = [];
  for (let i = 0; i < spec.n + 10; i++) {
    const t = performance.now();
    const res = await request(spec.url, { method: 'POST', body: spec.body, headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...spec.headers }, dispatcher: agent });
    let firstAt = 0;
    for await (const chunk of res.body) if (!firstAt && String(chunk).includes('result')) firstAt = performance.now();
    if (i >= 10) {
      first.push((firstAt || performance.now()) - t);
      last.push(performance.now() - t);
    }
  }
  return { firstEvent: percentiles(first), lastEvent: percentiles(last) };
}

/**
 * In-process load for the per-path CPU benches (bench/mcp-paths.ts, bench/a2a-paths.ts): requests
 * sent through `app.request()`, so no socket or load generator shares the measurement.
 */
import type { GatewayApp } from '../../src/app.ts';

/** One request repeated against one app. */
export interface InProcessScenario {
  name: string;
  app: GatewayApp;
  path: string;
  body: string;
  headers: Record<string, string>;
}

/** CPU µs per request of `n` requests of `s`, `concurrency` at a time; throws on an answer without the results. */
export async function cpuPerRequest(s: InProcessScenario, n: number, concurrency = 16): Promise<number> {
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      const res = await s.app.app.request(s.path, { method: 'POST', headers: s.headers, body: s.body });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('Pasta 3')) throw new Error(`${s.name}: ${res.status} ${text.slice(0, 300)}`);
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

/** The median of a non-empty list. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * `npx tsx bench/catalog-bounds.ts`: the catalog's worst-case queries (issue 11) against a real
 * gateway process with the embedded default (the recipe catalog): the time of each `POST /ask` and the
 * process's RSS before and after, plus the longest `/healthz` wait while an 850 KB query runs.
 * Prints a table; the figures are quoted in docs/catalog.md. Never part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import { spawnGateway } from '../test/support/process.ts';

const rssMb = (pid: number): number => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
};

const gw = await spawnGateway({
  server: { bodyLimitBytes: 2_000_000 },
  store: { kind: 'memory' },
  agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }],
});
const pid = gw.child.pid!;
const ask = async (text: string) => {
  const t = performance.now();
  const res = await fetch(`${gw.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text } }) });
  const body = (await res.json()) as { _meta: { response_type: string }; error?: { code: string } };
  return { ms: Math.round((performance.now() - t) * 10) / 10, outcome: body.error?.code ?? body._meta.response_type };
};

try {
  await ask('warm up curry');
  const cases: Array<[string, string]> = [
    ['"curry" (happy path)', 'curry'],
    ['one 60,000-character word', 'a'.repeat(60_000)],
    ['one 100,000-character word', 'spaghetti'.repeat(11_112)],
    ['850 KB of distinct words', Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}xy`).join(' ')],
  ];
  const rows = [];
  for (const [label, text] of cases) {
    const before = rssMb(pid);
    const healthz: number[] = [];
    let running = true;
    const probe = (async () => {
      while (running) {
        const t = performance.now();
        await fetch(`${gw.url}/healthz`);
        healthz.push(performance.now() - t);
      }
    })();
    const r = await ask(text);
    running = false;
    await probe;
    rows.push({ query: label, chars: text.length, ms: r.ms, outcome: r.outcome, rssBeforeMb: before, rssAfterMb: rssMb(pid), worstHealthzMs: Math.round(Math.max(...healthz) * 10) / 10 });
  }
  console.table(rows);
} finally {
  await gw.stop();
}

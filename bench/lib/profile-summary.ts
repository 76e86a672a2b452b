/**
 * Summarises a `.cpuprofile` (V8 CPU profile, as `node --cpu-prof` writes it): the top frames by
 * self time, with their share of the samples. `tsx bench/lib/profile-summary.ts FILE [N]`.
 */
import { readFileSync } from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }

/** Top `n` frames by self samples: `share  function  file:line`. */
export function topFrames(file: string, n = 25): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[] };
  const byFrame = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^.*node_modules\//, '~/').replace(/^file:\/\/.*wt-upstream\//, '')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'}  ${where}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + hits);
  }
  return [...byFrame.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(topFrames(process.argv[2]!, Number(process.argv[3] ?? 25)).join('\n'));
}

/** Top `n` frames by inclusive time (self plus callees), counting each frame once per stack. */
export function inclusiveFrames(file: string, n = 25, filter = (key: string) => true): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Array<Node & { children?: number[] }> };
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const parent = new Map<number, number>();
  for (const x of profile.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const keyOf = (x: Node) => `${x.callFrame.functionName || '(anonymous)'}  ${x.callFrame.url.replace(/^.*node_modules\//, '~/').replace(/^file:\/\/.*wt-upstream\//, '')}:${x.callFrame.lineNumber + 1}`;
  const totals = new Map<string, number>();
  let total = 0;
  for (const x of profile.nodes) {
    const hits = x.hitCount ?? 0;
    if (!hits) continue;
    total += hits;
    const seen = new Set<string>();
    for (let id: number | undefined = x.id; id !== undefined; id = parent.get(id)) {
      const key = keyOf(byId.get(id)!);
      if (seen.has(key)) continue;
      seen.add(key);
      totals.set(key, (totals.get(key) ?? 0) + hits);
    }
  }
  return [...totals.entries()].filter(([k]) => filter(k)).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
}

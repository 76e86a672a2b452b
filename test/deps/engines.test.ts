// Issue 29: the Node range the project claims is one that every production dependency supports.
// Walks the installed production tree (package.json `dependencies`, resolved the way Node resolves
// them, transitively) and reads each package's own `engines.node`.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Where Node finds package `name` from a package in `fromDir`: the nearest node_modules above it. */
function resolvePackage(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Every installed package reachable from the project's production dependencies, with its folder. */
function productionTree(root: string): Map<string, Manifest> {
  const seen = new Map<string, Manifest>();
  const queue: Array<[string, string]> = Object.keys(readManifest(root).dependencies ?? {}).map((n) => [n, root]);
  while (queue.length > 0) {
    const [name, from] = queue.shift()!;
    const dir = resolvePackage(name, from);
    if (!dir || seen.has(dir)) continue; // an optional dependency for another platform is not installed
    const manifest = readManifest(dir);
    seen.set(dir, manifest);
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) queue.push([dep, dir]);
  }
  return seen;
}

describe('the Node baseline (issue 29)', () => {
  const range = readManifest(REPO_ROOT).engines!.node!;

  it('every production dependency supports every Node version engines.node claims', () => {
    const tree = productionTree(REPO_ROOT);
    expect(tree.size).toBeGreaterThan(50); // the walk found the real tree, not an empty one
    const outside = [...tree.values()]
      .filter((m) => m.engines?.node && !semver.subset(range, m.engines.node))
      .map((m) => `${m.name}@${m.version} needs node ${m.engines!.node}`);
    expect(outside, `engines.node is ${range}`).toEqual([]);
  });

  it('npm install on a supported Node warns about no engine: every locked package, dev ones too, covers the range', () => {
    // Odd-numbered Node lines are never LTS and some tools skip them (vitest: ^22 || >=24), hence the range's gap at 23.
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
    const outside = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !Array.isArray(p.engines) && p.engines?.node && !semver.subset(range, p.engines.node))
      .map(([path, p]) => `${path}@${p.version}`);
    expect(outside, `engines.node is ${range}`).toEqual([]);
  });

  it('claims no older Node than its oldest dependency needs: the range starts at the highest minimum', () => {
    const minimums = [...productionTree(REPO_ROOT).values()]
      .map((m) => m.engines?.node && semver.minVersion(m.engines.node))
      .filter((v): v is semver.SemVer => Boolean(v));
    const highest = minimums.reduce((a, b) => (semver.gt(a, b) ? a : b));
    expect(semver.minVersion(range)!.version).toBe(highest.version);
  });

  it('an unsupported Node gets one line naming the Node it needs, not a stack trace', async () => {
    const { nodeProblem } = await import('../../scripts/node-range.mjs');
    expect(nodeProblem('v20.20.2', range)).toBe(
      `nlgate needs Node.js ${range} (Node 24 LTS recommended); this is Node 20.20.2. See docs/deploy.md#runtime.`,
    );
    expect(nodeProblem(process.version, range)).toBeUndefined();
  });

  it('npm start and bin/nlgate.js refuse an unsupported Node in one line, before loading anything', () => {
    // The real scripts, copied beside a package.json whose range excludes the running Node.
    const dir = mkdtempSync(join(tmpdir(), 'nlgate-engines-'));
    try {
      for (const f of ['scripts/node-range.mjs', 'scripts/require-node.mjs', 'bin/nlgate.js']) {
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        cpSync(join(REPO_ROOT, f), join(dir, f));
      }
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', engines: { node: '>=99' } }));
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(join(REPO_ROOT, 'node_modules/semver'), join(dir, 'node_modules/semver'));
      for (const entry of ['scripts/require-node.mjs', 'bin/nlgate.js']) {
        const run = spawnSync(process.execPath, [join(dir, entry)], { encoding: 'utf8' });
        expect(run.status, entry).toBe(1);
        expect(run.stderr.trim(), entry).toBe(`nlgate needs Node.js >=99 (Node 24 LTS recommended); this is Node ${process.version.slice(1)}. See docs/deploy.md#runtime.`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const start = readManifest(REPO_ROOT) as Manifest & { scripts: Record<string, string> };
    expect(start.scripts.start?.startsWith('node scripts/require-node.mjs && ')).toBe(true);
  });
});

// Issue 23 "load what a deployment does not use only when it is used": in the production bundle
// (`npm run build`), the MCP and A2A client SDKs (the `mcp` and `a2a` adapters), the OpenAPI $ref
// resolver (the `openapi` adapter), the OpenTelemetry SDK, the A2A and MCP server SDKs, ioredis,
// undici and ajv sit in chunks that the CLI's static import graph never reaches; only a configured
// agent of that kind, tracing, the first A2A or MCP request, a Redis store, the first upstream
// request or the first JSON Schema compiled imports them. The server itself (Hono, the bindings,
// metrics) is imported by `serve` past the point where a cluster primary branches off, and every
// command's code when it runs: a primary started by WORKERS loads no config. (That the bundle needs no node_modules at all is checked by
// image.test.ts, which runs it from a folder with none above it.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/gateway.ts';

let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'nlgate-bundle-'));
  const build = spawnSync(process.execPath, ['scripts/build.mjs', out], { cwd: REPO_ROOT, encoding: 'utf8' });
  expect(build.status, build.stderr).toBe(0);
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/**
 * Every file reached from `entry` by static `import … from "./…"` (not `import()`), entry included;
 * and the module the entry itself imports with a top-level `await import()` (src/cli.ts loads
 * src/cli/main.ts, dist/cli-main.js, so, after pausing the compilers: it loads at every start just the same).
 */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const awaited = [...readFileSync(entry, 'utf8').matchAll(/=await import\("(\.[^"]+)"\)/g)].map((m) => resolve(dirname(entry), m[1]!));
  const queue = [entry, ...awaited];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    // Minified ESM: `import{a as b}from"./chunks/x.js"` or `import"./chunks/x.js"`; dynamic ones are `import("…")`.
    for (const m of text.matchAll(/import\s*(?:[\w$*{}\s,]+from\s*)?["'](\.[^"']+)["']/g)) queue.push(resolve(dirname(file), m[1]!));
  }
  return seen;
}

const chunkWith = (marker: string) => readdirSync(join(out, 'chunks')).filter((f) => f.endsWith('.js') && readFileSync(join(out, 'chunks', f), 'utf8').includes(marker));

describe('the production bundle', () => {
  for (const [what, marker] of [
    ['the MCP client SDK (mcp adapter)', 'StreamableHTTPClientTransport'],
    ['the A2A client SDK (a2a adapter)', 'createFromAgentCard'],
    ['the OpenAPI $ref resolver (openapi adapter)', 'Error resolving $ref pointer'],
    ['the OpenTelemetry Node SDK (tracing)', 'BatchSpanProcessor'],
    ['the A2A server SDK (the A2A binding, until its first request)', 'JsonRpcTransportHandler'],
    ['ioredis (the Redis store)', 'ClusterAllFailedError'],
    ['the MCP server SDK (the MCP binding, until its first request)', 'Only one SSE stream is allowed per session'],
    ['undici (upstream connection pools, until the first upstream request)', 'invalid connections'],
    ['ajv (foreign JSON Schemas, until the first one is compiled)', 'NOT SUPPORTED: keyword'],
    // A cluster primary (WORKERS > 1) only forks: the server is imported after the primary's branch.
    ['Hono (the server, which a cluster primary never starts)', 'Context is not finalized'],
    ['prom-client (the metrics, which a cluster primary never serves)', 'process_cpu_user_seconds_total'],
    // A primary started by WORKERS loads no config: its first worker does (issue 23: ≈ 13 MiB of
    // private memory for the primary instead of ≈ 26).
    ['zod (the config and protocol schemas, which a primary started by WORKERS never loads)', '$ZodError'],
    ['the adapters and the config loader (same)', 'unknown kind'],
  ] as const) {
    it(`keeps ${what} out of what the CLI loads at start`, () => {
      // The entry's main module is part of what it loads (regression: once the entry awaited it, a check of the entry alone passed whatever main held).
      expect([...staticClosure(join(out, 'cli.js'))].some((f) => f.endsWith('/cli-main.js'))).toBe(true);
      const holders = chunkWith(marker);
      expect(holders.length, `no chunk holds ${marker}: the marker is stale`).toBeGreaterThan(0);
      const loaded = [...staticClosure(join(out, 'cli.js'))].map((f) => f.split('/').pop());
      expect(holders.filter((h) => loaded.includes(h))).toEqual([]);
      for (const file of ['cli.js', 'cli-main.js']) expect(readFileSync(join(out, file), 'utf8')).not.toContain(marker);
    });
  }

  // Issue 23: the entry pauses V8's optimizing compilers before anything else loads. Built as one
  // more entry of the split bundle it imported esbuild's shared chunk first, and loading that chunk
  // got Node's path code optimized before the pause (≈ 2 MiB of idle RSS): it now imports no module
  // of the bundle statically, only Node's own, and its body with the one top-level `await import()`.
  it('starts from an entry that imports no module of the bundle before it pauses the compilers', () => {
    const entry = readFileSync(join(out, 'cli.js'), 'utf8');
    const staticImports = [...entry.matchAll(/import\s*(?:[\w$*{}\s,]+from\s*)?["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(staticImports.length).toBeGreaterThan(0);
    expect(staticImports.filter((s) => !s.startsWith('node:'))).toEqual([]);
    expect([...entry.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(['./cli-main.js']);
  });

  // Issue 25: esbuild's keepNames wraps every function it emits in `__name(fn, "name")`, which then
  // runs each time a closure is made: ≈ 20% of a pass-through request's CPU (docs/benchmarks.md).
  it('renames no function at run time (no keepNames helper in any chunk)', () => {
    const files = [join(out, 'cli.js'), join(out, 'cli-main.js'), ...readdirSync(join(out, 'chunks')).filter((f) => f.endsWith('.js')).map((f) => join(out, 'chunks', f))];
    expect(files.filter((f) => /\b__name\(/.test(readFileSync(f, 'utf8'))).map((f) => f.split('/').pop())).toEqual([]);
  });
});


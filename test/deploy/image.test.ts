import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/gateway.ts';

// The image checked without a container engine, in two halves: the Dockerfile's text (what the
// engine would do), and its start command run as-is, outside Docker, from a copy of exactly the
// files the runtime stage copies, with the image's environment. test/deploy/container.test.ts
// builds and runs the real image where a Docker daemon is reachable.
const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
const stages = dockerfile.split(/^FROM /m).slice(1);
const runtime = stages.at(-1)!;

/** The runtime stage's `COPY <src> <dest>` lines from the build context (not from another stage). */
const contextCopies = [...runtime.matchAll(/^COPY (?!--from)(\S+) (\S+)$/gm)].map((m) => ({ src: m[1]!, dest: m[2]! }));
/** The image's environment (`ENV K=V K2="V 2" ...`, a quoted value as Docker reads it). */
const imageEnv = Object.fromEntries([...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((m) => [...m[1]!.matchAll(/(\w+)=(?:"([^"]*)"|(\S+))/g)].map((kv) => [kv[1]!, kv[2] ?? kv[3]!] as [string, string])));
const cmd = JSON.parse(runtime.match(/^CMD (\[.*\])$/m)![1]!) as string[];

describe('Dockerfile', () => {
  it('builds from the Node 24 LTS tag (no digest nobody pulled; operators pin their own), in two stages', () => {
    const base = dockerfile.match(/^ARG NODE_IMAGE=(\S+)$/m)?.[1];
    expect(base).toBe('node:24-bookworm-slim');
    expect(stages.length).toBe(2);
    for (const stage of stages) expect(stage.split('\n')[0]).toMatch(/^\$\{NODE_IMAGE\}/);
  });

  it('runs the compiled CLI as a non-root user behind an init, with a liveness HEALTHCHECK', () => {
    expect(cmd).toEqual(['node', 'dist/cli.js', 'serve']);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    const healthcheck = runtime.match(/^HEALTHCHECK[\s\S]*?CMD (.*)$/m)?.[1] ?? '';
    expect(healthcheck).toContain('/healthz');
    expect(healthcheck).not.toContain('/readyz'); // readiness checks Redis: an outage must not kill every replica
    expect(runtime).not.toMatch(/\btsx\b|COPY src /); // nothing is transpiled at start
  });

  it('copies only paths that exist; the build stage compiles with npm run build', () => {
    for (const { src } of contextCopies) expect(existsSync(join(REPO_ROOT, src)), src).toBe(true);
    for (const m of stages[0]!.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) for (const src of m[1]!.split(/\s+/)) expect(existsSync(join(REPO_ROOT, src)), src).toBe(true);
    expect(stages[0]).toMatch(/RUN npm run build\b/);
  });

  it('copies every source folder the build needs (the console was once missing)', () => {
    const built = new Set([...stages[0]!.matchAll(/^COPY (?!--from)(\S+) /gm)].map((m) => m[1]!));
    for (const dir of ['src', 'adapters', 'console', 'scripts', 'examples']) expect(built.has(dir), dir).toBe(true);
  });

  it('ships no node_modules and no dev tooling in the runtime stage: the bundle is self-contained', () => {
    expect(runtime).not.toMatch(/node_modules/);
    expect(runtime).toMatch(/^COPY --from=build \/src\/dist \.\/dist$/m);
  });
});

describe('the image start command, run as-is outside Docker', () => {
  let app: string;
  const built = `.nlgate-test-dist-${process.pid}`;
  const children: ChildProcess[] = [];

  /** Starts a command in the image layout and resolves with the URL it prints. */
  function start(argv: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
    const child = spawn(process.execPath, argv.slice(1), { cwd: app, env: { PATH: process.env.PATH!, ...env } });
    children.push(child);
    return new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000);
      const read = (d: Buffer) => {
        out += d.toString();
        const m = out.match(/"url":"([^"]+)"/) ?? out.match(/on (http:\/\/\S+)/);
        if (m) (clearTimeout(timer), resolve({ url: m[1]!.replace('0.0.0.0', '127.0.0.1'), child }));
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
  }

  beforeAll(async () => {
    // The build stage: npm run build (esbuild), into a folder of this test's own (not the checkout's dist/).
    await new Promise<void>((resolve, reject) => {
      const b = spawn(process.execPath, ['scripts/build.mjs', built], { cwd: REPO_ROOT, stdio: 'inherit' });
      b.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build exited ${code}`))));
    });
    // The runtime stage: /app holds only what it copies (dist, config, the catalog, package.json);
    // no node_modules: every package the gateway runs is inside the bundle.
    app = mkdtempSync(join(tmpdir(), 'nlgate-image-'));
    cpSync(join(REPO_ROOT, built), join(app, 'dist'), { recursive: true });
    rmSync(join(REPO_ROOT, built), { recursive: true, force: true });
    // `COPY a ./` copies into the folder; `COPY dir ./dir` makes it.
    for (const { src, dest } of contextCopies) cpSync(join(REPO_ROOT, src), join(app, dest.endsWith('/') ? src : dest), { recursive: true });
  }, 60_000);
  afterAll(() => {
    for (const c of children) c.kill('SIGTERM');
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('serves /healthz and answers a query with the embedded config, without src/ or tsx', async () => {
    expect(existsSync(join(app, 'src'))).toBe(false);
    // The image's env as-is, except PORT: a free port instead of 8080 (other suites run alongside).
    const { url } = await start(cmd, { ...imageEnv, PORT: '0' });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const res = await fetch(`${url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":{"text":"pasta"}}' });
    const body = (await res.json()) as { results: unknown[] };
    expect(body.results.length).toBeGreaterThan(0);
  });

  it('gives start-up\'s spare heap back at its first quiet look, in the image\'s own environment (src/runtime/idle-release.ts)', async () => {
    const { child } = await start(cmd, { ...imageEnv, PORT: '0', LOG_LEVEL: 'debug' });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no idle release in 15 s: ${out}`)), 15_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = out.match(/[^\n]*(memory returned to the system|idle memory release is off)[^\n]*/);
        if (m) (clearTimeout(timer), resolve(m[0]));
      });
    });
    expect(line).toContain('memory returned to the system');
  }, 20_000);

  it('prints its version and help from the compiled CLI', async () => {
    const run = (args: string[]) =>
      new Promise<string>((resolve) => {
        const c = spawn(process.execPath, ['dist/cli.js', ...args], { cwd: app });
        let out = '';
        c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        c.once('exit', () => resolve(out));
      });
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((await run(['--version'])).trim()).toBe(pkg.version);
    expect(await run([])).toMatch(/Commands:[\s\S]*serve[\s\S]*check-config[\s\S]*probe/);
  });

  it('runs a demo agent from the same image (what the compose file does)', async () => {
    const { url } = await start(['node', 'dist/demo-agents.js', 'webtool'], { ...imageEnv, PORT: '0' });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { name: string }).name).toBeTruthy();
  });

  describe("V8's optimizing compilers: off through start-up and probes, on with the first request (src/runtime/compiler-tiers.ts)", () => {
    /** Starts the gateway with V8's `--trace-opt`, counting the functions its optimizing compilers finished. */
    async function traced(env: Record<string, string>, v8Flags: string[] = []) {
      const { url, child } = await start(['node', '--trace-opt', ...v8Flags, ...cmd.slice(1)], { ...env, PORT: '0' });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const compiled = (target?: RegExp) => out.split('\n').filter((l) => l.startsWith('[completed compiling') && (!target || target.test(l))).length;
      const asks = async (n: number) => {
        for (let i = 0; i < n; i += 16) await Promise.all(Array.from({ length: 16 }, () => fetch(`${url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":{"text":"pasta"}}' }).then((r) => r.arrayBuffer())));
      };
      const probes = async () => {
        for (let i = 0; i < 20; i++) for (const path of ['/healthz', '/readyz', '/metrics']) await (await fetch(`${url}${path}`)).arrayBuffer();
        await new Promise((r) => setTimeout(r, 300));
      };
      return { compiled, asks, probes };
    }

    it('in the image\'s environment: start-up pauses them, probes leave them off, traffic turns them on', async () => {
      const gw = await traced(imageEnv);
      // Counted from the moment it listens (what loads before the entry pauses them may optimize a function of Node's path code).
      await gw.probes();
      expect(gw.compiled()).toBe(0);
      await gw.asks(2_000);
      await expect.poll(() => gw.compiled(), { timeout: 10_000 }).toBeGreaterThan(0);
    }, 60_000);

    it("an operator's own compiler flags are left as they are: Maglev stays off under --no-maglev", async () => {
      const gw = await traced(imageEnv, ['--no-maglev']);
      await gw.asks(4_000);
      await expect.poll(() => gw.compiled(/target TURBOFAN/), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(gw.compiled(/target MAGLEV/)).toBe(0);
    }, 60_000);

    it('the first request brings back exactly the compilers this Node runs by default (Maglev is off by default on Node 22)', async () => {
      const v8Options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
      const maglevDefault = /^ {2}--maglev \(.*\n\s+type: bool {2}default: --maglev$/m.test(v8Options);
      const gw = await traced(imageEnv);
      await gw.asks(4_000);
      await expect.poll(() => gw.compiled(/target TURBOFAN/), { timeout: 10_000 }).toBeGreaterThan(0);
      if (maglevDefault) await expect.poll(() => gw.compiled(/target MAGLEV/), { timeout: 10_000 }).toBeGreaterThan(0);
      else expect(gw.compiled(/target MAGLEV/)).toBe(0);
    }, 60_000);
  });

  it('exits 0 on SIGTERM', async () => {
    const { child } = await start(cmd, { ...imageEnv, PORT: '0' });
    const code = await new Promise<number | null>((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  });
});

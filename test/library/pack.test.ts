/**
 * The package as a user gets it (issue 28): `npm pack` (which builds, through `prepack`), the
 * tarball unpacked into a scratch application outside the repository, and the three examples of
 * examples/library (Hono, Express, node:http) run from there, each asked through NLWeb, NLIP, MCP
 * (the SDK's client), A2A (the SDK's client) and webtools under /gateway. publint and
 * arethetypeswrong check the tarball.
 *
 * The tarball's files are placed where npm puts them (node_modules/nlgate). Its dependencies are
 * linked from the repository's node_modules rather than installed again (an install of the whole
 * tree takes most of a minute): only the packages the tarball's package.json declares, so a
 * dependency it forgets to declare still fails here.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/gateway.ts';
import { spawnListening, type Listening } from '../support/spawn-url.ts';
import { connectClient } from '../mcp/support.ts';
import { a2aClient, asTask, dataParts, send, TaskState, userMessage } from '../a2a/support.ts';

const run = promisify(execFile);
const EXAMPLES = ['hono', 'express', 'node-http'] as const;
const scratch = mkdtempSync(join(tmpdir(), 'nlgate-pack-'));
let tarball = '';
const servers = new Map<string, Listening>();

/** Links `name` from the repository's node_modules into the scratch app's. */
function link(name: string) {
  const target = join(scratch, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules', name), target, 'dir');
}

beforeAll(async () => {
  await run('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  tarball = join(scratch, readdirSync(scratch).find((f) => f.endsWith('.tgz'))!);
  const unpacked = join(scratch, 'node_modules', 'nlgate');
  mkdirSync(unpacked, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
  const pkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
  const examples = EXAMPLES.map((e) => JSON.parse(readFileSync(join(REPO_ROOT, 'examples/library', e, 'package.json'), 'utf8')) as { dependencies: Record<string, string> });
  const wanted = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies), ...examples.flatMap((e) => Object.keys(e.dependencies))]);
  wanted.delete('nlgate');
  for (const name of wanted) link(name);
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }));
  for (const e of EXAMPLES) cpSync(join(REPO_ROOT, 'examples/library', e), join(scratch, e), { recursive: true });
  await Promise.all(
    EXAMPLES.map(async (e) => {
      // Node runs the TypeScript examples as is from 22.18 on; 22.15-22.17 (engines' minimum) need the flag.
      const listening = await spawnListening(['--experimental-strip-types', '--disable-warning=ExperimentalWarning', 'app.ts'], { PORT: '0', LOG_LEVEL: 'warn' }, join(scratch, e));
      servers.set(e, { ...listening, url: `${listening.url}/gateway` });
    }),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the library, its types, the CLI and the console, and no sources or tests', async () => {
    const files = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    expect(files).toEqual(expect.arrayContaining(['package.json', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/cli.js', 'dist/cli-main.js', 'dist/console/app.js', 'bin/nlgate.js']));
    expect(files.filter((f) => /^(src|test|adapters|console\/src)\//.test(f) || f.endsWith('.map'))).toEqual([]);
  });

  it('passes publint and arethetypeswrong (ESM only)', async () => {
    const bin = (name: string) => join(REPO_ROOT, 'node_modules', '.bin', name);
    const publint = await run(bin('publint'), ['run', tarball, '--strict']);
    expect(publint.stdout).toContain('All good!');
    await run(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'json']); // exits non-zero on a problem
  });

  it('types the examples through its declaration file (tsc in the scratch app)', async () => {
    for (const name of ['typescript', '@types/node', '@types/express']) link(name);
    const tsconfig = {
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, allowImportingTsExtensions: true, skipLibCheck: true, types: ['node'] },
      files: EXAMPLES.map((e) => `${e}/app.ts`),
    };
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = await run(process.execPath, [join(scratch, 'node_modules/typescript/bin/tsc'), '-p', join(scratch, 'tsconfig.json'), '--listFiles'], { cwd: scratch, maxBuffer: 16 * 1024 * 1024 });
    // Checked against the packed declarations, not the repository's sources.
    expect(tsc.stdout).toContain(join(scratch, 'node_modules/nlgate/dist/lib/index.d.ts'));
    expect(tsc.stdout).not.toContain(join(REPO_ROOT, 'src'));
  });

  it('runs the CLI it ships (bin/nlgate.js on the bundled dist/cli.js)', async () => {
    const { stdout } = await run(process.execPath, [join(scratch, 'node_modules/nlgate/bin/nlgate.js'), '--version'], { cwd: scratch });
    expect(stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version);
  });

  it('starts nothing when imported', async () => {
    // Handles (timers, sockets, servers) open after the import that were not open before it. The
    // stdio streams are opened first (Node 22 opens them all when any module imports `node:process`),
    // and the module loader's own file reads are let finish.
    const script = "process.stdin; process.stdout; process.stderr; const before = process.getActiveResourcesInfo(); await import('nlgate'); await new Promise((r) => setTimeout(r, 100)); const after = process.getActiveResourcesInfo(); before.forEach((h) => after.splice(after.indexOf(h), 1)); console.log(JSON.stringify(after));";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: scratch });
    expect(JSON.parse(stdout)).toEqual([]);
  });
});

describe.each(EXAMPLES)('examples/library/%s, mounted under /gateway', (example) => {
  const base = () => servers.get(example)!.url;
  const post = async (path: string, body: unknown) => (await fetch(`${base()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;

  it('NLWeb: /gateway/ask answers from the function agent', async () => {
    const body = await post('/ask', { query: { text: 'returns' } });
    expect(body.results.map((r: { name: string }) => r.name)).toEqual(['How do returns work?']);
  });

  it('NLIP: /gateway/nlip/ answers with the results as structured parts', async () => {
    const body = await post('/nlip/', { format: 'text', subformat: 'English', content: 'ship' });
    expect(body.submessages.filter((s: { format: string }) => s.format === 'structured').map((s: { content: { name: string } }) => s.content.name)).toEqual(['When do you ship?']);
  });

  it('MCP: the SDK client calls the agent at /gateway/agents/faq/mcp', async () => {
    const client = await connectClient(`${base()}/agents/faq/mcp`, '2026-07-28');
    try {
      const r = await client.callTool({ name: 'ask', arguments: { query: { text: 'returns' } } });
      expect((r.structuredContent as { results: Array<{ name: string }> }).results.map((i) => i.name)).toEqual(['How do returns work?']);
    } finally {
      await client.close();
    }
  });

  it('A2A: the SDK client reads the card under /gateway and gets a completed task', async () => {
    const card = (await (await fetch(`${base()}/a2a/faq/.well-known/agent-card.json`)).json()) as { supportedInterfaces: Array<{ url: string }> };
    for (const i of card.supportedInterfaces) expect(i.url.startsWith(`${base()}/a2a/faq`)).toBe(true);
    const client = await a2aClient(`${base()}/a2a/faq/`);
    const task = asTask(await client.sendMessage(send(userMessage('ship'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataParts(task).map((i) => (i as { name: string }).name)).toEqual(['When do you ship?']);
  });

  it('webtools: the listing names URLs under /gateway, and the ask action answers', async () => {
    const listing = await (await fetch(`${base()}/webtools`)).text();
    expect(listing).toContain(`${base()}/webtools/faq`);
    const body = await post('/webtools/faq', { sessionId: `pack-test-session-${example}`, action: 'ask', request: { query: { text: 'returns' } } });
    expect(body.status).toBe('ok');
    expect(body.data.results.map((r: { name: string }) => r.name)).toEqual(['How do returns work?']);
  });
});

/**
 * `npm run interop:nlweb -- <NLWeb checkout> [--work DIR] [--record] [--commit SHA]`
 *
 * Puts nlgate in front of Microsoft's NLWeb server, unmodified (configuration only), and asks
 * through every front (docs/legacy.md, "The real NLWeb server"). Out of band: it needs Python 3,
 * pip and an NLWeb checkout, none of which CI has; the suite replays what `--record` saved.
 *
 * Steps: a Python environment in the work directory (NLWeb's runtime dependencies and a
 * qdrant-client with local mode; see pythonEnv), the deterministic OpenAI fake, NLWeb's own loader
 * for the recipes, the server, then the check (check.ts), whose table goes to stdout. With
 * `--record`, the server's exchanges with nlgate go to test/legacy/real-nlweb/recording.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeOpenAI } from './fake-openai.ts';
import { writeNlwebConfig } from './nlweb-config.ts';
import { loaderFile, SITES } from './recipes.ts';
import { runCheck, table } from './check.ts';

const log = (line: string) => process.stderr.write(`interop:nlweb: ${line}\n`);

function args() {
  const argv = process.argv.slice(2);
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv.splice(i, 2)[1] : undefined;
  };
  const record = argv.includes('--record');
  const work = resolve(flag('--work') ?? join(tmpdir(), 'nlgate-interop-nlweb'));
  const commit = flag('--commit');
  const checkout = argv.find((a) => !a.startsWith('--'));
  if (!checkout || !existsSync(join(checkout, 'code/python/app-aiohttp.py'))) {
    throw new Error('usage: npm run interop:nlweb -- <path to an NLWeb checkout> [--work DIR] [--record] [--commit SHA]');
  }
  return { checkout: resolve(checkout), work, record, commit };
}

function run(cmd: string, argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): boolean {
  const r = spawnSync(cmd, argv, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  return r.status === 0;
}

/** A child run without blocking this process: the loader calls the fake, which answers from here. */
function runAsync(cmd: string, argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
    child.on('error', () => done(false));
    child.on('exit', (code) => done(code === 0));
  });
}

/**
 * NLWeb's runtime needs, not its whole requirements.txt: the Azure SDKs, matplotlib and seaborn
 * serve providers and tools this run does not use. qdrant-client must be below 1.16, which
 * removed the `search` call NLWeb's Qdrant client makes; where no package index serves it,
 * QDRANT_CLIENT_SRC may name a source checkout of it (v1.15.x), put on the path with a .pth file.
 */
function pythonEnv(work: string): string {
  const venv = join(work, 'venv');
  const python = join(venv, 'bin/python');
  if (existsSync(join(venv, '.ready'))) return python;
  log(`creating the Python environment in ${venv}`);
  if (!run('python3', ['-m', 'venv', venv])) throw new Error('python3 -m venv failed');
  const pip = (...a: string[]) => run(python, ['-m', 'pip', 'install', '--quiet', ...a]);
  if (!pip('aiohttp', 'openai', 'mcp', 'httpx[http2]', 'pyyaml', 'jsonschema', 'marshmallow<4', 'python-dotenv', 'chardet', 'numpy', 'grpcio', 'protobuf', 'pydantic', 'urllib3', 'portalocker')) {
    throw new Error('pip could not install NLWeb\'s dependencies');
  }
  // Imported by the loader's RSS support, not used here; its own sgmllib dependency is not needed.
  pip('--no-deps', 'feedparser');
  if (!pip('qdrant-client>=1.14,<1.16')) {
    const src = process.env.QDRANT_CLIENT_SRC;
    if (!src || !existsSync(join(src, 'qdrant_client'))) throw new Error('qdrant-client <1.16 is not installable here: set QDRANT_CLIENT_SRC to a checkout of it (v1.15.1)');
    const site = spawnSync(python, ['-c', 'import site; print(site.getsitepackages()[0])'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(site, 'qdrant-client-src.pth'), `${resolve(src)}\n`);
  }
  writeFileSync(join(venv, '.ready'), '');
  return python;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

async function waitFor(url: string, child: ChildProcess, ms = 90_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`NLWeb exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`NLWeb did not answer ${url} within ${ms} ms`);
}

async function main(): Promise<void> {
  const { checkout, work, record, commit } = args();
  mkdirSync(work, { recursive: true });
  const python = pythonEnv(work);

  // The server reads part of its config relative to its own code (config_webserver.yaml), so it
  // runs from a copy of the checkout's code with our config directory beside it.
  const root = join(work, 'nlweb');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const dir of ['code', 'static']) if (existsSync(join(checkout, dir))) cpSync(join(checkout, dir), join(root, dir), { recursive: true });
  const dataDir = join(root, 'data');
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  writeNlwebConfig(checkout, join(root, 'config'), { port, dataDir });

  const fake = await startFakeOpenAI();
  const env = {
    ...process.env,
    NLWEB_CONFIG_DIR: join(root, 'config'),
    NLWEB_OUTPUT_DIR: join(root, 'out'),
    OPENAI_API_KEY: 'interop-fake-key',
    OPENAI_BASE_URL: fake.url,
    OPENAI_ENDPOINT: fake.url,
    PORT: String(port),
  };
  const cwd = join(root, 'code/python');
  let server: ChildProcess | undefined;
  try {
    for (const site of SITES) {
      const file = join(dataDir, `${site}.tsv`);
      writeFileSync(file, loaderFile(site));
      log(`loading ${site} with NLWeb's data_loading.db_load`);
      if (!(await runAsync(python, ['-m', 'data_loading.db_load', file, site], { cwd, env }))) throw new Error(`loading ${site} failed`);
    }
    log(`starting NLWeb on 127.0.0.1:${port}`);
    server = spawn(python, ['app-aiohttp.py'], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const stderr: string[] = [];
    server.stderr!.on('data', (c: Buffer) => stderr.push(c.toString()));
    await waitFor(`http://127.0.0.1:${port}/sites`, server).catch((e) => {
      throw new Error(`${e.message}\n${stderr.join('').slice(-3000)}`);
    });
    const { rows, exchanges } = await runCheck(`http://127.0.0.1:${port}`, log);
    process.stdout.write(`${table(rows)}\n`);
    log(`the fake answered ${fake.counts.chat} chat and ${fake.counts.embeddings} embedding calls`);
    if (record) {
      const out = new URL('../../test/legacy/real-nlweb/recording.json', import.meta.url);
      const recording = {
        producedBy: {
          repository: 'github.com/nlweb-ai/NLWeb',
          commit: commit ?? 'unknown (pass --commit)',
          note: 'Recorded by npm run interop:nlweb -- <checkout> --record: the server unmodified, configured for Qdrant local mode and the deterministic OpenAI fake (scripts/interop-nlweb/fake-openai.ts), with the recipes of scripts/interop-nlweb/recipes.ts.',
        },
        exchanges,
      };
      writeFileSync(out, `${JSON.stringify(recording, null, 1)}\n`);
      log(`recorded ${exchanges.length} exchanges to ${out.pathname}`);
    }
    if (rows.some((r) => r.verdict !== 'ok')) process.exitCode = 1;
  } finally {
    server?.kill('SIGTERM');
    await fake.close();
    if (existsSync(join(root, 'out/logs'))) log(`NLWeb's logs: ${join(root, 'out/logs')} (${readdirSync(join(root, 'out/logs')).length} files)`);
  }
}

main().catch((e) => {
  log(String(e instanceof Error ? e.message : e));
  process.exit(1);
});

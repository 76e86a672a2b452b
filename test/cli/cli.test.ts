import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/gateway.ts';
import { parseSseText } from '../support/http.ts';

const run = promisify(execFile);
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: REPO_ROOT, env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1' } });

/** `npm start` builds, then runs `serve` with no config argument: the embedded default (same code as src/cli.ts). */
describe('nlgate serve with the embedded default config (what npm start runs)', () => {
  let child: ReturnType<typeof spawn>;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], { cwd: REPO_ROOT, env: { ...process.env, PORT: '0', NLGATE_CONFIG: '' } });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const timer = setTimeout(() => reject(new Error(`no listen line: ${out}`)), 20_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = out.match(/"url":"([^"]+)"/);
        if (m) (clearTimeout(timer), resolve(m[1]!));
      });
    });
  });
  afterAll(() => void child?.kill('SIGTERM'));

  it("answers the README's pasta query with real catalog items", async () => {
    const res = await fetch(`${url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":{"text":"pasta"}}' });
    const body = (await res.json()) as { _meta: Record<string, unknown>; results: Array<Record<string, unknown>> };
    expect(body._meta).toMatchObject({ response_type: 'answer', version: '0.55' });
    expect(body.results.length).toBeGreaterThan(2);
    for (const item of body.results) expect(item).toMatchObject({ '@type': 'Recipe', '@id': expect.any(String), score: expect.any(Number), site: expect.any(String) });
    expect(JSON.stringify(body.results[0]).toLowerCase()).toContain('pasta');
  });

  it("README's promise example: the demo agent slow-recipes answers 202 with a token, /await long-polls the answer", async () => {
    const asked = await fetch(`${url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":{"text":"pasta","site":"slow-recipes"}}' });
    expect(asked.status).toBe(202);
    const promise = (await asked.json()) as { _meta: { response_type: string }; promise: { token: string } };
    expect(promise._meta.response_type).toBe('promise');
    const body = JSON.stringify({ promise_token: promise.promise.token, action: 'checkin', wait_ms: 10000 });
    const answer = (await (await fetch(`${url}/await`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()) as { _meta: { response_type: string }; results: unknown[] };
    expect(answer._meta.response_type).toBe('answer');
    expect(answer.results.length).toBeGreaterThan(2);
  });

  it('streams the same query as named events', async () => {
    const res = await fetch(`${url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: '{"query":{"text":"pasta"}}' });
    const events = parseSseText(await res.text());
    expect(events[0]!.event).toBe('start');
    expect(events.filter((e) => e.event === 'result').length).toBeGreaterThan(2);
    expect(events.at(-1)!.event).toBe('complete');
  });
});

describe('nlgate help and version (issue 13, item 9)', () => {
  it('shows help, listing every command, with no arguments instead of starting a server', async () => {
    const { stdout } = await cli();
    for (const command of ['serve', 'check-config', 'probe', 'help', 'version']) expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect((await cli('--help')).stdout).toBe(stdout);
  });

  it('prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((await cli('--version')).stdout.trim()).toBe(version);
    expect((await cli('version')).stdout.trim()).toBe(version);
  });

  it('refuses an unknown command with exit 2 and the help', async () => {
    const err = await cli('serv').catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toMatch(/Unknown command "serv"[\s\S]*Commands:/);
  });
});

describe('nlgate check-config', () => {
  it('accepts the default config and every example config', async () => {
    const files = ['config/gateway.yaml', ...readdirSync(join(REPO_ROOT, 'config/examples')).map((f) => `config/examples/${f}`)];
    // One process checks them all (check-config takes several files): a tsx process each took 18 s.
    const { stdout } = await cli('check-config', ...files);
    for (const file of files) expect(stdout, file).toContain(`${join(REPO_ROOT, file)}: valid`);
  }, 90_000);

  it('checks several files in one run: each gets its verdict, and one invalid file makes it exit 1', async () => {
    const bad = join(REPO_ROOT, `.nlgate-test-several-${process.pid}.yaml`);
    writeFileSync(bad, 'agents:\n  - name: r\n    kind: catalog\n');
    try {
      const err = await cli('check-config', bad, 'config/gateway.yaml').catch((e: { code: number; stdout: string; stderr: string }) => e);
      expect(err).toMatchObject({ code: 1 });
      expect((err as { stderr: string }).stderr).toContain(`Invalid config ${bad}`);
      expect((err as { stdout: string }).stdout).toContain(`${join(REPO_ROOT, 'config/gateway.yaml')}: valid`);
    } finally {
      rmSync(bad, { force: true });
    }
  }, 60_000);

  it('names the file, the path and the problem, and exits 1', async () => {
    const cases: Array<[string, RegExp]> = [
      ['agents:\n  - name: r\n    kind: catalog\n    file: ../nowhere/missing.jsonl\n', /agents\.0.*missing\.jsonl/],
      ['agents:\n  - name: r\n    kind: catalog\n', /agents\.0\.file: .*\n    hint: file is required here/],
      ['server:\n  prot: 80\nagents:\n  - name: r\n    kind: catalog\n    file: x.jsonl\n', /server: Unrecognized key: "prot"\n    hint: remove or rename "prot": it is not a field of the server section/],
      ['agents:\n  - name: r\n    kind: catalog\n    file: ${CATALOG_FILE}\n', /environment variable CATALOG_FILE is not set\n    hint: set CATALOG_FILE/],
    ];
    const files = cases.map(([yaml], i) => {
      const file = join(REPO_ROOT, `.nlgate-test-bad-${process.pid}-${i}.yaml`);
      writeFileSync(file, yaml);
      return file;
    });
    try {
      // One run checks the four (a tsx process each took 8 s); each problem is told under its own file.
      const err = await cli('check-config', ...files).catch((e: { code: number; stderr: string }) => e);
      expect(err).toMatchObject({ code: 1 });
      const reports = (err as { stderr: string }).stderr.split(/^(?=Invalid config )/m);
      expect(reports).toHaveLength(cases.length);
      cases.forEach(([, problem], i) => {
        expect(reports[i]).toContain(`Invalid config ${files[i]}:`);
        expect(reports[i]).toMatch(problem);
      });
    } finally {
      for (const file of files) rmSync(file, { force: true });
    }
  }, 60_000);
});

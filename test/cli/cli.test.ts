import { execFile, spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/gateway.ts';
import { parseSseText } from '../support/http.ts';

const run = promisify(execFile);
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: REPO_ROOT, env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1' } });

/** `npm start` is `tsx src/cli.ts serve` with no config argument: the embedded default. */
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

  it('streams the same query as named events', async () => {
    const res = await fetch(`${url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: '{"query":{"text":"pasta"}}' });
    const events = parseSseText(await res.text());
    expect(events[0]!.event).toBe('start');
    expect(events.filter((e) => e.event === 'result').length).toBeGreaterThan(2);
    expect(events.at(-1)!.event).toBe('complete');
  });
});

describe('nlgate check-config', () => {
  it('accepts the default config and every example config', async () => {
    const files = ['config/gateway.yaml', ...readdirSync(join(REPO_ROOT, 'config/examples')).map((f) => `config/examples/${f}`)];
    const outputs = await Promise.all(files.map((file) => cli('check-config', file)));
    outputs.forEach(({ stdout }, i) => expect(stdout, files[i]).toContain('valid'));
  });

  it('names the file, the path and the problem, and exits 1', async () => {
    const bad = join(REPO_ROOT, `.nlgate-test-bad-${process.pid}.yaml`);
    writeFileSync(bad, 'agents:\n  - name: r\n    kind: catalog\n    file: ../nowhere/missing.jsonl\n');
    const err = await cli('check-config', bad).catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 1 });
    expect((err as { stderr: string }).stderr).toContain(bad);
    expect((err as { stderr: string }).stderr).toMatch(/agents\.0.*missing\.jsonl/);
    writeFileSync(bad, 'agents:\n  - name: r\n    kind: catalog\n');
    const err2 = await cli('check-config', bad).catch((e: { stderr: string }) => e);
    expect((err2 as { stderr: string }).stderr).toMatch(/agents\.0\.file: /);
    const { rmSync } = await import('node:fs');
    rmSync(bad, { force: true });
  });
});

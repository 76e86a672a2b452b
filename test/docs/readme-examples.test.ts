import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/gateway.ts';
import { spawnListening, type Listening } from '../support/spawn-url.ts';

const sh = promisify(execFile);

/** The README's "One example per protocol" block, split into examples at each comment line. */
function readmeExamples(): Array<{ title: string; script: string }> {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.split('## One example per protocol')[1]!;
  const block = section.match(/```sh\n([\s\S]*?)```/)![1]!;
  return block
    .split(/\n\n(?=# )/)
    .map((chunk) => ({ title: chunk.split('\n')[0]!.replace(/^# /, ''), script: chunk }));
}

/** What each example must print, by the start of its title. */
const EXPECTED: Array<[string, RegExp]> = [
  ['NLWeb v0.55: ask (JSON)', /"response_type":"answer"[\s\S]*"@type":"Recipe"/],
  ['NLWeb v0.55: the same, streamed', /event: start[\s\S]*event: result[\s\S]*event: complete/],
  ['NLWeb v0.55: a conversation', /"response_type":"answer"/],
  ['NLWeb v0.55: a promise', /"response_type":"answer"[\s\S]*"results":\[\{/],
  ['NLIP', /"format":"text"[\s\S]*"subformat":"conversation"/],
  ['MCP', /"result":\{[\s\S]*"content":\[\{"type":"text"/],
  ['Webtools', /"status":"ok"/],
  ['A2A 1.0', /"supportedInterfaces"[\s\S]*"result":\{[\s\S]*"artifacts"/],
  ['The older NLWeb REST API', /"results":\[\{/],
];

describe('README "One example per protocol", run as printed against the gateway npm start runs', () => {
  let gateway: Listening;
  beforeAll(async () => {
    // `npm start` runs the compiled CLI with the embedded default; the sources run the same code.
    gateway = await spawnListening(['--import', 'tsx', 'src/cli.ts', 'serve'], { PORT: '0', NLGATE_CONFIG: '' });
  });
  afterAll(async () => gateway?.stop());

  it('has an example for every protocol', () => {
    expect(readmeExamples().map((e) => e.title)).toEqual(EXPECTED.map(([title]) => expect.stringMatching(new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))));
  });

  it('runs each example with bash and gets the documented answer', async () => {
    const port = new URL(gateway.url).port;
    for (const [i, example] of readmeExamples().entries()) {
      const script = `set -euo pipefail\n${example.script.replaceAll('localhost:8080', `127.0.0.1:${port}`)}`;
      const { stdout } = await sh('bash', ['-c', script], { cwd: REPO_ROOT, timeout: 30_000 });
      expect(stdout, example.title).toMatch(EXPECTED[i]![1]);
      expect(stdout, example.title).not.toMatch(/"response_type":"failure"|"isError":true|"status":"error"/);
    }
  }, 120_000);
});

import { configBlock, probe, PROBES } from '../probe/index.ts';

const USAGE = 'usage: nlgate probe <url> [--name NAME] [--timeout MS]';

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** `nlgate probe <url>` (issue 13, item 7): prints what the agent speaks and its config block. */
export async function runProbe(args: string[]): Promise<number> {
  const url = args.find((a, i) => !a.startsWith('--') && !['--name', '--timeout'].includes(args[i - 1] ?? ''));
  const name = option(args, '--name') ?? 'agent';
  const timeoutMs = Number(option(args, '--timeout') ?? 5000);
  if (!url || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    console.error(`${url ? `not an http(s) URL: ${url}\n` : ''}${USAGE}`);
    return 2;
  }
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/i.test(name) || !Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    console.error(`--name must be 1-40 letters, digits, "-" or "_"; --timeout a positive number of ms\n${USAGE}`);
    return 2;
  }
  const found = await probe(url, { timeoutMs });
  if (!found) {
    console.error(`${url} does not answer like any protocol nlgate knows. Tried, in order:`);
    for (const p of PROBES) console.error(`  - ${p.looksFor}`);
    console.error('Check the URL (scheme, host, port, path) and that the agent is running.');
    return 1;
  }
  console.log(`# ${url} speaks ${found.protocol}: ${found.evidence}.`);
  console.log('# Add this to your config file (then: nlgate check-config FILE):');
  console.log(configBlock(found, name));
  return 0;
}

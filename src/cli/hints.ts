/**
 * Hints for config problems: `nlgate check-config` prints each problem (`path: message`, as the
 * loader words it) followed by what to do about it (issue 13, item 6).
 */
const RULES: ReadonlyArray<{ test: RegExp; hint: (m: RegExpMatchArray, path: string) => string }> = [
  { test: /environment variable (\w+) is not set/, hint: (m) => `set ${m[1]} (export ${m[1]}=…) or give a default in the file: \${${m[1]}:-value}` },
  { test: /cannot read the file: ENOENT/, hint: () => 'no such file: check the path (a relative path is relative to the current directory)' },
  { test: /cannot read the file/, hint: () => 'the file exists but cannot be read: check its permissions' },
  { test: /not valid YAML/, hint: () => 'indent with spaces (never tabs) and quote values that contain ": " or start with "{", "[", "*" or "&"' },
  { test: /unknown kind "([^"]*)"/, hint: () => 'kind must be one of the adapter kinds listed; see docs/README.md for one page per kind' },
  { test: /Unrecognized keys?: (.*)/, hint: (m, path) => `remove or rename ${m[1]}: it is not a field of ${section(path)} (a typo, or a field of another kind?); the fields are in docs/configuration.md` },
  { test: /expected number, received string/, hint: () => 'write the number without quotes (an ${ENV} value is a string: put numbers in the file itself)' },
  { test: /expected boolean, received string/, hint: () => 'write true or false without quotes' },
  { test: /expected (string|number|boolean|array|object), received undefined/, hint: (m, path) => `${lastKey(path)} is required here (a ${m[1]})` },
  { test: /expected array, received/, hint: () => 'write a YAML list: [a, b] or one "- item" per line' },
  { test: /Invalid option: expected one of (.*)/, hint: (m) => `use one of ${m[1]}` },
  { test: /duplicate agent name/, hint: () => 'agent names appear in URLs and tool names, so each must be unique' },
  { test: /no agent is named/, hint: () => 'defaultAgent must be the name of one of the agents below it' },
  { test: /at least one agent/, hint: () => 'add an agents: list; config/gateway.yaml has a working example' },
  { test: /must be a redis:\/\//, hint: () => 'e.g. url: ${REDIS_URL:-redis://127.0.0.1:6379}' },
  { test: /Too (big|small)|expected number to be/, hint: () => 'the value is out of range; docs/configuration.md gives each field\'s bounds' },
];

function lastKey(path: string): string {
  return path.split('.').filter((p) => !/^\d+$/.test(p)).at(-1) ?? path;
}

function section(path: string): string {
  if (path === '(root)' || path === '') return 'the top level (server, store, defaults, limits, defaultAgent, agents)';
  const parts = path.split('.');
  return parts[0] === 'agents' && parts.length >= 2 ? `this agent entry (common fields plus those of its kind)` : `the ${parts[0]} section`;
}

/** A hint for one problem line (`path: message`), or undefined when none applies. */
export function hintFor(problem: string): string | undefined {
  const colon = problem.indexOf(': ');
  const path = colon > 0 ? problem.slice(0, colon) : '';
  for (const rule of RULES) {
    const m = problem.match(rule.test);
    if (m) return rule.hint(m, path);
  }
  return undefined;
}

/** The whole explanation check-config prints: the file, then each problem with its hint. */
export function explainProblems(source: string, problems: readonly string[]): string {
  const lines = [`Invalid config ${source}:`];
  for (const p of problems) {
    lines.push(`  - ${p}`);
    const hint = hintFor(p);
    if (hint) lines.push(`    hint: ${hint}`);
  }
  return lines.join('\n');
}

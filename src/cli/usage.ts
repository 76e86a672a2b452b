import pkg from '../../package.json' with { type: 'json' };

/** The package version, printed by `nlgate --version` (read at build time from package.json). */
export const VERSION: string = pkg.version;

/** Every command of the CLI, one line each; `nlgate --help` prints them (issue 13, item 6). */
export const COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ['serve [--config FILE]', 'run the gateway (config: --config, else $NLGATE_CONFIG, else config/gateway.yaml)'],
  ['check-config [FILE...]', 'validate config files, explain each problem with its path and a hint, list their agents'],
  ['probe <URL>', 'find out what protocol an agent at URL speaks and print its config block'],
  ['help', 'show this help (also: --help, -h, or no command at all)'],
  ['version', 'print the version (also: --version, -v)'],
];

/** The help text: the commands, then the environment variables the gateway reads. */
export function usage(): string {
  const width = Math.max(...COMMANDS.map(([c]) => c.length)) + 2;
  return [
    `nlgate ${VERSION}: a gateway between natural-language agent protocols (NLWeb, NLIP, MCP, webtools)`,
    '',
    'Usage: nlgate <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map(([c, what]) => `  ${c.padEnd(width)}${what}`),
    '',
    'Environment: NLGATE_CONFIG (config file), PORT (default 8080), HOST (default 127.0.0.1), LOG_LEVEL (info),',
    '             WORKERS (server.workers: auto or a number), REDIS_URL and any other ${VAR} the config file names;',
    '             OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, OTEL_SERVICE_NAME, ... (traces; off when unset).',
    'Docs: docs/README.md (configuration reference: docs/configuration.md).',
  ].join('\n');
}

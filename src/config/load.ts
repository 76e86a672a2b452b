import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import type { AdapterFactory } from '../core/agent.ts';
import { COMMON_AGENT_KEYS, GatewayConfigSchema, type GatewayConfig } from './schema.ts';

/** A config problem, naming the file, the path inside it and what is wrong. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`Invalid config ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** A validated config plus where it came from (relative paths resolve against `baseDir`). */
export interface LoadedConfig {
  config: GatewayConfig;
  source: string;
  baseDir: string;
}

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string of a parsed document. An unset variable
 * without a default is a config error (a silently empty URL or key is worse than a clear stop).
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, path: string[] = [], missing: string[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback?: string) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      missing.push(`${path.join('.') || '(root)'}: environment variable ${name} is not set`);
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, [...path, String(i)], missing));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateEnv(v, env, [...path, k], missing)]));
  }
  return value;
}

function formatIssues(issues: z.core.$ZodIssue[], prefix: (string | number)[] = []): string[] {
  return issues.map((i) => {
    const path = [...prefix, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    return `${path.length > 0 ? path.join('.') : '(root)'}: ${i.message}`;
  });
}

/**
 * Validates a config document (already parsed from YAML/JSON): the common schema first, then each
 * agent entry against its adapter's schema. Throws ConfigError listing every problem.
 */
export function parseConfig(
  raw: unknown,
  opts: { source?: string; baseDir?: string; adapters: readonly AdapterFactory<any>[]; env?: NodeJS.ProcessEnv },
): LoadedConfig {
  const source = opts.source ?? '(inline config)';
  const missing: string[] = [];
  const doc = interpolateEnv(raw, opts.env ?? process.env, [], missing);
  if (missing.length > 0) throw new ConfigError(source, missing);
  const parsed = GatewayConfigSchema.safeParse(doc);
  if (!parsed.success) throw new ConfigError(source, formatIssues(parsed.error.issues));

  const problems: string[] = [];
  const kinds = new Map(opts.adapters.map((a) => [a.kind, a]));
  parsed.data.agents.forEach((agent, i) => {
    const adapter = kinds.get(agent.kind);
    if (!adapter) {
      problems.push(`agents.${i}.kind: unknown kind "${agent.kind}" (known: ${[...kinds.keys()].join(', ') || 'none'})`);
      return;
    }
    const own = Object.fromEntries(Object.entries(agent).filter(([k]) => !COMMON_AGENT_KEYS.includes(k)));
    const result = adapter.configSchema.safeParse(own);
    if (!result.success) problems.push(...formatIssues(result.error.issues, ['agents', i]));
    else Object.assign(agent, result.data);
  });
  if (problems.length > 0) throw new ConfigError(source, problems);
  return { config: parsed.data, source, baseDir: opts.baseDir ?? process.cwd() };
}

/** Reads and validates a YAML (or JSON) config file; relative paths in it resolve against its folder. */
export function loadConfigFile(
  path: string,
  opts: { adapters: readonly AdapterFactory<any>[]; env?: NodeJS.ProcessEnv },
): LoadedConfig {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [`cannot read the file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`]);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    throw new ConfigError(file, [`not valid YAML: ${(err as Error).message.split('\n')[0]}`]);
  }
  return parseConfig(raw, { ...opts, source: file, baseDir: dirname(file) });
}

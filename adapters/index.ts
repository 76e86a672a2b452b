/**
 * The built-in adapter kinds. The core never imports an adapter: the composition root (app.ts, cli)
 * hands this list to the gateway, which picks a factory by an agent's `kind`.
 * One line per kind; a new kind is one new folder and one line here.
 *
 * Kinds whose implementation pulls in a large SDK (MCP's client, A2A's client, OpenAPI's $ref resolver) are lazy: only their
 * config schema is loaded here, and the implementation is imported by `load()`, which the gateway
 * awaits only when an agent of that kind is configured (issue 23). The bundle puts each in a chunk
 * of its own that is never read otherwise.
 */
import type { AdapterFactory, Agent, AdapterDeps, CommonAgentConfig } from '../src/core/agent.ts';
import type { z } from 'zod';
import { nlwebAdapter } from './nlweb/index.ts';
import { nlwebLegacyAdapter } from './nlweb-legacy/index.ts';
import { McpAdapterConfigSchema } from './mcp/config.ts';
import { nlipAdapter } from './nlip/index.ts';
import { webtoolAdapter } from './webtool/index.ts';
import { catalogAdapter } from './catalog/index.ts';
import { A2aAdapterConfigSchema } from './a2a/config.ts';
import { OpenapiConfigSchema } from './openapi/config.ts';

/** A factory whose implementation is imported by `load()` (once), before its first `create`. */
function lazyAdapter<C extends Record<string, unknown>>(kind: string, configSchema: z.ZodType<C>, importFactory: () => Promise<AdapterFactory<C>>): AdapterFactory<C> {
  let loaded: AdapterFactory<C> | undefined;
  let loading: Promise<void> | undefined;
  return {
    kind,
    configSchema,
    load: () =>
      (loading ??= importFactory().then((f) => {
        loaded = f;
      })),
    create(config: C & CommonAgentConfig, deps: AdapterDeps): Agent {
      if (!loaded) throw new Error(`adapter "${kind}" was created before load()`);
      return loaded.create(config, deps);
    },
  };
}

export const builtinAdapters: AdapterFactory<any>[] = [
  nlwebAdapter,
  nlwebLegacyAdapter,
  lazyAdapter('mcp', McpAdapterConfigSchema, async () => (await import('./mcp/index.ts')).mcpAdapter),
  nlipAdapter,
  webtoolAdapter,
  catalogAdapter,
  lazyAdapter('a2a', A2aAdapterConfigSchema, async () => (await import('./a2a/index.ts')).a2aAdapter),
  lazyAdapter('openapi', OpenapiConfigSchema, async () => (await import('./openapi/index.ts')).openapiAdapter),
];

/**
 * `kind: webtool` — an upstream webtool (webtools draft 2025-06-30) by URL, with version lock-in.
 */
import type { AdapterFactory } from '../../src/core/agent.ts';
import { WebtoolAgent } from './agent.ts';
import { WebtoolConfigSchema, type WebtoolConfig } from './config.ts';

export { WebtoolAgent } from './agent.ts';
export { WebtoolConfigSchema, type WebtoolConfig } from './config.ts';

/** The webtool adapter factory (registered in adapters/index.ts). */
export const webtoolAdapter: AdapterFactory<WebtoolConfig> = {
  kind: 'webtool',
  configSchema: WebtoolConfigSchema,
  create: (config, deps) => new WebtoolAgent(config, deps.log, deps.upstream),
};

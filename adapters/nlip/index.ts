/**
 * Adapter kind `nlip`: an upstream NLIP (ECMA-430) agent over HTTP (docs/nlip.md "NLIP agents
 * behind the gateway").
 */
import type { AdapterFactory } from '../../src/core/agent.ts';
import { NlipAgent } from './agent.ts';
import { NlipAdapterConfigSchema, type NlipAdapterConfig } from './config.ts';

export { NlipAgent } from './agent.ts';
export { NlipAdapterConfigSchema, type NlipAdapterConfig } from './config.ts';

/** The `nlip` adapter factory (design.md "An adapter"). */
export const nlipAdapter: AdapterFactory<NlipAdapterConfig> = {
  kind: 'nlip',
  configSchema: NlipAdapterConfigSchema,
  create: (config, deps) => new NlipAgent(config, deps),
};

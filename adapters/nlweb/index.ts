/**
 * Adapter kind `nlweb`: an upstream NLWeb v0.55 or v0.54 agent over HTTP (docs/adapters/nlweb.md).
 */
import type { AdapterFactory } from '../../src/core/agent.ts';
import { NlwebAgent } from './agent.ts';
import { NlwebAdapterConfigSchema, type NlwebAdapterConfig } from './config.ts';

export { NlwebAgent } from './agent.ts';
export { NlwebAdapterConfigSchema, type NlwebAdapterConfig } from './config.ts';

/** The `nlweb` adapter factory (design.md "An adapter"). */
export const nlwebAdapter: AdapterFactory<NlwebAdapterConfig> = {
  kind: 'nlweb',
  configSchema: NlwebAdapterConfigSchema,
  create: (config, deps) => new NlwebAgent(config, deps),
  // Asks are searches: a lost one may run again (issue 24; `idempotent: false` opts out).
  asksAreQueries: true,
};

import type { AdapterFactory } from '../../src/core/agent.ts';
import { NlwebLegacyAgent } from './agent.ts';
import { NlwebLegacyConfigSchema, type NlwebLegacyConfig } from './config.ts';

/**
 * Kind `nlweb-legacy`: fronts an older NLWeb REST server (query-string `/ask`, `message_type`
 * SSE frames, the pre-standard `/mcp`) as a v0.55 agent (design.md "An adapter").
 */
export const nlwebLegacyAdapter: AdapterFactory<NlwebLegacyConfig> = {
  kind: 'nlweb-legacy',
  configSchema: NlwebLegacyConfigSchema,
  create: (config, deps) => new NlwebLegacyAgent(config, deps),
  // Asks are searches: a lost one may run again (issue 24; `idempotent: false` opts out).
  asksAreQueries: true,
};

export { NlwebLegacyAgent } from './agent.ts';
export { NlwebLegacyConfigSchema, type NlwebLegacyConfig } from './config.ts';

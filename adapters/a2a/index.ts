/**
 * Adapter kind `a2a`: an upstream A2A 1.0 agent, driven by the official SDK's client
 * (docs/a2a.md "A2A agents behind the gateway").
 */
import type { AdapterFactory } from '../../src/core/agent.ts';
import { A2aAgent } from './agent.ts';
import { A2aAdapterConfigSchema, type A2aAdapterConfig } from './config.ts';

export { A2aAgent } from './agent.ts';
export { A2aAdapterConfigSchema, type A2aAdapterConfig } from './config.ts';

/** The `a2a` adapter factory (design.md "An adapter"). */
export const a2aAdapter: AdapterFactory<A2aAdapterConfig> = {
  kind: 'a2a',
  configSchema: A2aAdapterConfigSchema,
  create: (config, deps) => new A2aAgent(config, deps),
};

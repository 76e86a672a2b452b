/**
 * `kind: openapi` — any HTTP API with an OpenAPI 3.0/3.1 description: each operation a tool, and
 * natural-language asks through one configured operation (docs/openapi.md).
 */
import type { AdapterFactory } from '../../src/core/agent.ts';
import { OpenapiAgent } from './agent.ts';
import { OpenapiConfigSchema, type OpenapiConfig } from './config.ts';

export { OpenapiAgent } from './agent.ts';
export { OpenapiConfigSchema, type OpenapiConfig } from './config.ts';

/** The openapi adapter factory (registered lazily in adapters/index.ts: the $ref resolver loads only when used). */
export const openapiAdapter: AdapterFactory<OpenapiConfig> = {
  kind: 'openapi',
  configSchema: OpenapiConfigSchema,
  create: (config, deps) => new OpenapiAgent(config, deps),
};

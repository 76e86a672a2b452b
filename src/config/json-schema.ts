import { z } from 'zod';
import type { AdapterFactory } from '../core/agent.ts';
import { CommonAgentSchema, GatewayConfigSchema } from './schema.ts';

/**
 * The whole config file as one zod schema for editors (issue 13, item 6): the common sections, and
 * each agent entry as the common agent fields plus exactly one kind's own fields. The loader checks
 * the same rules in two steps (common, then the adapter's schema); this joins them for JSON Schema.
 */
export function editorConfigSchema(adapters: readonly AdapterFactory<any>[]): z.ZodType {
  const entries = adapters.map((a) => {
    const own = (a.configSchema as unknown as z.ZodObject).shape;
    return CommonAgentSchema.extend({ kind: z.literal(a.kind) }).extend(own).strict();
  });
  const agent = z.discriminatedUnion('kind', entries as unknown as [z.ZodObject, ...z.ZodObject[]]);
  return z.strictObject({ ...GatewayConfigSchema.shape, agents: z.array(agent).min(1) });
}

/** The JSON Schema (2020-12) of a config file, as written to config/nlgate.schema.json. */
export function configJsonSchema(adapters: readonly AdapterFactory<any>[]): Record<string, unknown> {
  const schema = z.toJSONSchema(editorConfigSchema(adapters), { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  return {
    $schema: schema.$schema,
    $id: 'https://github.com/nlgate/nlgate/config/nlgate.schema.json',
    title: 'nlgate gateway configuration',
    description: 'A gateway config file (config/gateway.yaml). Strings may use ${ENV} or ${ENV:-default}. Reference: docs/configuration.md.',
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
  };
}

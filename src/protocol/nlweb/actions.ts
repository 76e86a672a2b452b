import { z } from 'zod';

const ActionBase = {
  '@context': z.string().optional(),
  '@type': z.string().optional(),
  name: z.string(),
  description: z.string(),
};

/** 5. An action invoked through an HTTP request. */
export const HttpActionSchema = z.looseObject({
  ...ActionBase,
  protocol: z.literal('HTTP'),
  method: z.string(),
  endpoint: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

/** 5. An action invoked as an MCP tool call. */
export const McpActionSchema = z.looseObject({
  ...ActionBase,
  protocol: z.literal('MCP'),
  server: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** 5. An action invoked through the Agent2Agent protocol. */
export const A2aActionSchema = z.looseObject({
  ...ActionBase,
  protocol: z.literal('A2A'),
  agent_url: z.string(),
  skill: z.string(),
  message: z.record(z.string(), z.unknown()).optional(),
});

/** 5. Any action: HTTP, MCP or A2A, discriminated by `protocol`. */
export const ActionSchema = z.discriminatedUnion('protocol', [HttpActionSchema, McpActionSchema, A2aActionSchema]);
export type Action = z.infer<typeof ActionSchema>;

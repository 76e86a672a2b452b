/**
 * Adapter kind `mcp`: an upstream MCP server over Streamable HTTP (2026-07-28 or 2025), legacy
 * HTTP+SSE, or stdio, through the SDK client (docs/mcp.md).
 */
import type { AdapterFactory } from '../../src/core/agent.ts';
import { McpAgent } from './agent.ts';
import { McpAdapterConfigSchema, type McpAdapterConfig } from './config.ts';

export { McpAgent } from './agent.ts';
export { McpAdapterConfigSchema, type McpAdapterConfig } from './config.ts';

/** The `mcp` adapter factory (design.md "An adapter"). */
export const mcpAdapter: AdapterFactory<McpAdapterConfig> = {
  kind: 'mcp',
  configSchema: McpAdapterConfigSchema,
  create: (config, deps) => new McpAgent(config, deps),
};

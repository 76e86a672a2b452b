import type { ClientSession } from './agent.ts';
import type { AgentRegistry } from './agents.ts';
import type { PublishedTool } from './gateway-types.ts';

/** MCP tool names are at most 64 characters. */
const MAX_TOOL_NAME = 64;

/**
 * The structured tools of one agent, or of every agent, as the gateway publishes them: named
 * `<agent>__<tool>` when several agents are configured; a client session sees what its agent lists
 * for it (MCP per-session tool lists), else the agent's described tools.
 */
export async function publishTools(registry: AgentRegistry, agent?: string, session?: ClientSession): Promise<PublishedTool[]> {
  const names = agent !== undefined ? [registry.get(agent).config.name] : registry.names();
  const qualify = registry.names().length > 1;
  const lists = await Promise.all(
    names.map(async (name) => {
      const own = session ? await registry.get(name).agent.toolsFor?.(session).catch(() => undefined) : undefined;
      const tools = own ?? (await registry.describe(name).catch(() => undefined))?.tools ?? [];
      return tools.map((t) => ({
        ...t,
        agent: name,
        toolName: t.name,
        name: (qualify ? `${name}__${t.name}` : t.name).slice(0, MAX_TOOL_NAME),
      }));
    }),
  );
  return lists.flat();
}

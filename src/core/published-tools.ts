import type { AgentDescription, ClientSession } from './agent.ts';
import type { AgentRegistry } from './agents.ts';
import type { PublishedTool } from './gateway-types.ts';

/** MCP tool names are at most 64 characters. */
const MAX_TOOL_NAME = 64;

/**
 * Published tools by description, then by agent name and naming: descriptions are cached and
 * replaced whole, never changed (one adapter may hand several agents the same one), and the NLWeb
 * binding asks for the tools on every answer (to attach actions), where building them again was
 * ≈ 2 µs of each request (`npm run bench:layers`).
 */
const publishedOf = new WeakMap<AgentDescription, Map<string, PublishedTool[]>>();

/** The tools of `name` (described by `tools`) as published: `<agent>__<tool>` when several agents are configured. */
function publish(name: string, tools: NonNullable<AgentDescription['tools']>, qualify: boolean): PublishedTool[] {
  return tools.map((t) => ({
    ...t,
    agent: name,
    toolName: t.name,
    name: (qualify ? `${name}__${t.name}` : t.name).slice(0, MAX_TOOL_NAME),
  }));
}

/**
 * The structured tools of one agent, or of every agent, as the gateway publishes them: named
 * `<agent>__<tool>` when several agents are configured; a client session sees what its agent lists
 * for it (MCP per-session tool lists), else the agent's described tools.
 */
export async function publishTools(registry: AgentRegistry, agent?: string, session?: ClientSession): Promise<PublishedTool[]> {
  const qualify = registry.names().length > 1;
  // One agent whose description is cached: no awaits.
  const known = agent !== undefined && !session ? knownTools(registry, agent) : undefined;
  if (known) return [...known];
  const names = agent !== undefined ? [registry.get(agent).config.name] : registry.names();
  const lists = await Promise.all(
    names.map(async (name) => {
      const own = session ? await registry.get(name).agent.toolsFor?.(session).catch(() => undefined) : undefined;
      if (own) return publish(name, own, qualify);
      const description = await registry.describe(name).catch(() => undefined);
      return description ? publishedFor(name, description, qualify) : [];
    }),
  );
  // A fresh array each call: the cached lists are never handed out to be changed.
  return lists.flat();
}

/**
 * The published tools of one agent whose description is cached, at once (not to be changed: the
 * cache's own list); undefined when it must be described first, or no agent has that name. The
 * NLWeb binding asks on every answer, to attach actions: publishTools' awaits cost it six promises
 * a request (issue 25).
 */
export function knownTools(registry: AgentRegistry, agent: string): readonly PublishedTool[] | undefined {
  const entry = registry.find(agent);
  return entry?.description ? publishedFor(entry.config.name, entry.description, registry.names().length > 1) : undefined;
}

/** The published tools of one description, made once per description, agent and naming. */
function publishedFor(name: string, description: AgentDescription, qualify: boolean): readonly PublishedTool[] {
  let byName = publishedOf.get(description);
  if (!byName) publishedOf.set(description, (byName = new Map()));
  const key = `${qualify ? 'q' : ''}:${name}`;
  let tools = byName.get(key);
  if (!tools) byName.set(key, (tools = publish(name, description.tools ?? [], qualify)));
  return tools;
}

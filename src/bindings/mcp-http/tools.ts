import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/server';
import type { ClientSession } from '../../core/agent.ts';
import type { Gateway, PublishedTool } from '../../core/gateway-types.ts';
import { AwaitRequestSchema, QuerySchema } from '../../protocol/nlweb/index.ts';

/** MCP tool names the gateway publishes stay within this many characters (interop.md "MCP"). */
export const MAX_TOOL_NAME = 64;

const looseObject = (description: string) => z.looseObject({}).describe(description).optional();

/**
 * NLWeb v0.55 Appendix A.1, the `ask` tool's arguments, built from the protocol's own schemas. The
 * tool validates with the full AskRequestSchema (accept loosely); this is what clients are shown.
 */
export const AskToolInputSchema = z.object({
  query: QuerySchema.pick({ text: true, itemType: true })
    .extend({ site: z.string().optional() })
    .describe('The query object containing text and filters'),
  context: looseObject('Semantic context including conversation history'),
  prefer: looseObject('Response preferences (streaming, formatting, mode)'),
  meta: looseObject('Protocol metadata, version, and session context'),
});

/** NLWeb v0.55 Appendix A.2, the `await` tool's arguments (NLWeb 4.2). */
export const AwaitToolInputSchema = AwaitRequestSchema.pick({ promise_token: true, action: true }).extend({
  meta: z.looseObject({}).optional(),
});

/**
 * The JSON Schema published for a zod schema (MCP `inputSchema`), from `z.toJSONSchema`, made once
 * per schema: the `ask` and `await` schemas are constants, and converting them was per-request work
 * on every `tools/list` and `tools/call`. Callers never mutate a published schema.
 */
const inputSchemas = new WeakMap<z.ZodType, Tool['inputSchema']>();
function inputSchemaOf(schema: z.ZodType): Tool['inputSchema'] {
  let made = inputSchemas.get(schema);
  if (!made) inputSchemas.set(schema, (made = z.toJSONSchema(schema, { io: 'input' }) as Tool['inputSchema']));
  return made;
}

/** Appendix A.1: the `ask` tool, described by the agent(s) it reaches; where MCP tasks are on, it may run as one. */
export function askTool(description: string, opts: { tasks?: boolean } = {}): Tool {
  return {
    name: 'ask',
    description,
    inputSchema: inputSchemaOf(AskToolInputSchema),
    annotations: { readOnlyHint: true, openWorldHint: true },
    ...(opts.tasks ? { execution: { taskSupport: 'optional' as const } } : {}),
  };
}

/** Appendix A.2: the `await` tool. */
export function awaitTool(): Tool {
  return { name: 'await', description: 'Check status or cancel a long-running promise.', inputSchema: inputSchemaOf(AwaitToolInputSchema) };
}

/** Where a published tool name leads. */
export type ToolRoute =
  | { kind: 'ask' }
  | { kind: 'await' }
  /** `taskSupport`: how the agent's tool relates to tasks (its `execution`), for the 2026 tasks extension. */
  | { kind: 'agent'; agent: string; tool: string; outputSchema?: Record<string, unknown>; taskSupport?: string };

/** The tools one MCP endpoint publishes, and the route behind each name. */
export interface ToolSurface {
  tools: Tool[];
  routes: Map<string, ToolRoute>;
}

/** A name no other tool has: the gateway's own, else `<agent>__<tool>`, else shortened with a hash. */
export function publishedName(t: Pick<PublishedTool, 'name' | 'agent' | 'toolName'>, taken: ReadonlySet<string>): string {
  const candidates = [t.name, `${t.agent}__${t.toolName}`];
  for (const c of candidates) if (c.length <= MAX_TOOL_NAME && !taken.has(c)) return c;
  const hash = createHash('sha256').update(`${t.agent}\0${t.toolName}`).digest('hex').slice(0, 8);
  return `${candidates[1]!.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/** The `ask` description: the agent's own for one agent (Appendix A.1), else the agents it can reach. */
async function askDescription(gateway: Gateway, agent: string | undefined): Promise<string> {
  const names = agent !== undefined ? [agent] : gateway.listAgents().map((a) => a.name);
  const descriptions = await Promise.all(names.map((n) => gateway.describeAgent(n).then((d) => d.description, () => n)));
  if (descriptions.length === 1) return `Natural Language interface: ${descriptions[0]}`;
  return `Natural Language interface to ${names.length} agents (pick one with query.site): ${names.map((n, i) => `${n} — ${descriptions[i]}`).join('; ')}`;
}

/**
 * Everything an endpoint publishes (NLWeb Appendix A plus every agent's structured tools): `ask`,
 * `await`, then the agents' tools, named as the gateway qualifies them (`<agent>__<tool>` when more
 * than one agent is configured), never clashing with `ask`/`await`, within 64 characters.
 */
export async function toolSurface(gateway: Gateway, agent: string | undefined, opts: { tasks?: boolean; session?: ClientSession } = {}): Promise<ToolSurface> {
  const [description, published] = await Promise.all([askDescription(gateway, agent), gateway.listTools(agent, opts.session)]);
  const tools: Tool[] = [askTool(description, opts), awaitTool()];
  const routes = new Map<string, ToolRoute>([
    ['ask', { kind: 'ask' }],
    ['await', { kind: 'await' }],
  ]);
  for (const t of published) {
    const name = publishedName(t, new Set(routes.keys()));
    const taskSupport = t.execution?.taskSupport;
    routes.set(name, { kind: 'agent', agent: t.agent, tool: t.toolName, ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}), ...(taskSupport ? { taskSupport } : {}) });
    tools.push({
      name,
      ...(t.title ? { title: t.title } : {}),
      description: t.description,
      inputSchema: t.inputSchema as Tool['inputSchema'],
      ...(t.outputSchema ? { outputSchema: t.outputSchema as Tool['outputSchema'] } : {}),
      ...(t.annotations ? { annotations: t.annotations } : {}),
      // No `execution`: the gateway runs every agent tool to its end itself (a tool the upstream
      // runs only as a task is called task-augmented upstream), so a client calls it plainly.
    });
  }
  return { tools, routes };
}

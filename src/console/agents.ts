import type { Gateway } from '../core/gateway-types.ts';

/** One agent as the console lists it: what it is and every URL it is reachable on. */
export interface ConsoleAgent {
  name: string;
  kind: string;
  description: string;
  sites: string[];
  itemTypes: string[];
  tools: Array<{ name: string; description: string }>;
  /** `inProcess`: the agent answers inside the gateway (no upstream wire to show). */
  inProcess: boolean;
  requireAuth: boolean;
  endpoints: Record<string, string>;
}

/** Kinds whose agents answer in-process, without an upstream HTTP exchange. */
const IN_PROCESS_KINDS = new Set(['catalog', 'scripted']);

/** Builds the console's agent list from `listAgents()` and `describeAgent()` (issue 14 "The agent list"). */
export async function consoleAgents(gateway: Gateway, base: string, requireAuth: ReadonlySet<string>): Promise<ConsoleAgent[]> {
  return Promise.all(
    gateway.listAgents().map(async (a) => {
      const d = await gateway.describeAgent(a.name).catch(() => undefined);
      const at = `${base}/agents/${a.name}`;
      return {
        name: a.name,
        kind: a.kind,
        description: d?.description ?? a.description,
        sites: d?.sites ?? [],
        itemTypes: d?.itemTypes ?? [],
        tools: (d?.tools ?? []).map((t) => ({ name: t.name, description: t.description })),
        inProcess: IN_PROCESS_KINDS.has(a.kind),
        requireAuth: requireAuth.has(a.name),
        endpoints: {
          nlweb: `${at}/ask`,
          'nlweb await': `${at}/await`,
          nlip: `${at}/nlip/`,
          mcp: `${at}/mcp`,
          webtool: `${base}/webtools/${a.name}`,
          'nlweb legacy': `${at}/ask?query=`,
        },
      };
    }),
  );
}

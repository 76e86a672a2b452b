/**
 * Which lost promises another replica runs again (issue 24): a call lost with its replica is run
 * again when running it twice does no harm upstream, else it fails with WORKER_LOST. The agent's
 * config decides first (`idempotent: true` or `false`); when it says nothing, the upstream's own
 * declaration does: an ask of a query kind (catalog, NLWeb: AdapterFactory.asksAreQueries), or a
 * tool annotated `readOnlyHint` or `idempotentHint` (MCP tool annotations), for an ask mapped to
 * that tool (Agent.asksMayRunAgain) and for a structured tool call alike.
 */
import { z } from 'zod';
import type { AgentDescription, ToolDescription } from './agent.ts';
import type { AgentEntry } from './agents.ts';
import type { PromiseRecord } from '../store/store.ts';

/** What a tool call's promise keeps so another replica can run it again: the tool and its arguments, never credentials. */
export const StoredToolCallSchema = z.strictObject({
  toolCall: z.strictObject({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }),
});
export type StoredToolCall = z.infer<typeof StoredToolCallSchema>;

/** The stored form of a tool call (PromiseRecord.request). */
export function storedToolCall(name: string, args: Record<string, unknown>): StoredToolCall {
  return { toolCall: { name, arguments: args } };
}

/** The tool call a promise keeps; undefined when it keeps an ask (or nothing). */
export function toolCallOf(request: unknown): StoredToolCall['toolCall'] | undefined {
  const parsed = StoredToolCallSchema.safeParse(request);
  return parsed.success ? parsed.data.toolCall : undefined;
}

/** Whether a tool declares that calling it twice does no harm: MCP `readOnlyHint` or `idempotentHint`. */
export function toolMayRunAgain(tool: ToolDescription | undefined): boolean {
  return tool?.annotations?.readOnlyHint === true || tool?.annotations?.idempotentHint === true;
}

/**
 * Whether a lost promise of `entry` may run again. The config's `idempotent` decides when set; else
 * the upstream's declaration, except for agents that forward the client's credentials: a re-run
 * has none to forward, so it would reach the upstream as someone else.
 */
export async function mayRunAgain(entry: AgentEntry, record: PromiseRecord, describe: () => Promise<AgentDescription>): Promise<boolean> {
  const said = entry.config.idempotent;
  if (said !== undefined) return said;
  if (entry.config.forwardCredentials === true) return false;
  const call = toolCallOf(record.request);
  if (call) return toolMayRunAgain((await describe()).tools?.find((t) => t.name === call.name));
  // Bounded like a description (AgentRegistry.describe): a hung upstream must not stall the sweep.
  return (await entry.agent.asksMayRunAgain?.(AbortSignal.timeout(entry.config.timeoutMs ?? 10_000))) === true;
}

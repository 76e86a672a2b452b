/**
 * Regression (issue 12, "webtool execute hashed the whole metadata on every call"): the metadata,
 * and the canonical-JSON hash behind its version, is built once per agent description.
 */
import { describe, expect, it } from 'vitest';
import type { AgentDescription } from '../../core/agent.ts';
import type { Gateway, PublishedTool } from '../../core/gateway-types.ts';
import { agentMetadata } from './metadata.ts';

/** The two Gateway methods agentMetadata uses, over a description that can be replaced. */
function gatewayWith(state: { description: AgentDescription; listed: number }): Gateway {
  return {
    describeAgent: async () => state.description,
    listTools: async (): Promise<PublishedTool[]> => {
      state.listed++;
      return (state.description.tools ?? []).map((t) => ({ ...t, agent: 'a', toolName: t.name }));
    },
  } as unknown as Gateway;
}

describe('agentMetadata', () => {
  it('builds the metadata once per description, and anew when the description changes', async () => {
    const state = { description: { description: 'A', tools: [{ name: 'search', description: 's', inputSchema: { type: 'object' } }] } as AgentDescription, listed: 0 };
    const gateway = gatewayWith(state);
    const first = await agentMetadata(gateway, 'a');
    expect(await agentMetadata(gateway, 'a')).toBe(first);
    expect(state.listed).toBe(1);
    state.description = { ...state.description, tools: [{ name: 'find', description: 'f', inputSchema: { type: 'object' } }] } as AgentDescription;
    const second = await agentMetadata(gateway, 'a');
    expect(second.version).not.toBe(first.version);
    expect(second.actions.map((a) => a.name)).toEqual(['ask', 'await', 'find']);
  });
});

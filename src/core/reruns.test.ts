import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../base/logger.ts';
import type { AdapterFactory, Agent, AgentDescription } from './agent.ts';
import { AgentRegistry, type AgentEntry } from './agents.ts';
import { mayRunAgain, storedToolCall, toolCallOf, toolMayRunAgain } from './reruns.ts';
import type { PromiseRecord } from '../store/store.ts';

const description: AgentDescription = {
  description: 'tools',
  tools: [
    { name: 'read', description: '', inputSchema: {}, annotations: { readOnlyHint: true } },
    { name: 'put', description: '', inputSchema: {}, annotations: { idempotentHint: true } },
    { name: 'send', description: '', inputSchema: {}, annotations: { readOnlyHint: false, destructiveHint: true } },
  ],
};
const entry = (config: Record<string, unknown>, asks = false): AgentEntry => ({
  agent: { name: 'a', kind: 'mcp', asksMayRunAgain: async () => asks } as unknown as Agent,
  config: { name: 'a', kind: 'mcp', ...config },
});
const record = (request: unknown): PromiseRecord => ({ token: 't', agent: 'a', status: 'running', owner: 'o', leaseUntil: 0, createdAt: 0, updatedAt: 0, request });
const describe$ = async () => description;

describe('which lost promises run again (issue 24)', () => {
  it('a tool runs again only when it declares readOnlyHint or idempotentHint', () => {
    expect(description.tools!.map(toolMayRunAgain)).toEqual([true, true, false]);
    expect(toolMayRunAgain(undefined)).toBe(false);
  });

  it('a stored tool call reads back; an ask request is not one', () => {
    expect(toolCallOf(storedToolCall('read', { q: 1 }))).toEqual({ name: 'read', arguments: { q: 1 } });
    expect(toolCallOf({ query: { text: 'x' } })).toBeUndefined();
  });

  it('the config decides when it says idempotent; else the tool or the ask tool\'s annotations', async () => {
    expect(await mayRunAgain(entry({}), record(storedToolCall('read', {})), describe$)).toBe(true);
    expect(await mayRunAgain(entry({}), record(storedToolCall('send', {})), describe$)).toBe(false);
    expect(await mayRunAgain(entry({ idempotent: false }), record(storedToolCall('read', {})), describe$)).toBe(false);
    expect(await mayRunAgain(entry({ idempotent: true }), record(storedToolCall('send', {})), describe$)).toBe(true);
    expect(await mayRunAgain(entry({}, true), record({ query: { text: 'q' } }), describe$)).toBe(true);
    expect(await mayRunAgain(entry({}, false), record({ query: { text: 'q' } }), describe$)).toBe(false);
  });

  it('an agent forwarding client credentials never runs again on an upstream\'s word: the re-run would have none to forward', async () => {
    expect(await mayRunAgain(entry({ forwardCredentials: true }, true), record({ query: { text: 'q' } }), describe$)).toBe(false);
    expect(await mayRunAgain(entry({ forwardCredentials: true }), record(storedToolCall('read', {})), describe$)).toBe(false);
  });

  it('regression: a query agent that forwards credentials was re-run by default, as the gateway, without them', async () => {
    const queries: AdapterFactory = {
      kind: 'queries',
      configSchema: z.object({}),
      asksAreQueries: true,
      create: (config) => ({ name: config.name, kind: 'queries', describe: async () => ({ description: '' }), ask: async function* () {} }),
    };
    const registry = new AgentRegistry(
      [
        { name: 'open', kind: 'queries' },
        { name: 'private', kind: 'queries', forwardCredentials: true },
        { name: 'said', kind: 'queries', forwardCredentials: true, idempotent: true },
      ],
      [queries],
      { log: silentLogger, baseDir: '.' },
    );
    const ask = record({ query: { text: 'q' } });
    const lost = (name: string) => mayRunAgain(registry.get(name), ask, describe$);
    expect(await lost('open')).toBe(true);
    expect(await lost('private')).toBe(false);
    // The operator's explicit word still decides (docs/configuration.md `idempotent`).
    expect(await lost('said')).toBe(true);
  });
});

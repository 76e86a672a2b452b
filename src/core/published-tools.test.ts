import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../base/logger.ts';
import type { AdapterFactory, AgentDescription } from './agent.ts';
import { AgentRegistry } from './agents.ts';
import { knownTools, publishTools } from './published-tools.ts';

/** One description object handed to every agent of the kind (as a static adapter may). */
const SHARED: AgentDescription = { description: 'Shared', tools: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }] };
const shared: AdapterFactory = {
  kind: 'shared',
  configSchema: z.object({}),
  create: (config) => ({ name: config.name, kind: 'shared', describe: async () => SHARED, ask: async function* () {} }),
};
const registry = (...names: string[]) => new AgentRegistry(names.map((name) => ({ name, kind: 'shared' })), [shared], { log: silentLogger, baseDir: '.' });

describe('publishTools', () => {
  it('names each agent its own tools even when agents share one description object', async () => {
    const r = registry('alpha', 'beta');
    expect((await publishTools(r, 'alpha')).map((t) => [t.agent, t.name, t.toolName])).toEqual([['alpha', 'alpha__lookup', 'lookup']]);
    expect((await publishTools(r, 'beta')).map((t) => [t.agent, t.name, t.toolName])).toEqual([['beta', 'beta__lookup', 'lookup']]);
    expect((await publishTools(r)).map((t) => t.name)).toEqual(['alpha__lookup', 'beta__lookup']);
  });

  it('leaves names unqualified with one agent, though another registry qualifies the same description', async () => {
    await publishTools(registry('alpha', 'beta'), 'alpha');
    expect((await publishTools(registry('alpha'), 'alpha')).map((t) => t.name)).toEqual(['lookup']);
  });

  it('hands out a fresh list each call: what a caller does to it is not seen by the next', async () => {
    const r = registry('alpha');
    const first = await publishTools(r, 'alpha');
    first.length = 0;
    expect(await publishTools(r, 'alpha')).toHaveLength(1);
  });

  it('knownTools answers at once only for an agent described already, with what publishTools gives, and undefined for no such agent', async () => {
    const r = registry('alpha', 'beta');
    expect(knownTools(r, 'alpha')).toBeUndefined(); // not described yet: the caller lists them (and describes it)
    const listed = await publishTools(r, 'alpha');
    expect(knownTools(r, 'alpha')).toEqual(listed);
    expect(knownTools(r, 'beta')).toBeUndefined();
    expect(knownTools(r, 'nobody')).toBeUndefined();
  });
});

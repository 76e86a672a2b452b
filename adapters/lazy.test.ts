import { describe, expect, it } from 'vitest';
import { loadAdapters } from '../src/core/agent.ts';
import { builtinAdapters } from './index.ts';
import { createLogger } from '../src/base/logger.ts';

const deps = { log: createLogger('silent'), baseDir: '.' };

describe('lazy adapter kinds (issue 23: an SDK loads only when an agent of its kind is configured)', () => {
  it('loadAdapters loads only the kinds the agents use, and a lazy kind creates only once loaded', async () => {
    const a2a = builtinAdapters.find((f) => f.kind === 'a2a')!;
    const mcp = builtinAdapters.find((f) => f.kind === 'mcp')!;
    expect(typeof a2a.load).toBe('function');
    await loadAdapters(builtinAdapters, [{ kind: 'catalog' }]);
    expect(() => mcp.create({ name: 'm', kind: 'mcp', url: 'http://127.0.0.1:1/mcp' }, deps)).toThrow(/before load/);
    await loadAdapters(builtinAdapters, [{ kind: 'mcp' }, { kind: 'mcp' }]);
    const agent = mcp.create({ name: 'm', kind: 'mcp', url: 'http://127.0.0.1:1/mcp' }, deps);
    expect(agent.kind).toBe('mcp');
    await agent.close?.();
  });

  it('the openapi kind (its $ref resolver) is lazy too', async () => {
    const openapi = builtinAdapters.find((f) => f.kind === 'openapi')!;
    expect(typeof openapi.load).toBe('function');
    await loadAdapters(builtinAdapters, [{ kind: 'openapi' }]);
    const agent = openapi.create({ name: 'o', kind: 'openapi', spec: 'x.yaml' }, deps);
    expect(agent.kind).toBe('openapi');
    await agent.close?.();
  });
});

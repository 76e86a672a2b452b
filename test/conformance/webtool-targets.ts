/**
 * The agent kinds the webtool conformance suite runs against. Adding a kind is one line in
 * WEBTOOL_TARGETS: a function returning the agent entries to configure, the webtool under test and a
 * few fixtures (a question it answers, optionally a structured action, optionally fault actions).
 */
import { startKitchen } from '../webtool/kitchen-upstream.ts';

export interface WebtoolTarget {
  kind: string;
  /** Starts what the agent needs (an upstream), returns the agent entries and a cleanup. */
  setup(): Promise<{ agents: Record<string, unknown>[]; close(): Promise<void> }>;
  /** The agent exposed as the webtool under test. */
  agent: string;
  /** An ask request the agent answers with an answer (`status: ok`). */
  ask: Record<string, unknown>;
  /** A structured action: a request it accepts and one that breaks its requestSchema. */
  tool?: { action: string; request: Record<string, unknown>; badRequest: Record<string, unknown> };
  /** Actions that fail on purpose: an internal error, a rate limit, data breaking the responseSchema. */
  faults?: { internal: string; rateLimit: string; badData: string };
}

const catalog = (): WebtoolTarget => ({
  kind: 'catalog',
  agent: 'recipes',
  setup: async () => ({ agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }], close: async () => {} }),
  ask: { query: { text: 'spaghetti garlic' } },
});

const webtool = (): WebtoolTarget => ({
  kind: 'webtool',
  agent: 'kitchen',
  setup: async () => {
    const k = await startKitchen({ faults: true });
    const ask = { action: 'convert_text', request: { text: '{{query.text}}', to: '{{query.unit}}' } };
    return { agents: [{ name: 'kitchen', kind: 'webtool', url: k.webtoolUrl, ask }], close: () => k.close() };
  },
  ask: { query: { text: '2 cups to ml' } },
  tool: { action: 'convert', request: { amount: 2, from: 'cup', to: 'ml' }, badRequest: { amount: 'two', from: 'cup', to: 'ml' } },
  faults: { internal: 'explode', rateLimit: 'busy', badData: 'lie' },
});

const scripted = (): WebtoolTarget => ({
  kind: 'scripted',
  agent: 'scripted',
  setup: async () => ({ agents: [{ name: 'scripted', kind: 'scripted' }], close: async () => {} }),
  ask: { query: { text: 'count:3' } },
  tool: { action: 'echo', request: { say: 'hi' }, badRequest: { say: 5 } },
});

/** One line per agent kind exposed as a webtool. */
export const WEBTOOL_TARGETS: Array<() => WebtoolTarget> = [catalog, webtool, scripted];

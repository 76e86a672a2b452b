import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.ts';
import { onGatewayScale, onUpstreamScale } from './score.ts';

async function mapped(events: AgentEvent[], scale: '0-100' | '0-1'): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of onGatewayScale((async function* () { yield* events; })(), scale)) out.push(e);
  return out;
}

describe('nlweb adapter scores on the gateway 0-100 scale', () => {
  it('keeps 0-100 scores (clamped) and multiplies out fractions from a 0-1 upstream', async () => {
    const items = [{ name: 'a', score: 87 }, { name: 'b', score: 140 }, { name: 'c' }];
    const events: AgentEvent[] = [{ type: 'start' }, ...items.map((item) => ({ type: 'result' as const, item }))];
    expect((await mapped(events, '0-100')).slice(1).map((e) => (e as { item: { score?: number } }).item.score)).toEqual([87, 100, undefined]);
    const fractions: AgentEvent[] = [{ type: 'result', item: { name: 'a', score: 0.873 } }];
    expect(await mapped(fractions, '0-1')).toEqual([{ type: 'result', item: { name: 'a', score: 87.3 } }]);
  });

  it('sends a client min_score to a 0-1 upstream as a fraction', () => {
    expect(onUpstreamScale({ query: { text: 'x', min_score: 40 } }, '0-1').query.min_score).toBe(0.4);
    expect(onUpstreamScale({ query: { text: 'x', min_score: 40 } }, '0-100').query.min_score).toBe(40);
  });
});

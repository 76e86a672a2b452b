import { describe, expect, it } from 'vitest';
import { readSse } from './sse.ts';

const body = (text: string) => new Response(text).body!;

async function all(text: string) {
  const out = [];
  for await (const m of readSse(body(text))) out.push(m);
  return out;
}

describe('readSse', () => {
  it('yields complete events without the incomplete flag', async () => {
    expect(await all('event: result\ndata: {"a":1}\n\ndata: {"b":2}\n\n')).toEqual([
      { event: 'result', data: '{"a":1}', id: undefined },
      { event: undefined, data: '{"b":2}', id: undefined },
    ]);
  });

  it('still yields a final event that lacks its blank line, marked incomplete (v0.54 streams that just end)', async () => {
    const events = await all('data: {"a":1}\n\ndata: {"b":');
    expect(events).toHaveLength(2);
    expect(events[0]!.incomplete).toBeUndefined();
    expect(events[1]).toMatchObject({ data: '{"b":', incomplete: true });
  });
});

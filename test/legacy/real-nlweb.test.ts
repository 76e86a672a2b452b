import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { FRONTS, gatewayAgents, type Seen } from './real-nlweb/fronts.ts';
import { loadRecording, startReplayServer, type ReplayServer } from './real-nlweb/replay-server.ts';

/**
 * Issue 26: Microsoft's NLWeb server behind the gateway, replayed. The server's own answers (its
 * JSON objects and SSE bytes, recorded by `npm run interop:nlweb -- <checkout> --record`) come
 * back from a fixture server, and every front of the gateway is asked what the interop check asks
 * the real server. What the real server sends a client should see must reach the client.
 */
const recording = loadRecording();
let replay: ReplayServer;
let gw: TestGateway;

beforeAll(async () => {
  replay = await startReplayServer(recording);
  gw = await startGateway({ agents: gatewayAgents(replay.url) });
});
afterAll(async () => {
  await gw?.close();
  await replay?.close();
});

const CHILI = {
  type: 'Recipe',
  name: 'Vegan Lentil Chili',
  url: 'https://seriouseats.example.com/recipes/vegan-lentil-chili',
  score: 80,
  site: 'seriouseats',
  description: 'Vegan Lentil Chili: a match for "vegan chili".',
  image: 'https://seriouseats.example.com/img/vegan-lentil-chili.jpg',
};
const SUMMARY = 'Summary for "vegan chili": 6 recipes found.';

/** What each front must show, beyond what every front must (see the loop below). */
const EXPECT: Record<string, (s: Seen) => void> = {
  'v0.55 /ask JSON': (s) => expect(s.items[0]).toEqual(CHILI),
  'v0.55 /ask SSE': (s) => {
    expect(s.items[0]).toEqual(CHILI);
    expect(s.notes).toContain('events: start,result,complete');
  },
  'v0.55 summarize': (s) => expect(s.text).toBe(SUMMARY),
  'v0.55 site filter': (s) => {
    expect(s.items.map((i) => i.site)).toEqual(['bakingbook', 'bakingbook']);
    expect(s.items[0]).toMatchObject({ name: 'Pecan Pie', score: 60 });
  },
  'v0.55 two turns (prev)': (s) => {
    // The replay server matched the second turn only because the gateway sent prev=pumpkin pie.
    expect(s.decontextualized).toBe('vegan ones? (following pumpkin pie)');
    expect(s.items[0]).toMatchObject({ name: 'Pumpkin Pie' });
  },
  'v0.55 item details': (s) => {
    expect(s.items).toEqual([expect.objectContaining({ type: 'Recipe', name: 'Pumpkin Pie', score: 95, description: 'Details of Pumpkin Pie: see the recipe' })]);
  },
  'v0.54 client (SSE)': (s) => {
    expect(s.text).toBe(SUMMARY);
    expect(s.notes).toEqual([]);
  },
  NLIP: (s) => expect(s.text).toBe(SUMMARY),
  'MCP tools/call': (s) => expect(s.text).toBe(SUMMARY),
  'A2A message/send': (s) => expect(s.text).toContain('Vegan Lentil Chili'),
  'webtools ask': (s) => expect(s.items[0]).toEqual(CHILI),
  'old client GET /ask SSE': (s) => expect(s.text).toBe(SUMMARY),
  'old client GET /ask JSON': (s) => expect(s.items[0]).toMatchObject({ name: CHILI.name, url: CHILI.url, score: 80 }),
  // The old client's generate reaches the server as generate (prefer.generate_mode); its `nlws`
  // answer, sent twice, arrives once, with the items it was drawn from.
  'old client generate': (s) => {
    expect(s.text).toBe('An answer to "vegan chili" drawn from 3 recipes.');
    expect(s.items[0]).toMatchObject({ name: CHILI.name, url: CHILI.url, description: 'Used in the answer to "vegan chili".' });
  },
  // The server's one-piece JSON (agent `streaming: false`). Regression: the gateway offered SSE in
  // Accept there too, and the real server then streamed only `complete`: every answer was empty.
  'upstream JSON summarize': (s) => {
    expect(s.items[0]).toEqual(CHILI);
    expect(s.text).toBe(SUMMARY);
  },
  'upstream JSON two turns': (s) => expect(s.decontextualized).toBe('vegan ones? (following pumpkin pie)'),
  'upstream JSON item details': (s) => {
    expect(s.items).toEqual([expect.objectContaining({ name: 'Pumpkin Pie', score: 95, description: 'Details of Pumpkin Pie: see the recipe' })]);
  },
  'upstream JSON generate': (s) => expect(s.text).toBe('An answer to "vegan chili" drawn from 3 recipes.'),
  'server /mcp (transport: mcp)': (s) => {
    expect(s.items[0]).toEqual(CHILI);
    expect(s.text).toBe(SUMMARY);
  },
};

describe('the recording', () => {
  it('names the NLWeb commit that produced it', () => {
    expect(recording.producedBy).toMatchObject({ repository: 'github.com/nlweb-ai/NLWeb', commit: expect.stringMatching(/^8612638[0-9a-f]{33}$/) });
    expect(recording.exchanges.some((e) => e.contentType.startsWith('text/event-stream') && e.response.includes('"message_type": "result_batch"'))).toBe(true);
  });
});

describe('every front of the gateway before the real NLWeb server (replayed)', () => {
  it.each(FRONTS.map((f) => [f.name, f] as const))('%s', async (name, front) => {
    const seen = await front.ask(gw.url);
    expect(replay.misses).toEqual([]);
    expect(seen.items.length).toBeGreaterThan(0);
    for (const item of seen.items) {
      expect(item).toMatchObject({ type: 'Recipe', name: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
      if (front.scored !== false) expect(item.score).toEqual(expect.any(Number));
      expect(item.description).toBeTruthy();
    }
    expect(seen.notes.filter((n) => /error|failure|dropped|bad lines/.test(n))).toEqual([]);
    if (!name.startsWith('old client GET /ask JSON') && !name.startsWith('v0.54')) expect(seen.conversation).toBeTruthy();
    EXPECT[name]!(seen);
  });
});

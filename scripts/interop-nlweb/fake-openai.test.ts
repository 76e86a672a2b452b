import { describe, expect, it } from 'vitest';
import { EMBEDDING_DIMENSIONS, answerFor, embed, startFakeOpenAI } from './fake-openai.ts';
import { loaderFile, recipes, SITES } from './recipes.ts';

/** Prompts as NLWeb (commit 8612638) fills them from config/prompts.xml and tools.xml. */
const RANKING = `Assign a score between 0 and 100 to the following item
        The user's question is: \\"vegan chili\\". The item's description in schema.org format is \\"{'@type': ['Recipe'], 'name': ['Vegan Lentil Chili'], 'description': ['lentils, cumin, chili']}\\".
`;
const TOOL = (tool: string, query: string) => `The user has the following query: ${query}.\n        Assign a score from 0 to 100 for whether the ${tool} tool is appropriate.\n`;
const DECONTEXTUALIZE = `The user's query is: vegan ones?. \n        Previous queries were: ['pumpkin pie'].\n`;

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('the fake OpenAI answers in the shapes NLWeb parses', () => {
  it('ranks by word overlap and describes the item by its name', () => {
    const out = answerFor({ score: 'integer between 0 and 100', description: 'short description of the item' }, RANKING);
    expect(out).toEqual({ score: 80, description: 'Vegan Lentil Chili: a match for "vegan chili".' });
  });

  it('picks the search tool for a search and the details tool for "ingredients of X"', () => {
    const schema = { score: 'integer between 0 and 100', item_name: '', details_requested: '' };
    expect(answerFor(schema, TOOL('search', 'vegan chili')).score).toBe(90);
    expect(answerFor(schema, TOOL('details', 'vegan chili')).score).toBe(10);
    expect(answerFor(schema, TOOL('details', 'ingredients of Pumpkin Pie'))).toEqual({ score: 95, item_name: 'Pumpkin Pie', details_requested: 'ingredients' });
    // The accompaniment and ensemble prompts say "whether this tool is appropriate": never chosen.
    expect(answerFor({ score: 'integer between 0 and 100' }, `The user has the following query: vegan ones?.\n Assign a score from 0 to 100 for whether this tool is appropriate.\n`).score).toBe(5);
  });

  it('rewrites a follow-up with the previous queries, and leaves a first query alone', () => {
    const schema = { requires_decontextualization: 'True or False', decontextualized_query: 'The rewritten query' };
    expect(answerFor(schema, DECONTEXTUALIZE)).toEqual({ requires_decontextualization: 'True', decontextualized_query: 'vegan ones? (following pumpkin pie)' });
    expect(answerFor(schema, `The user's query is: pie. \n        Previous queries were: [].\n`)).toMatchObject({ requires_decontextualization: 'False' });
  });

  it('embeds deterministically, nearer for shared words', () => {
    const q = embed('vegan chili');
    expect(q).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(embed('vegan chili')).toEqual(q);
    expect(cosine(q, embed('Vegan Lentil Chili'))).toBeGreaterThan(cosine(q, embed('Lemon Bars')));
  });

  it('serves both endpoints over HTTP the way the OpenAI SDK calls them', async () => {
    const fake = await startFakeOpenAI();
    try {
      const post = (path: string, body: unknown) => fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
      const emb = await post('/embeddings', { model: 'text-embedding-3-small', input: ['a pie', 'a soup'] });
      expect(emb.data.map((d: { index: number; embedding: number[] }) => [d.index, d.embedding.length])).toEqual([[0, EMBEDDING_DIMENSIONS], [1, EMBEDDING_DIMENSIONS]]);
      const chat = await post('/chat/completions', { model: 'gpt-4.1', messages: [{ role: 'system', content: 'Provide a valid JSON response matching this schema: {"summary": "string"}' }, { role: 'user', content: "The user's question is: pie. \n The items are: [{'name': 'Pecan Pie'}]." }] });
      expect(JSON.parse(chat.choices[0].message.content)).toEqual({ summary: 'Summary for "pie": 1 recipes found.' });
      expect(fake.counts).toEqual({ chat: 1, embeddings: 1 });
    } finally {
      await fake.close();
    }
  });
});

describe('the recipes', () => {
  it('fill both sites, in the loader\'s url<TAB>json form', () => {
    expect(new Set(recipes().map((r) => r.site))).toEqual(new Set(SITES));
    const line = loaderFile('bakingbook').split('\n')[0]!;
    const [url, json] = line.split('\t');
    expect(JSON.parse(json!)[0]).toMatchObject({ '@type': 'Recipe', url });
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiAdapter, type OpenapiAgent } from '../../adapters/openapi/index.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { UpstreamClient } from '../../src/core/upstream/index.ts';
import { callContext, collect, failure } from '../support/agent-calls.ts';
import { SHOP_KEY, SHOP_TOKEN, startShopApi, type ShopApi } from './shop-api.ts';

let api: ShopApi;
let dir: string;
beforeAll(async () => {
  api = await startShopApi();
  dir = await mkdtemp(join(tmpdir(), 'nlgate-openapi-'));
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

function agent(extra: Record<string, unknown> = {}, baseDir = '.', common: { timeoutMs?: number } = {}): OpenapiAgent {
  const config = openapiAdapter.configSchema.parse({ spec: api.specUrl, ...extra });
  return openapiAdapter.create({ ...config, ...common, name: 'shop', kind: 'openapi' }, { log: silentLogger, baseDir }) as OpenapiAgent;
}
const shop = () => agent({ auth: { bearer: SHOP_TOKEN, key: SHOP_KEY }, ask: { operation: 'searchProducts', query: 'q', results: '$.items' } });

const ctx = callContext;

describe('openapi adapter against a Fastify API whose spec @fastify/swagger generates (real HTTP)', () => {
  it('every operation is a tool: input from parameters and body, output from the 2xx reply, hints from the method', async () => {
    const d = await shop().describe();
    expect(d.description).toBe('Shop: Kitchenware shop');
    const byName = Object.fromEntries(d.tools!.map((t) => [t.name, t]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['searchProducts', 'listNotes', 'getProduct', 'setStock', 'createOrder', 'cancelOrder', 'listCategories', 'echo']));
    expect(byName.searchProducts!.inputSchema).toMatchObject({ type: 'object', required: ['q'], properties: { q: { type: 'string', description: 'Words to look for' }, limit: { maximum: 10 } } });
    // The $ref to the shared Product schema is resolved into the published schema.
    expect(byName.searchProducts!.outputSchema).toMatchObject({ properties: { items: { items: { required: ['id', 'name'], properties: { price: { type: 'number' } } } } } });
    expect(byName.searchProducts!.annotations).toEqual({ readOnlyHint: true });
    expect(byName.setStock!.annotations).toEqual({ idempotentHint: true });
    expect(byName.cancelOrder!.annotations).toEqual({ idempotentHint: true });
    expect(byName.createOrder!.annotations).toBeUndefined();
    expect(byName.createOrder!.inputSchema).toMatchObject({ required: ['body'], properties: { body: { required: ['productId', 'quantity'] } } });
    // A recursive schema is published finite: the inner occurrence accepts anything.
    const categories = byName.listCategories!.outputSchema as { properties: { children: { items: unknown } } };
    expect(categories.properties.children.items).toEqual({});
    expect(() => JSON.stringify(d.tools)).not.toThrow();
  });

  it('the allow-list keeps only the named operations', async () => {
    const d = await agent({ operations: ['getProduct', 'searchProducts', 'nope'] }).describe();
    expect(d.tools!.map((t) => t.name).sort()).toEqual(['getProduct', 'searchProducts']);
  });

  it('calls an operation: path parameter encoded, reply checked and returned as structured data', async () => {
    const r = await shop().callTool('getProduct', { id: 2 }, ctx());
    expect(r.isError).toBeUndefined();
    expect(r.structured).toMatchObject({ '@type': 'Product', id: 2, name: 'Red kettle' });
  });

  it('serializes query arrays, header parameters and encoded path segments; fills the API key from config', async () => {
    const before = api.seen.length;
    const r = await shop().callTool('echo', { segment: 'a/b c?', tags: ['x', 'y z'], n: 3, 'x-trace': 'trace-1' }, ctx());
    expect(r.structured).toMatchObject({ segment: 'a/b c?', query: { tags: ['x', 'y z'], n: 3, api_key: SHOP_KEY }, trace: 'trace-1', authorization: null });
    expect(api.seen.slice(before).map((s) => s.url)).toContain(`/echo/a%2Fb%20c%3F?tags=x&tags=y+z&n=3&api_key=${SHOP_KEY}`);
  });

  it('validates arguments with ajv before any call: wrong types, unknown names, missing required', async () => {
    const a = shop();
    await a.describe();
    const before = api.seen.length;
    expect(await failure(a.callTool('getProduct', { id: 'two' }, ctx()))).toMatchObject({ code: 'SCHEMA_ERROR', message: expect.stringContaining('arguments.id') });
    expect(await failure(a.callTool('searchProducts', { q: 'x', sort: 'price' }, ctx()))).toMatchObject({ code: 'SCHEMA_ERROR', message: expect.stringContaining('"sort"') });
    expect(await failure(a.callTool('createOrder', { body: { productId: 1 } }, ctx()))).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect(await failure(a.callTool('echo', { segment: '..' }, ctx()))).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect(await failure(a.callTool('echo', { segment: 'a', 'x-trace': 'a\r\nx-evil: 1' }, ctx()))).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect(await failure(a.callTool('nope', {}, ctx()))).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    expect(api.seen.length).toBe(before);
  });

  it('a JSON body with the bearer token from config; without the token the API refuses and the gateway says so', async () => {
    const r = await shop().callTool('createOrder', { body: { productId: 3, quantity: 2 } }, ctx());
    expect(r.structured).toMatchObject({ productId: 3, quantity: 2 });
    expect(api.orders.at(-1)).toMatchObject({ productId: 3, quantity: 2 });
    const err = await failure(agent().callTool('createOrder', { body: { productId: 3, quantity: 1 } }, ctx()));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('HTTP 401') });
  });

  it('configured headers always; the client Authorization only when the gateway hands it over (forwardCredentials)', async () => {
    const plain = await agent({ headers: { 'X-Trace': 'from-config' } }).callTool('echo', { segment: 's' }, ctx());
    expect(plain.structured).toMatchObject({ trace: 'from-config', authorization: null });
    const forwarded = await agent().callTool('echo', { segment: 's' }, ctx({ credentials: { authorization: 'Bearer client' } }));
    expect(forwarded.structured).toMatchObject({ authorization: 'Bearer client' });
  });

  it('a client error is a tool failure with the API message; 5xx, 429, lies and foreign redirects are gateway errors', async () => {
    const a = shop();
    const missing = await a.callTool('getProduct', { id: 42 }, ctx());
    expect(missing).toMatchObject({ isError: true, text: 'HTTP 404: no product 42' });
    const boom = await failure(a.callTool('boom', {}, ctx()));
    expect(boom).toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect(boom.message).not.toContain('/srv/app.js');
    expect(await failure(a.callTool('busy', {}, ctx()))).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 7 });
    expect(await failure(a.callTool('lie', {}, ctx()))).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('does not match') });
    expect(await failure(a.callTool('goAway', {}, ctx()))).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('another origin') });
    const gone = await a.callTool('cancelOrder', { orderId: 1 }, ctx());
    expect(gone).toEqual({ text: 'HTTP 204' });
  });

  it('the upstream policy bounds every call: timeoutMs, and the reply size cap', async () => {
    expect(await failure(agent({}, '.', { timeoutMs: 200 }).callTool('slow', {}, ctx()))).toMatchObject({ code: 'TIMEOUT' });
    // The spec itself is read through the same client: a cap above the spec but below a reply.
    const spec = Buffer.byteLength(await (await fetch(api.specUrl)).text());
    const capped = new UpstreamClient({ agent: 'shop', limits: { maxUpstreamBodyBytes: spec + 10, maxUpstreamEventBytes: 1024 } });
    const config = openapiAdapter.configSchema.parse({ spec: api.specUrl, baseUrl: `${api.origin}/` });
    const small = openapiAdapter.create({ ...config, name: 'shop', kind: 'openapi' }, { log: silentLogger, baseDir: '.', upstream: capped });
    const big = 'kettle '.repeat(Math.ceil(spec / 7) + 10).trim();
    const err = await failure(small.callTool!('echo', { segment: 'x', tags: [big] }, ctx()));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('larger than') });
    await capped.close();
  });

  it('ask: the query text goes to the configured parameter; results come from the JSONPath as schema.org items', async () => {
    const before = api.seen.length;
    const events = await collect(shop().ask({ query: { text: 'kettle', limit: 1, site: 'ignored' } }, ctx()));
    expect(events.map((e) => e.type)).toEqual(['start', 'result', 'complete']);
    expect(events[1]).toMatchObject({ item: { '@type': 'Product', name: 'Blue kettle', url: 'https://shop.example/p/1' } });
    expect(api.seen.slice(before).map((s) => s.url)).toContain('/products?q=kettle&limit=1');
  });

  it('ask over plain objects: name, url and description from the usual fields', async () => {
    const events = await collect(agent({ ask: { operation: 'listNotes', query: 'topic' } }).ask({ query: { text: 'care' } }, ctx()));
    const items = events.filter((e) => e.type === 'result').map((e) => (e as { item: unknown }).item);
    expect(items).toEqual([
      { '@type': 'Thing', name: 'Descaling', url: 'https://shop.example/n/1', description: 'Use citric acid', title: 'Descaling', href: 'https://shop.example/n/1', summary: 'Use citric acid' },
      { '@type': 'Thing', name: 'Returns', url: 'https://shop.example/n/2', description: '30 days', title: 'Returns', href: 'https://shop.example/n/2', summary: '30 days' },
    ]);
  });

  it('an ask.query the operation does not take is a configuration error, not a call', async () => {
    const err = await failure(collect(agent({ ask: { operation: 'getProduct', query: 'text' } }).ask({ query: { text: 'kettle' } }, ctx())));
    expect(err).toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringContaining('"text"') });
  });

  it('without ask, a question gets a clear error naming the operations to call as tools', async () => {
    const err = await failure(collect(agent({ operations: ['getProduct', 'searchProducts'] }).ask({ query: { text: 'kettle' } }, ctx())));
    expect(err.code).toBe('INVALID_QUERY');
    expect(err.message).toMatch(/searchProducts/);
    expect(err.message).toMatch(/getProduct/);
  });

  it('a spec file with relative $refs in its folder; baseUrl from config', async () => {
    await writeFile(join(dir, 'pieces.yaml'), 'Product:\n  type: object\n  properties:\n    name: { type: string }\n    price: { type: number, nullable: true, minimum: 0, exclusiveMinimum: true }\n');
    await writeFile(
      join(dir, 'shop.yaml'),
      `openapi: 3.0.3\ninfo: { title: Shop from a file, version: '1' }\npaths:\n  /products/{id}:\n    get:\n      operationId: getProduct\n      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]\n      responses:\n        '200':\n          description: ok\n          content: { application/json: { schema: { $ref: 'pieces.yaml#/Product' } } }\n`,
    );
    const a = agent({ spec: 'shop.yaml', baseUrl: api.origin }, dir);
    const d = await a.describe();
    expect(d.tools![0]!.outputSchema).toEqual({ type: 'object', properties: { name: { type: 'string' }, price: { type: ['number', 'null'], exclusiveMinimum: 0 } } });
    expect((await a.callTool('getProduct', { id: 1 }, ctx())).structured).toMatchObject({ name: 'Blue kettle' });
  });

  it('refuses $refs outside the spec folder, to another origin, and specs that are not OpenAPI 3', async () => {
    const outside = `openapi: 3.0.3\ninfo: { title: t, version: '1' }\npaths:\n  /x:\n    get:\n      operationId: x\n      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '../secret.yaml#/S' } } } } }\n`;
    await writeFile(join(dir, 'outside.yaml'), outside);
    expect(await failure(agent({ spec: 'outside.yaml', baseUrl: api.origin }, dir).describe())).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('outside') });
    await writeFile(join(dir, 'remote.yaml'), outside.replace('../secret.yaml#/S', 'http://127.0.0.1:9/s.yaml#/S'));
    expect(await failure(agent({ spec: 'remote.yaml', baseUrl: api.origin }, dir).describe())).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('URL from a file') });
    await writeFile(join(dir, 'swagger.yaml'), 'swagger: "2.0"\npaths: {}\n');
    expect(await failure(agent({ spec: 'swagger.yaml', baseUrl: api.origin }, dir).describe())).toMatchObject({ message: expect.stringContaining('OpenAPI 3.0 and 3.1') });
    // "Billion laughs": nested YAML aliases are refused, not expanded.
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((c, i) => `${c}: &${c} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)];
    await writeFile(join(dir, 'laughs.yaml'), `openapi: 3.0.3\ninfo: { title: t, version: '1' }\nx-bomb:\n${laughs.map((l) => `  ${l}`).join('\n')}\npaths: {}\n`);
    expect(await failure(agent({ spec: 'laughs.yaml', baseUrl: api.origin }, dir).describe())).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('not JSON or YAML') });
    await writeFile(join(dir, 'broken.yaml'), 'openapi: [unclosed');
    expect(await failure(agent({ spec: 'broken.yaml' }, dir).describe())).toMatchObject({ code: 'UPSTREAM_ERROR' });
  });

  it('a URL spec may reference documents of its own origin only, each under the size cap', async () => {
    const docs: Record<string, string> = {
      '/spec.json': JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: { '/a': { get: { operationId: 'a', responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: 'parts.json#/A' } } } } } } } },
      }),
      '/parts.json': JSON.stringify({ A: { type: 'object', properties: { ok: { type: 'boolean' } } } }),
      '/foreign.json': JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/a': { get: { operationId: 'a', responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: `${api.origin}/openapi.json#/x` } } } } } } } } }),
    };
    const server: Server = createServer((req, res) => {
      const body = docs[req.url ?? ''];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(body ?? '{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const ok = await agent({ spec: `${origin}/spec.json` }).describe();
      expect(ok.tools![0]!.outputSchema).toEqual({ type: 'object', properties: { ok: { type: 'boolean' } } });
      expect(await failure(agent({ spec: `${origin}/foreign.json` }).describe())).toMatchObject({ message: expect.stringContaining('another origin') });
      expect(await failure(agent({ spec: `${origin}/spec.json`, maxSpecBytes: 100 }).describe())).toMatchObject({ message: expect.stringContaining('larger than 100 bytes') });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

/**
 * A small shop API on Fastify whose OpenAPI 3.1 description @fastify/swagger generates from the
 * routes' schemas (shared schemas become `components.schemas` and `$ref`s, one of them recursive).
 * It records what reached it, so tests can check what the gateway sent.
 */
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';

export interface ShopApi {
  /** Origin, e.g. http://127.0.0.1:40123 */
  origin: string;
  specUrl: string;
  /** Every request the API received (method, path with query, headers). */
  seen: Array<{ method: string; url: string; headers: Record<string, unknown>; body?: unknown }>;
  orders: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export const SHOP_TOKEN = 'shop-secret-token';
export const SHOP_KEY = 'shop-api-key';

const PRODUCTS = [
  { '@type': 'Product', id: 1, name: 'Blue kettle', url: 'https://shop.example/p/1', description: 'A 1.7 l kettle in blue', price: 30 },
  { '@type': 'Product', id: 2, name: 'Red kettle', url: 'https://shop.example/p/2', description: 'A 1.7 l kettle in red', price: 32 },
  { '@type': 'Product', id: 3, name: 'Teapot', url: 'https://shop.example/p/3', description: 'Stoneware, 1 l', price: 25 },
];

/** Starts the API on a free loopback port. */
export async function startShopApi(): Promise<ShopApi> {
  const app: FastifyInstance = Fastify({ logger: false });
  const seen: ShopApi['seen'] = [];
  const orders: ShopApi['orders'] = [];
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Shop', description: 'Kitchenware shop', version: '1.0.0' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          key: { type: 'apiKey', in: 'query', name: 'api_key' },
        },
      },
    },
  });
  app.addSchema({
    $id: 'Product',
    type: 'object',
    required: ['id', 'name'],
    properties: { '@type': { type: 'string' }, id: { type: 'integer' }, name: { type: 'string' }, url: { type: 'string' }, description: { type: 'string' }, price: { type: 'number' } },
  });
  app.addSchema({
    $id: 'Category',
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: 'Category#' } } },
  });
  app.addHook('onRequest', async (req) => {
    seen.push({ method: req.method, url: req.url, headers: { ...req.headers } });
  });

  app.get('/products', {
    schema: {
      operationId: 'searchProducts',
      summary: 'Search products',
      querystring: { type: 'object', properties: { q: { type: 'string', description: 'Words to look for' }, limit: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['q'] },
      response: { 200: { type: 'object', properties: { total: { type: 'integer' }, items: { type: 'array', items: { $ref: 'Product#' } } } } },
    },
    handler: async (req) => {
      const { q, limit } = req.query as { q: string; limit?: number };
      const words = q.toLowerCase().split(/\s+/);
      const items = PRODUCTS.filter((p) => words.some((w) => p.name.toLowerCase().includes(w)));
      return { total: items.length, items: items.slice(0, limit ?? 10) };
    },
  });
  app.get('/notes', {
    schema: { operationId: 'listNotes', summary: 'Shop notes (plain objects, no @type)', querystring: { type: 'object', properties: { topic: { type: 'string' } } } },
    handler: async () => [
      { title: 'Descaling', href: 'https://shop.example/n/1', summary: 'Use citric acid' },
      { title: 'Returns', href: 'https://shop.example/n/2', summary: '30 days' },
    ],
  });
  app.get('/products/:id', {
    schema: {
      operationId: 'getProduct',
      params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      response: { 200: { $ref: 'Product#' } },
    },
    handler: async (req, reply) => {
      const found = PRODUCTS.find((p) => p.id === (req.params as { id: number }).id);
      if (!found) return (reply as FastifyReply).code(404).send({ message: `no product ${(req.params as { id: number }).id}` });
      return found;
    },
  });
  app.put('/products/:id/stock', {
    schema: { operationId: 'setStock', params: { type: 'object', properties: { id: { type: 'integer' } } }, body: { type: 'object', properties: { count: { type: 'integer', minimum: 0 } }, required: ['count'] } },
    handler: async (req) => ({ id: (req.params as { id: number }).id, stock: (req.body as { count: number }).count }),
  });
  app.post('/orders', {
    schema: {
      operationId: 'createOrder',
      summary: 'Place an order',
      security: [{ bearer: [] }],
      body: { type: 'object', properties: { productId: { type: 'integer' }, quantity: { type: 'integer', minimum: 1 } }, required: ['productId', 'quantity'] },
      response: { 201: { type: 'object', properties: { orderId: { type: 'integer' }, productId: { type: 'integer' }, quantity: { type: 'integer' } } } },
    },
    handler: async (req, reply) => {
      if (req.headers.authorization !== `Bearer ${SHOP_TOKEN}`) return (reply as FastifyReply).code(401).send({ message: 'who are you?' });
      const order = { orderId: orders.length + 1, ...(req.body as Record<string, number>) };
      orders.push(order);
      return reply.code(201).send(order);
    },
  });
  app.delete('/orders/:orderId', {
    schema: { operationId: 'cancelOrder', params: { type: 'object', properties: { orderId: { type: 'integer' } } } },
    handler: async (_req, reply) => reply.code(204).send(),
  });
  app.get('/categories', {
    schema: { operationId: 'listCategories', response: { 200: { $ref: 'Category#' } } },
    handler: async () => ({ name: 'all', children: [{ name: 'kettles', children: [] }] }),
  });
  app.get('/echo/:segment', {
    schema: {
      operationId: 'echo',
      security: [{ key: [] }],
      params: { type: 'object', properties: { segment: { type: 'string' } } },
      querystring: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } }, n: { type: 'number' } } },
      headers: { type: 'object', properties: { 'x-trace': { type: 'string' } } },
    },
    handler: async (req) => ({ url: req.url, segment: (req.params as { segment: string }).segment, query: req.query, trace: req.headers['x-trace'] ?? null, authorization: req.headers.authorization ?? null }),
  });
  app.get('/away', { schema: { operationId: 'goAway' }, handler: async (_req, reply) => reply.redirect('http://127.0.0.2:9/stolen', 302) });
  app.get('/boom', { schema: { operationId: 'boom' }, handler: async (_req, reply) => reply.code(500).send({ message: 'stack trace at /srv/app.js:12' }) });
  app.get('/busy', { schema: { operationId: 'busy' }, handler: async (_req, reply) => reply.code(429).header('retry-after', '7').send({ message: 'slow down' }) });
  app.get('/lie', {
    schema: { operationId: 'lie', response: { 200: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } },
    // Fastify would serialize by the schema; a raw string bypasses it, like a buggy server.
    handler: async (_req, reply) => reply.type('application/json').serializer((x: unknown) => String(x)).send('{"n":"not a number"}'),
  });
  app.get('/slow', { schema: { operationId: 'slow' }, handler: async () => new Promise((r) => setTimeout(() => r({ late: true }), 2_000)) });
  app.get('/openapi.json', { schema: { hide: true }, handler: async () => app.swagger() });

  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return { origin, specUrl: `${origin}/openapi.json`, seen, orders, close: () => app.close() };
}

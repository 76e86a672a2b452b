import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../base/errors.ts';
import { a2aEdgeHooks } from './edge.ts';

/** Refusals the edge makes before the binding runs, rendered by the binding's hooks. */
const app = new Hono();
app.all('*', (c) => a2aEdgeHooks.renderError(c, new GatewayError((c.req.header('x-code') ?? 'UNAUTHORIZED') as 'UNAUTHORIZED', 'No valid credential')));

describe('the A2A edge hooks', () => {
  it('claim the A2A routes (cards, JSON-RPC, HTTP+JSON) and no others', () => {
    expect(a2aEdgeHooks.claims('GET', '/.well-known/agent-card.json')).toBe(true);
    expect(a2aEdgeHooks.claims('POST', '/a2a/recipes')).toBe(true);
    expect(a2aEdgeHooks.claims('POST', '/a2a/recipes/rest/message:send')).toBe(true);
    expect(a2aEdgeHooks.claims('POST', '/ask')).toBe(false);
    expect(a2aEdgeHooks.jsonBody('POST', '/a2a/recipes')).toBe(true);
    expect(a2aEdgeHooks.jsonBody('GET', '/a2a/recipes/.well-known/agent-card.json')).toBe(false);
  });

  it('render a refusal on the JSON-RPC end-point as a JSON-RPC error with the HTTP status of its code', async () => {
    const res = await app.request('/a2a/recipes', { method: 'POST' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'No valid credential' } });
  });

  it('render a refusal elsewhere as the HTTP+JSON error body (§11.6)', async () => {
    const res = await app.request('/a2a/recipes/rest/message:send', { method: 'POST', headers: { 'x-code': 'RATE_LIMITED' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toBe('application/a2a+json');
    expect(await res.json()).toMatchObject({ error: { code: 429, message: 'No valid credential' } });
  });
});

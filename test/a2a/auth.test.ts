import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { a2aClient, asTask, send, userMessage, TaskState } from './support.ts';

/**
 * Issue 15 with issue 11: with API keys configured, each agent's card declares HTTP Bearer, an A2A
 * call without a valid key is refused at the edge in A2A's own shape (401 + WWW-Authenticate), and
 * two principals ("alice", "bob") cannot see each other's tasks.
 */
describe('A2A with identities', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({
      auth: { apiKeys: [{ principal: 'alice', key: 'alice-a2a-test-key-0000000001' }, { principal: 'bob', key: 'bob-a2a-test-key-00000000002' }] },
      agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl', requireAuth: true }],
    });
  });
  afterAll(() => gw?.close());

  it('the card declares HTTP Bearer', async () => {
    const card = await (await fetch(`${gw.url}/a2a/recipes/.well-known/agent-card.json`)).json();
    expect(card.securitySchemes?.bearer?.httpAuthSecurityScheme?.scheme).toBe('Bearer');
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
  });

  it('no key on an agent that requires one: 401 with WWW-Authenticate and a JSON-RPC error body', async () => {
    const params = { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'soup' }] } };
    const res = await fetch(`${gw.url}/a2a/recipes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
  });

  it('a wrong key is refused at the edge in A2A\'s shape (HTTP+JSON error body)', async () => {
    const res = await fetch(`${gw.url}/a2a/recipes/rest/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-key' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 401 } });
  });

  it('alice asks with her key; bob, with his, gets "task not found" for her task', async () => {
    const alice = await a2aClient(`${gw.url}/a2a/recipes/`, 'JSONRPC', { authorization: 'Bearer alice-a2a-test-key-0000000001' });
    const bob = await a2aClient(`${gw.url}/a2a/recipes/`, 'HTTP+JSON', { authorization: 'Bearer bob-a2a-test-key-00000000002' });
    const task = asTask(await alice.sendMessage(send(userMessage('lentil soup'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await alice.getTask({ id: task.id, tenant: '' })).id).toBe(task.id);
    await expect(bob.getTask({ id: task.id, tenant: '' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});

/**
 * Issue 11 "Logs an operator can use": one access-log line per request with principal, agent,
 * protocol, method, route, status, duration and request id — never a token or credential, query
 * text only when `server.logQueries` is on — and every internal error logged with its request id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { ALICE_KEY, AUTH, capturingLogger, postJson } from './support.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const agents = [{ name: 'open', kind: 'scripted' }];

describe('access log', () => {
  it('one line per request with who, what, outcome and request id; no token and no query text by default', async () => {
    const cap = capturingLogger();
    gw = await startGateway({ auth: AUTH, agents }, { log: cap.log });
    const res = await postJson(`${gw.url}/agents/open/ask?secret=in-url`, { query: { text: 'count:1 my private question' } }, { authorization: `Bearer ${ALICE_KEY}` });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    await fetch(`${gw.url}/agents`);
    const lines = cap.lines().filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      requestId,
      principal: 'alice',
      principalId: 'key:alice',
      protocol: 'nlweb-http',
      agent: 'open',
      method: 'POST',
      route: '/agents/open/ask',
      status: 200,
    });
    expect(typeof lines[0]!.durationMs).toBe('number');
    expect(lines[1]).toMatchObject({ principal: 'anonymous', principalId: 'anon:127.0.0.1', protocol: 'gateway', route: '/agents', status: 200 });
    const text = cap.text();
    expect(text).not.toContain(ALICE_KEY);
    expect(text).not.toContain('private question');
    expect(text).not.toContain('in-url');
  });

  it('refused requests are logged too (401 carries no token in the log)', async () => {
    const cap = capturingLogger();
    gw = await startGateway({ auth: AUTH, agents }, { log: cap.log });
    const res = await postJson(`${gw.url}/ask`, { query: { text: 'x' } }, { authorization: 'Bearer forged-credential-123456' });
    expect(res.status).toBe(401);
    expect(cap.lines().find((l) => l.msg === 'request')).toMatchObject({ status: 401, principal: 'anonymous', route: '/ask', requestId: res.headers.get('x-request-id') });
    expect(cap.text()).not.toContain('forged-credential');
  });

  it('logs the query text only when server.logQueries is on', async () => {
    const cap = capturingLogger();
    gw = await startGateway({ server: { logQueries: true }, agents }, { log: cap.log });
    await postJson(`${gw.url}/ask`, { query: { text: 'count:1 soup please' } });
    await fetch(`${gw.url}/ask?query=legacy%20soup`);
    const queries = cap.lines().filter((l) => l.msg === 'request').map((l) => l.query);
    expect(queries).toEqual(['count:1 soup please', 'legacy soup']);
  });
});

describe('internal errors', () => {
  it('regression "internal errors are never logged": a webtool 500 is logged with its request id and stack', async () => {
    const cap = capturingLogger();
    gw = await startGateway({ agents }, { log: cap.log });
    const res = await postJson(`${gw.url}/webtools/open`, { action: 'ask', request: { query: { text: 'throw' } } });
    expect(res.status).toBe(500);
    expect(JSON.stringify(await res.json())).not.toContain('secret-internal-detail');
    const requestId = res.headers.get('x-request-id');
    const logged = cap.lines().find((l) => l.level === 50 && l.requestId === requestId);
    expect(logged).toBeDefined();
    expect(logged!.err).toContain('secret-internal-detail');
    expect(logged!.stack).toContain('scripted-agent');
  });
});

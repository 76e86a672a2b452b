/**
 * Issue 11 "Inbound identity", against a real gateway on loopback: API keys, JWTs verified against
 * a JWKS server on loopback, NLIP token submessages, MCP bearer tokens, 401/403 in each protocol's
 * own shape with `WWW-Authenticate` (RFC 6750).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';
import { ALICE_KEY, AUTH, BOB_KEY, MCP_HEADERS, MCP_INIT, postJson } from './support.ts';

const ISSUER = 'https://idp.test';
const AUDIENCE = 'nlgate';
let gw: TestGateway;
let jwks: Server;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  gw = await startGateway({
    auth: { ...AUTH, jwt: [{ issuer: ISSUER, audience: AUDIENCE, jwksUrl, clockSkewSec: 5 }] },
    agents: [
      { name: 'open', kind: 'scripted' },
      { name: 'locked', kind: 'scripted', requireAuth: true },
    ],
  });
});
afterAll(async () => {
  await gw?.close();
  await new Promise((r) => jwks?.close(r));
});

const ask = (agent: string, headers: Record<string, string> = {}) => postJson(`${gw.url}/agents/${agent}/ask`, { query: { text: 'count:1 soup' } }, headers);

async function token(claims: { iss?: string; aud?: string; sub?: string; exp?: number | string }, key = signingKey): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuedAt().setIssuer(claims.iss ?? ISSUER).setAudience(claims.aud ?? AUDIENCE);
  if (claims.sub !== null) jwt.setSubject(claims.sub ?? 'carol');
  jwt.setExpirationTime(claims.exp ?? '5m');
  return jwt.sign(key);
}

describe('API keys', () => {
  it('regression "requireAuth checks only that a header is present": Authorization: x is 401 with an RFC 6750 challenge', async () => {
    const before = scriptedCalls.length;
    const res = await ask('locked', { authorization: 'x' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="nlgate", error="invalid_token"/);
    expect((await res.json()).error.code).toBe('UNAUTHORIZED');
    expect(scriptedCalls.length).toBe(before);
  });

  it('a random bearer value is 401 on every agent, not only requireAuth ones (a presented credential is checked)', async () => {
    expect((await ask('open', { authorization: 'Bearer not-a-key-12345678' })).status).toBe(401);
  });

  it('no credential on a requireAuth agent is 401 with a challenge without an error code', async () => {
    const res = await ask('locked');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="nlgate"');
  });

  it('a configured key is a verified principal; a key limited to other agents is 403 FORBIDDEN', async () => {
    expect((await ask('locked', { authorization: `Bearer ${ALICE_KEY}` })).status).toBe(200);
    expect((await ask('open', { authorization: `Bearer ${BOB_KEY}` })).status).toBe(200);
    const denied = await ask('locked', { authorization: `Bearer ${BOB_KEY}` });
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.code).toBe('FORBIDDEN');
  });

  it('401 and 403 come in each protocol\'s own shape', async () => {
    const bad = { authorization: 'Bearer wrong-key-0000000000' };
    const webtool = await postJson(`${gw.url}/webtools/locked`, { action: 'ask', request: { query: { text: 'x' } } }, bad);
    expect(webtool.status).toBe(401);
    expect(await webtool.json()).toMatchObject({ status: 'error', error: { code: 'CONFIG_ERROR' } });
    const legacy = await fetch(`${gw.url}/agents/locked/ask?query=x`, { headers: bad });
    expect(legacy.status).toBe(401);
    expect(await legacy.json()).toMatchObject({ message_type: 'error' });
    const mcp = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...bad }, body: MCP_INIT });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(await mcp.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    const forbidden = await postJson(`${gw.url}/webtools/locked`, { action: 'ask', request: { query: { text: 'x' } } }, { authorization: `Bearer ${BOB_KEY}` });
    expect(forbidden.status).toBe(403);
  });
});

describe('JWT bearer tokens (jose, JWKS on loopback)', () => {
  it('a good token is accepted as jwt:<iss>#<sub>', async () => {
    const res = await ask('locked', { authorization: `Bearer ${await token({})}` });
    expect(res.status).toBe(200);
  });

  it.each([
    ['a wrong issuer', { iss: 'https://other.test' }],
    ['a wrong audience', { aud: 'someone-else' }],
    ['an expired token', { exp: Math.floor(Date.now() / 1000) - 3600 }],
  ])('refuses %s with 401', async (_name, claims) => {
    const res = await ask('locked', { authorization: `Bearer ${await token(claims)}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('refuses a token signed by a key the issuer does not publish', async () => {
    expect((await ask('locked', { authorization: `Bearer ${await token({}, strangerKey)}` })).status).toBe(401);
  });
});

describe('NLIP token submessages and MCP bearer tokens go through the same verifier', () => {
  const nlip = (content: string) => ({
    format: 'text',
    subformat: 'english',
    content: 'count:1 private question',
    submessages: [{ format: 'token', subformat: 'authentication', content }],
  });

  it('a valid NLIP authentication token reaches a requireAuth agent; an invalid one is 401 in NLIP shape', async () => {
    const ok = await postJson(`${gw.url}/agents/locked/nlip/`, nlip(ALICE_KEY));
    expect(ok.status).toBe(200);
    expect(String((await ok.json()).content)).toMatch(/^Found 1 result/);
    const bad = await postJson(`${gw.url}/agents/locked/nlip/`, nlip('forged-token-0123456789'));
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const body = await bad.json();
    expect(body.format).toBe('text');
    expect(JSON.stringify(body)).toContain('UNAUTHORIZED');
    expect(JSON.stringify(body)).not.toContain('forged-token');
  });

  it('an MCP client with a valid bearer token initializes', async () => {
    const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${ALICE_KEY}` }, body: MCP_INIT });
    expect(res.status).toBe(200);
  });
});

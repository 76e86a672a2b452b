import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Hono } from 'hono';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { createExampleApp } from '../../examples/webtools/server.ts';
import { parseConfig } from '../../src/config/load.ts';
import { configBlock, probe } from '../../src/probe/index.ts';
import { startLegacyServer } from '../legacy/legacy-server.ts';
import { startHttpFixture } from '../mcp/fixtures/http-server.ts';
import { startSseFixture } from '../mcp/fixtures/sse-server.ts';
import { createNlipTestAgent } from '../nlip/nlip-test-agent.ts';
import { createV054Agent } from '../nlweb/agents/v054-agent.ts';
import { createV055Agent } from '../nlweb/agents/v055-agent.ts';
import { REPO_ROOT } from '../support/gateway.ts';
import { listenApp, listenRaw, type TestServer } from '../support/http.ts';

const run = promisify(execFile);

/** Every test agent in the repository, with the URL a user would give and what probe must find. */
const servers: TestServer[] = [];
const cases: Array<{ agent: string; url: string; protocol: RegExp; fields: Record<string, unknown> }> = [];

beforeAll(async () => {
  const keep = <T extends TestServer>(s: T) => (servers.push(s), s);
  const v055 = keep(await listenApp(createV055Agent().app as unknown as Hono));
  const v054 = keep(await listenApp(createV054Agent().app as unknown as Hono));
  const nlip = keep(await listenRaw(createNlipTestAgent().handler));
  const webtool = keep(await listenApp(createExampleApp()));
  const mcpHttp = keep(await startHttpFixture());
  const mcpSse = keep(await startSseFixture());
  cases.push(
    { agent: 'NLWeb v0.55 test agent', url: v055.url, protocol: /^NLWeb v0\.55$/, fields: { kind: 'nlweb', url: v055.url } },
    { agent: 'NLWeb v0.55 test agent, given its /ask URL', url: `${v055.url}/ask`, protocol: /^NLWeb v0\.55$/, fields: { kind: 'nlweb', url: v055.url } },
    { agent: 'NLWeb v0.54 test agent', url: v054.url, protocol: /^NLWeb v0\.54$/, fields: { kind: 'nlweb', url: v054.url, version: '0.54' } },
    { agent: 'NLIP test agent', url: nlip.url, protocol: /^NLIP/, fields: { kind: 'nlip', url: nlip.url } },
    { agent: 'NLIP test agent, given its /nlip/ URL', url: `${nlip.url}/nlip/`, protocol: /^NLIP/, fields: { kind: 'nlip', url: nlip.url } },
    { agent: 'example webtool', url: `${webtool.url}/kitchen`, protocol: /^webtool$/, fields: { kind: 'webtool', url: `${webtool.url}/kitchen` } },
    { agent: 'MCP Streamable HTTP fixture', url: mcpHttp.mcpUrl, protocol: /Streamable HTTP/, fields: { kind: 'mcp', transport: 'streamable-http', url: mcpHttp.mcpUrl } },
    { agent: 'MCP HTTP+SSE fixture', url: mcpSse.url, protocol: /HTTP\+SSE/, fields: { kind: 'mcp', transport: 'sse', url: mcpSse.sseUrl } },
  );
  for (const generation of ['A', 'B', 'C'] as const) {
    const legacy = keep(await startLegacyServer(generation));
    cases.push({ agent: `legacy NLWeb generation ${generation}`, url: legacy.url, protocol: new RegExp(`generation ${generation}$`), fields: { kind: 'nlweb-legacy', url: legacy.url, generation } });
  }
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('nlgate probe recognises every test agent in the repository', () => {
  it('names the protocol and writes a config block that validates', async () => {
    expect(cases.length).toBe(11);
    for (const c of cases) {
      const found = await probe(c.url, { timeoutMs: 5000 });
      expect(found?.protocol, c.agent).toMatch(c.protocol);
      expect(found!.agent, c.agent).toEqual(c.fields);
      // The printed block is a valid agents list for the gateway's own loader.
      const doc = parse(configBlock(found!, 'probed')) as { agents: unknown[] };
      const loaded = parseConfig(doc, { adapters: builtinAdapters });
      expect(loaded.config.agents[0], c.agent).toMatchObject({ name: 'probed', kind: c.fields.kind });
    }
  });

  it('says so, listing what it tried, when nothing answers like an agent (exit 1)', async () => {
    const nothing = await listenRaw((_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    servers.push(nothing);
    expect(await probe(nothing.url, { timeoutMs: 2000 })).toBeUndefined();
    const err = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'probe', nothing.url], { cwd: REPO_ROOT }).catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 1 });
    expect((err as { stderr: string }).stderr).toMatch(/does not answer like any protocol[\s\S]*NLIP[\s\S]*Streamable HTTP/);
  });

  it('prints the protocol and the block from the command line (the docs\' example)', async () => {
    const nlweb = cases.find((c) => c.fields.kind === 'nlweb')!;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'probe', nlweb.url, '--name', 'upstream'], { cwd: REPO_ROOT });
    expect(stdout).toContain('speaks NLWeb v0.55');
    const doc = parse(stdout) as { agents: Array<Record<string, unknown>> };
    expect(doc.agents).toEqual([{ name: 'upstream', kind: 'nlweb', url: nlweb.url }]);
  });

  it('refuses a URL that is not http(s) with its usage (exit 2)', async () => {
    const err = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'probe', 'ftp://example.com'], { cwd: REPO_ROOT }).catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toContain('usage: nlgate probe <url>');
  });
});

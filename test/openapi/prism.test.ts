/**
 * The openapi adapter against a third-party OpenAPI server: Stoplight Prism mocking a Petstore 3.0
 * description (examples/openapi-petstore.yaml). Prism checks every request against the spec
 * (parameters, body, security), so what passes here is what a real server of this spec accepts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiAdapter, type OpenapiAgent } from '../../adapters/openapi/index.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { callContext, collect, failure } from '../support/agent-calls.ts';
import { REPO_ROOT } from '../support/gateway.ts';
import { freePort } from '../support/redis.ts';

const PRISM = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');

let prism: ChildProcess;
let origin: string;

/** Starts `prism mock` on a free loopback port and waits for its "listening" line. */
async function startPrism(): Promise<{ child: ChildProcess; origin: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [PRISM, 'mock', '-h', '127.0.0.1', '-p', String(port), join(REPO_ROOT, 'examples/openapi-petstore.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start: ${out}`)), 45_000);
    const read = (d: Buffer) => {
      out += d.toString();
      if (out.includes('Prism is listening')) (clearTimeout(timer), resolve());
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`prism exited ${code}: ${out}`))));
  });
  return { child, origin: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  ({ child: prism, origin } = await startPrism());
}, 60_000);
afterAll(async () => {
  if (prism.exitCode === null) {
    const gone = new Promise((r) => prism.once('exit', r));
    prism.kill('SIGTERM');
    await gone;
  }
});

function petstore(extra: Record<string, unknown> = {}): OpenapiAgent {
  const config = openapiAdapter.configSchema.parse({
    spec: 'examples/openapi-petstore.yaml',
    baseUrl: origin,
    auth: { petstore_auth: 'oauth-token', api_key: 'special-key' },
    operations: ['findPetsByStatus', 'getPetById', 'addPet'],
    ask: { operation: 'findPetsByStatus', query: 'status' },
    ...extra,
  });
  return openapiAdapter.create({ ...config, name: 'petstore', kind: 'openapi' }, { log: silentLogger, baseDir: REPO_ROOT }) as OpenapiAgent;
}

const ctx = () => callContext({}, 10_000);

describe('openapi adapter against Stoplight Prism serving a Petstore 3.0 description', () => {
  it('the allow-listed operations are the tools, with schemas from the resolved $refs', async () => {
    const d = await petstore().describe();
    expect(d.description).toBe('Petstore: A sample pet store');
    expect(d.tools!.map((t) => t.name)).toEqual(['addPet', 'findPetsByStatus', 'getPetById']);
    const addPet = d.tools!.find((t) => t.name === 'addPet')!;
    expect(addPet.inputSchema).toMatchObject({ required: ['body'], properties: { body: { required: ['name', 'photoUrls'], properties: { category: { properties: { name: { type: 'string' } } } } } } });
    expect(d.tools!.find((t) => t.name === 'findPetsByStatus')!.resultSchema).toMatchObject({ type: 'array', items: { required: ['name', 'photoUrls'] } });
  });

  it('calls with the credentials the spec asks for (API key header, OAuth2 bearer); Prism accepts them', async () => {
    const a = petstore();
    const pet = await a.callTool('getPetById', { petId: 10 }, ctx());
    expect(pet.isError).toBeUndefined();
    expect(pet.structured).toMatchObject({ name: 'doggie', photoUrls: expect.any(Array) });
    const added = await a.callTool('addPet', { body: { name: 'Rex', photoUrls: ['https://pets.example/rex.jpg'], status: 'available' } }, ctx());
    expect(added.structured).toMatchObject({ name: expect.any(String) });
  });

  it('without configured credentials Prism refuses, and the gateway says the API refused its credentials', async () => {
    const err = await failure(petstore({ auth: {} }).callTool('findPetsByStatus', { status: 'sold' }, ctx()));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('HTTP 401') });
  });

  it('arguments outside the schema never reach Prism', async () => {
    const a = petstore();
    expect(await failure(a.callTool('addPet', { body: { name: 'Rex' } }, ctx()))).toMatchObject({ code: 'SCHEMA_ERROR', message: expect.stringContaining('photoUrls') });
    expect(await failure(a.callTool('getPetById', { petId: 'ten' }, ctx()))).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect(await failure(a.callTool('deletePet', { petId: 1 }, ctx()))).toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });

  it('a question goes to findPetsByStatus: each pet becomes a result item named after it', async () => {
    const events = await collect(petstore().ask({ query: { text: 'sold' } }, ctx()));
    expect(events[0]).toEqual({ type: 'start' });
    expect(events.at(-1)).toEqual({ type: 'complete' });
    const items = events.filter((e) => e.type === 'result').map((e) => (e as { item: Record<string, unknown> }).item);
    expect(items.length).toBeGreaterThan(0);
    expect(items[0]).toMatchObject({ '@type': 'Thing', name: 'doggie', photoUrls: expect.any(Array) });
    // A question the operation cannot take is a clear schema error, not an upstream failure.
    expect(await failure(collect(petstore().ask({ query: { text: 'cute dogs' } }, ctx())))).toMatchObject({ code: 'SCHEMA_ERROR', message: expect.stringContaining('status') });
  });
});

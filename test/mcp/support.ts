/** Helpers for the MCP tests: an `mcp` agent built like the gateway builds one, and a call context. */
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpAgent, McpAdapterConfigSchema } from '../../adapters/mcp/index.ts';
import type { CallContext, ClientChannel } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { MemoryBackend, MemoryStore } from '../../src/store/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The stdio fixture as a command: node with tsx, so the TypeScript fixture runs as is. */
export const STDIO_FIXTURE = { command: process.execPath, args: ['--import', 'tsx', 'test/mcp/fixtures/stdio-server.ts'] };

/** Builds an `mcp` agent from kind-specific config, validated by the adapter's schema. */
export function mcpAgent(raw: Record<string, unknown>, common: Record<string, unknown> = {}, onInvalidate?: () => void): McpAgent {
  const config = { name: 'up', kind: 'mcp', ...common, ...McpAdapterConfigSchema.parse(raw) };
  return new McpAgent(config, { log: silentLogger, baseDir: REPO_ROOT, ...(onInvalidate ? { invalidateDescription: onInvalidate } : {}) });
}

/** A call context with its own abort controller and an optional client channel. */
export function callContext(client?: ClientChannel, credentials?: { authorization: string }): CallContext & { abort: AbortController } {
  const abort = new AbortController();
  return { signal: abort.signal, requestId: 'test', log: silentLogger, abort, ...(client ? { client } : {}), ...(credentials ? { credentials } : {}) };
}

/** Drains an event stream. */
export async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Polls `check` until it returns true (bounded). */
/** The HTTP headers of a 2026-07-28 request (SEP-2243: `Mcp-Method`, and `Mcp-Name` where the body names one). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
  };
}

export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met in time');
}

// ---- gateway-side helpers: replicas and real SDK clients of both revisions ----

export type Era = '2026-07-28' | '2025-11-25';
export const ERAS: Era[] = ['2026-07-28', '2025-11-25'];

export interface ClientOptions {
  /** Declare the elicitation capability and answer with this. */
  onElicit?: (params: Record<string, unknown>) => Record<string, unknown>;
  /** A fetch for the transport (e.g. one that spreads requests over replicas). */
  fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
}

/** A real SDK client (`@modelcontextprotocol/client` 2.x) speaking `era`, connected to `url`. */
export async function connectClient(url: string, era: Era, opts: ClientOptions = {}): Promise<Client> {
  const client = new Client(
    { name: 'nlgate-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: era === '2026-07-28' ? { pin: '2026-07-28' } : 'legacy' },
      ...(opts.onElicit ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (opts.onElicit) {
    const answer = opts.onElicit;
    client.setRequestHandler('elicitation/create', async (req) => answer(req.params as Record<string, unknown>) as never);
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url), opts.fetch ? { fetch: opts.fetch } : {}));
  return client;
}

/** Two gateway replicas serving one config over one shared store (two apps, as behind a load balancer). */
export async function startReplicas(config: Record<string, unknown>): Promise<[TestGateway, TestGateway]> {
  const backend = new MemoryBackend({ sweepIntervalMs: 60_000 });
  const a = await startGateway(config, { store: new MemoryStore({ backend }), replicaId: 'replica-a' });
  const b = await startGateway(config, { store: new MemoryStore({ backend }), replicaId: 'replica-b' });
  return [a, b];
}

/** A fetch that sends each request to the next replica in turn (round-robin load balancing). */
export function roundRobin(bases: string[]): (url: string | URL, init?: RequestInit) => Promise<Response> {
  let i = 0;
  return (url, init) => {
    const target = new URL(String(url));
    const base = new URL(bases[i++ % bases.length]!);
    target.host = base.host;
    return fetch(target, init);
  };
}

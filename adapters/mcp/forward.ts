import type { Client } from '@modelcontextprotocol/client';
import { GatewayError } from '../../src/base/errors.ts';

type Params = Record<string, unknown>;
type ServerCaps = Record<string, unknown> & { resources?: object; prompts?: object; completions?: object; logging?: object };

/**
 * The MCP methods beyond tools that pass through, given the upstream's capabilities (MCP "Server
 * Features"); `resources/subscribe` and `unsubscribe` where the upstream declares `subscribe`
 * (its `notifications/resources/updated` reach the subscribed client sessions: upstream-sessions.ts).
 */
export function forwardableMethods(caps: ServerCaps, era: 'legacy' | 'modern' = 'legacy'): string[] {
  const methods: string[] = [];
  if (caps.resources) methods.push('resources/list', 'resources/templates/list', 'resources/read');
  // 2026-07-28 has no resources/subscribe (it moved to subscriptions/listen): only a 2025 upstream takes it.
  if (era === 'legacy' && (caps.resources as { subscribe?: boolean } | undefined)?.subscribe) methods.push('resources/subscribe', 'resources/unsubscribe');
  if (caps.prompts) methods.push('prompts/list', 'prompts/get');
  if (caps.completions) methods.push('completion/complete');
  if (caps.logging) methods.push('logging/setLevel');
  return methods;
}

const bypass = { cacheMode: 'bypass' as const };

/** Result fields only the 2026-07-28 wire has, or that name the upstream: the gateway's server stamps its own. */
const UPSTREAM_ONLY = ['ttlMs', 'cacheScope', 'resultType'];
const UPSTREAM_META = ['io.modelcontextprotocol/serverInfo'];

/** A passed-through result without the upstream's envelope fields, fit for a client of either revision. */
export function cleanResult(result: object): Record<string, unknown> {
  const out: Record<string, unknown> = { ...result };
  for (const k of UPSTREAM_ONLY) delete out[k];
  if (out._meta !== null && typeof out._meta === 'object') {
    const meta = { ...(out._meta as Record<string, unknown>) };
    for (const k of UPSTREAM_META) delete meta[k];
    if (Object.keys(meta).length > 0) out._meta = meta;
    else delete out._meta;
  }
  return out;
}

/**
 * Sends one passed-through request upstream with the SDK client's typed method (so the client
 * validates the result) and returns the result without upstream envelope fields. Paginated lists go
 * page by page: the client's cursor reaches the upstream.
 */
export async function forwardRequest(client: Client, method: string, params: Params, signal: AbortSignal): Promise<Record<string, unknown>> {
  return cleanResult(await send(client, method, params, signal));
}

function send(client: Client, method: string, params: Params, signal: AbortSignal): Promise<object> {
  const opts = { signal };
  const p = params as never;
  switch (method) {
    case 'resources/list':
      return client.listResources(p, { ...opts, ...bypass });
    case 'resources/templates/list':
      return client.listResourceTemplates(p, { ...opts, ...bypass });
    case 'resources/read':
      return client.readResource(p, { ...opts, ...bypass });
    case 'prompts/list':
      return client.listPrompts(p, { ...opts, ...bypass });
    case 'prompts/get':
      return client.getPrompt(p, opts);
    case 'completion/complete':
      return client.complete(p, opts);
    case 'resources/subscribe':
      return client.subscribeResource(p, opts);
    case 'resources/unsubscribe':
      return client.unsubscribeResource(p, opts);
    case 'logging/setLevel':
      return client.setLoggingLevel((params as { level: never }).level, opts);
    default:
      return Promise.reject(new GatewayError('TOOL_NOT_FOUND', `${method} is not passed through`));
  }
}

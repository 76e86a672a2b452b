import { resolve } from 'node:path';
import { Client, SSEClientTransport, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { GatewayError } from '../../src/base/errors.ts';
import type { Logger } from '../../src/base/logger.ts';
import { parseUpstreamUrl, redactUrlCredentials, UpstreamClient } from '../../src/core/upstream/index.ts';
import type { CallScopes } from './call-scope.ts';
import { transportOf, type McpAdapterConfig } from './config.ts';
import { isUnknownSession } from './session-errors.ts';

/** Identifies the gateway to upstream servers (MCP `clientInfo`). */
const CLIENT_INFO = { name: 'nlgate', version: '0.1.0' };

/** What one upstream session needs: the agent's config and where upstream messages go. */
export interface ConnectionOptions {
  agent: string;
  config: McpAdapterConfig;
  baseDir: string;
  log: Logger;
  scopes: CallScopes;
  /** The shared upstream HTTP client (redirect policy, size caps, diagnostics); one of its own otherwise. */
  http?: UpstreamClient;
  /** The upstream's tool list changed (MCP `notifications/tools/list_changed`). */
  onToolsChanged: () => void;
  /** A client's Authorization this session carries (agents with `forwardCredentials`: one session per credential). */
  authorization?: string;
  /** What the gateway declares upstream (MCP `ClientCapabilities`); default: everything it can relay. */
  capabilities?: Record<string, unknown>;
  /** A message the upstream sent outside any call (logs, `resources/updated`, list changes). */
  onOutOfCall?: (notification: { method: string; params?: Record<string, unknown> }) => void;
}

/** What the gateway can relay to its own clients: declared upstream when no client session narrows it. */
export const RELAYED_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {} };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/**
 * One live MCP client session with the upstream (MCP "Lifecycle"), opened on first use and reopened
 * after the upstream went away: a stdio server that died is spawned again (with backoff, at most
 * `restart.maxAttempts` times in a row), an HTTP session the server expired is re-initialized
 * (`use`: 404 → a new `initialize`, the request sent once more).
 */
export class UpstreamConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private failures = 0;
  private closed = false;

  constructor(private readonly opts: ConnectionOptions) {}

  /** The connected client, connecting (or reconnecting) first when needed. */
  async get(): Promise<Client> {
    if (this.closed) throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.opts.agent}" is shut down`);
    if (this.client) return this.client;
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /**
   * Runs `fn` with the connected client. When the upstream answers that it does not know the
   * session (404 as MCP "Session Management" says, or 400 with a session error as a restarted
   * server-everything does), the session is re-initialized and `fn` runs once more: the request
   * was never processed, so this is safe. Once per call: a second refusal is the call's failure.
   */
  async use<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.get();
    try {
      return await fn(client);
    } catch (err) {
      if (!isUnknownSession(err) || transportOf(this.opts.config) === 'stdio') throw err;
      this.opts.log.warn({ status: (err as { status?: number }).status }, 'the MCP server no longer knows the session: initializing a new one');
      if (this.client === client) this.client = undefined;
      await client.close().catch(() => undefined);
      return fn(await this.get());
    }
  }

  /**
   * Closes the session (and the stdio child process). A 2025 HTTP session is ended upstream too
   * (DELETE, MCP "Session Management"): the server need not wait for it to expire.
   */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    const transport = client?.transport;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) await transport.terminateSession().catch(() => undefined);
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const { config, log, agent } = this.opts;
    const client = this.newClient();
    try {
      await client.connect(this.newTransport(), { timeout: 30_000 });
    } catch (err) {
      this.failures++;
      await client.close().catch(() => undefined);
      log.warn({ err: redactUrlCredentials(String(err)) }, 'could not connect to the MCP server');
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" could not be reached`, { cause: err });
    }
    this.failures = 0;
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" is shut down`);
    }
    client.onclose = () => this.lost(client);
    this.client = client;
    log.debug({ era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion(), transport: transportOf(config) }, 'connected to the MCP server');
    return client;
  }

  /** The upstream went away: forget the client, and respawn a stdio server in the background. */
  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.closed) return;
    this.opts.log.warn({}, 'the MCP server connection closed');
    if (transportOf(this.opts.config) === 'stdio') void this.respawn();
  }

  private async respawn(): Promise<void> {
    const { maxAttempts, backoffMs } = this.opts.config.restart;
    while (!this.closed && !this.client && this.failures < maxAttempts) {
      await sleep(backoffMs * 2 ** this.failures);
      if (this.closed || this.client) return;
      await this.get().catch(() => undefined);
    }
  }

  private newClient(): Client {
    const { config, scopes, onToolsChanged, onOutOfCall } = this.opts;
    const negotiation = config.protocol === 'auto' ? 'auto' : config.protocol === 'legacy' ? 'legacy' : { pin: config.protocol };
    const client = new Client(CLIENT_INFO, {
      // The gateway relays these to its own client when that client can take them (ClientChannel).
      capabilities: (this.opts.capabilities ?? RELAYED_CAPABILITIES) as never,
      versionNegotiation: { mode: transportOf(config) === 'sse' ? 'legacy' : negotiation },
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 50, onChanged: () => (onToolsChanged(), onOutOfCall?.({ method: 'notifications/tools/list_changed' })) },
      },
    });
    // Handlers only for what is declared: a client session that cannot answer declares neither.
    const declared = (this.opts.capabilities ?? RELAYED_CAPABILITIES) as Record<string, unknown>;
    if (declared.elicitation) client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const scope = scopes.owner();
      if (!scope?.channel?.elicit) return { action: 'decline' };
      return (await scope.channel.elicit(request.params as Record<string, unknown>, AbortSignal.any([scope.signal, ctx.mcpReq.signal]))) as never;
    });
    if (declared.sampling) client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
      const scope = scopes.owner();
      if (!scope?.channel?.sample) throw new GatewayError('INVALID_REQUEST', 'Sampling is not available for this call');
      return (await scope.channel.sample(request.params as Record<string, unknown>, AbortSignal.any([scope.signal, ctx.mcpReq.signal]))) as never;
    });
    client.setNotificationHandler('notifications/progress', (n) => scopes.deliverProgress(n.params));
    client.setNotificationHandler('notifications/message', (n) => {
      const { level, data, logger } = n.params;
      const owner = scopes.owner();
      // A log no call owns (the upstream's own, between calls) goes to the session(s) that asked for logs.
      if (owner) owner.channel?.log?.({ level, data, ...(logger !== undefined ? { logger } : {}) });
      else onOutOfCall?.({ method: 'notifications/message', params: { level, data, ...(logger !== undefined ? { logger } : {}) } });
    });
    client.setNotificationHandler('notifications/resources/updated', (n) => onOutOfCall?.({ method: 'notifications/resources/updated', params: { uri: n.params.uri } }));
    client.setNotificationHandler('notifications/resources/list_changed', () => onOutOfCall?.({ method: 'notifications/resources/list_changed' }));
    client.setNotificationHandler('notifications/prompts/list_changed', () => onOutOfCall?.({ method: 'notifications/prompts/list_changed' }));
    client.onerror = (err) => this.opts.log.debug({ err: redactUrlCredentials(String(err)) }, 'MCP client error');
    return client;
  }

  private newTransport() {
    const { config, baseDir } = this.opts;
    const kind = transportOf(config);
    if (kind === 'stdio') {
      const transport = new StdioClientTransport({
        command: config.command!,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        cwd: resolve(baseDir, config.cwd ?? '.'),
        stderr: 'pipe',
      });
      // The server's own diagnostics, at debug level (its stdout is the protocol).
      transport.stderr?.on('data', (chunk: Buffer) => this.opts.log.debug({ stderr: String(chunk).slice(0, 500) }, 'MCP server stderr'));
      return transport;
    }
    // Headers from config on every request; a client's Authorization only on a session opened for
    // that credential (the core hands it over only to agents with forwardCredentials).
    // Through the shared upstream client: same-origin redirects only, size caps, no URL credentials shown.
    const { authorization, scopes } = this.opts;
    const http = (this.opts.http ??= new UpstreamClient({ agent: this.opts.agent, kind: 'mcp' }));
    // The SDK never sees the URL's user-info (its errors quote the URL): it becomes Basic credentials.
    const target = parseUpstreamUrl(config.url!);
    const basic = target.basicAuth && !Object.keys(config.headers ?? {}).some((k) => k.toLowerCase() === 'authorization') ? { authorization: target.basicAuth } : {};
    const fetchWithHeaders = http.fetchFunction({
      headers: { ...basic, ...config.headers, ...(authorization ? { authorization } : {}) },
      requestId: () => scopes.here()?.requestId,
    });
    const url = new URL(target.display);
    return kind === 'sse'
      ? new SSEClientTransport(url, { fetch: fetchWithHeaders })
      : new StreamableHTTPClientTransport(url, { fetch: fetchWithHeaders, reconnectionOptions: { maxRetries: 2, initialReconnectionDelay: 500, maxReconnectionDelay: 5000, reconnectionDelayGrowFactor: 1.5 } });
  }
}

/** Lists every tool of the upstream (all pages), bypassing the client's response cache. */
export async function listUpstreamTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const { tools } = await client.listTools(undefined, { cacheMode: 'bypass', ...(signal ? { signal } : {}) });
  return tools;
}

import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../../base/errors.ts';
import { upstreamChannels, type UpstreamExchange } from '../upstream-events.ts';
import { requestError } from './errors.ts';
import { DEFAULT_POOL_SETTINGS, UpstreamPools } from './pools.ts';
import { UpstreamHeaders, UpstreamResponse } from './response.ts';
import { parseUpstreamUrl, type ParsedUpstreamUrl } from './url.ts';

/** Caps on what an upstream can make the gateway read (config `limits`, docs/upstream-policy.md). */
export interface UpstreamLimits {
  /** Largest reply read whole (JSON), in bytes. */
  maxUpstreamBodyBytes: number;
  /** Largest single SSE event or stream frame, in bytes. */
  maxUpstreamEventBytes: number;
  /** Sockets per upstream origin (the pool's size); absent: DEFAULT_POOL_SETTINGS. */
  maxUpstreamConnections?: number;
}

/** The defaults of config `limits` (src/config/schema.ts), for adapters built without a gateway. */
export const DEFAULT_UPSTREAM_LIMITS: UpstreamLimits = Object.freeze({ maxUpstreamBodyBytes: 8 * 1_048_576, maxUpstreamEventBytes: 1_048_576 });

/** Most redirects followed for one request (each within the configured origin). */
export const MAX_REDIRECTS = 5;

export interface UpstreamClientOptions {
  /** The agent's configured name: every error names it, never the URL. */
  agent: string;
  /** Its adapter kind, for the diagnostics events. */
  kind?: string;
  limits?: UpstreamLimits;
  /** Share pools between clients (the gateway's registry); by default the client owns its own. */
  pools?: UpstreamPools;
}

/** One upstream request. The URL comes from config (or a same-origin redirect), never from a client. */
export interface UpstreamRequest {
  url: string | URL;
  method?: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'HEAD';
  /** Sent as given (the client may add `authorization` from URL user-info, subscribers `traceparent`): pass a fresh object. */
  headers?: Record<string, string>;
  /** A text body (JSON); replayed on a 307/308 to the same origin. */
  body?: string;
  /** The call's signal: aborting it aborts the request and drops the connection. */
  signal?: AbortSignal;
  /** The inbound request this call serves (CallContext.requestId), for the diagnostics events. */
  requestId?: string;
  /** No response headers after this long: TIMEOUT. Also the longest pause inside the body. */
  timeoutMs?: number;
  /**
   * Sees every response's headers, redirects included, before the next hop; may update the request
   * headers for that hop (a cookie jar: NLIP sessions).
   */
  onResponse?: (headers: UpstreamHeaders, requestHeaders: Record<string, string>) => void;
  /** `0`: a body may pause forever (an SDK's standing event stream). Defaults to `timeoutMs`, else 300 s. */
  bodyIdleMs?: number;
}

const DEFAULT_TIMEOUT_MS = 300_000;

/** Pool settings with the configured connection cap. */
export function poolSettings(limits: UpstreamLimits | undefined) {
  return limits?.maxUpstreamConnections ? { ...DEFAULT_POOL_SETTINGS, connections: limits.maxUpstreamConnections } : DEFAULT_POOL_SETTINGS;
}
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const URL_CACHE_SIZE = 64;
let exchangeIds = 0;

/**
 * The one HTTP client every adapter uses for its upstream (docs/upstream-policy.md): pooled
 * keep-alive sockets per origin (undici), the call's signal, size caps on every body, redirects
 * followed only within the configured origin (RFC 9110 15.4) and never with a configured header
 * or credential to anyone else, URL credentials never shown, and every exchange published on
 * `upstreamChannels`.
 */
export class UpstreamClient {
  readonly agent: string;
  readonly kind: string | undefined;
  private readonly limits: UpstreamLimits;
  private readonly pools: UpstreamPools;
  private readonly ownsPools: boolean;
  private readonly urls = new Map<string, ParsedUpstreamUrl>();

  constructor(opts: UpstreamClientOptions) {
    this.agent = opts.agent;
    this.kind = opts.kind;
    this.limits = opts.limits ?? DEFAULT_UPSTREAM_LIMITS;
    this.ownsPools = opts.pools === undefined;
    this.pools = opts.pools ?? new UpstreamPools(poolSettings(this.limits));
  }

  /** Sends `req`, following same-origin redirects; resolves once the final response's headers arrived. */
  async request(req: UpstreamRequest): Promise<UpstreamResponse> {
    let target = this.parse(req.url);
    const configuredOrigin = target.origin;
    let method: string = req.method ?? (req.body === undefined ? 'GET' : 'POST');
    let body = req.body;
    const headers = req.headers ?? {};
    if (target.basicAuth && headers.authorization === undefined && headers.Authorization === undefined) headers.authorization = target.basicAuth;
    for (let hop = 0; ; hop++) {
      const res = await this.send(target, method, headers, body, req);
      req.onResponse?.(res.headers, headers);
      if (!REDIRECTS.has(res.status)) return res;
      const location = res.headers.get('location');
      if (location === null) return res;
      res.cancel();
      if (hop >= MAX_REDIRECTS) throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.agent}" redirected too often`);
      target = this.redirectTarget(location, target, configuredOrigin);
      // RFC 9110 15.4.4: 303 (and, as every client does, 301/302 after a POST) continue as GET without the body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
    }
  }

  /**
   * A Fetch-compatible function with the same policy, for SDK transports (MCP's `fetch` option):
   * `headers` (the agent's configured ones) are set on every request over what the SDK sent;
   * `requestId` names the inbound request a call serves, when the caller can tell.
   */
  fetchFunction(opts: { headers?: Record<string, string>; requestId?: () => string | undefined } = {}): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
    return async (input, init) => {
      const url = input instanceof Request ? input.url : input;
      const headers: Record<string, string> = {};
      if (input instanceof Request) input.headers.forEach((v, k) => (headers[k] = v));
      new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
      for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
      const raw = init?.body;
      const body = raw === undefined || raw === null ? undefined : typeof raw === 'string' ? raw : await new Response(raw).text();
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase() as UpstreamRequest['method'];
      const signal = init?.signal ?? undefined;
      const requestId = opts.requestId?.();
      const res = await this.request({
        url,
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(signal ? { signal } : {}),
        ...(requestId !== undefined ? { requestId } : {}),
        bodyIdleMs: 0,
      });
      const nullBody = res.status === 204 || res.status === 205 || res.status === 304 || method === 'HEAD';
      if (nullBody) res.cancel();
      const status = res.status < 200 || res.status > 599 ? 502 : res.status;
      return new Response(nullBody ? null : res.webStream(), { status, headers: res.headers.toRecord() });
    };
  }

  /** Closes the pools this client owns. */
  async close(): Promise<void> {
    if (this.ownsPools) await this.pools.close();
  }

  private async send(target: ParsedUpstreamUrl, method: string, headers: Record<string, string>, body: string | undefined, req: UpstreamRequest): Promise<UpstreamResponse> {
    const exchange = this.observe(target, method, headers, body, req.requestId);
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let data: Dispatcher.ResponseData;
    try {
      data = await (this.pools.existing(target.origin) ?? (await this.pools.get(target.origin))).request({
        path: target.path,
        method: method as Dispatcher.HttpMethod,
        headers: exchange ? exchange.headers : headers,
        body: body ?? null,
        signal: req.signal ?? null,
        headersTimeout: timeoutMs,
        bodyTimeout: req.bodyIdleMs ?? timeoutMs,
      });
    } catch (err) {
      const failure = requestError(err, this.agent, req.signal, req.timeoutMs);
      if (exchange) upstreamChannels.end.publish({ exchange, error: failure.code, bytes: 0, durationMs: performance.now() - exchange.startedAt });
      throw failure;
    }
    const resHeaders = new UpstreamHeaders(data.headers);
    if (exchange?.follow && upstreamChannels.response.hasSubscribers) {
      upstreamChannels.response.publish({ exchange, status: data.statusCode, headers: resHeaders.toRecord() });
    }
    const bc = { agent: this.agent, maxBodyBytes: this.limits.maxUpstreamBodyBytes, maxEventBytes: this.limits.maxUpstreamEventBytes, signal: req.signal, exchange };
    return new UpstreamResponse(data.statusCode, resHeaders, data.body as unknown as Readable, bc);
  }

  /** Starts an exchange and publishes `request` when anyone listens (subscribers may add headers). */
  private observe(target: ParsedUpstreamUrl, method: string, headers: Record<string, string>, body: string | undefined, requestId: string | undefined): UpstreamExchange | undefined {
    const c = upstreamChannels;
    if (!c.request.hasSubscribers && !c.response.hasSubscribers && !c.chunk.hasSubscribers && !c.end.hasSubscribers) return undefined;
    const exchange: UpstreamExchange = {
      id: ++exchangeIds,
      ...(requestId !== undefined ? { requestId } : {}),
      agent: this.agent,
      ...(this.kind !== undefined ? { kind: this.kind } : {}),
      method,
      url: target.display,
      headers,
      ...(body !== undefined ? { body } : {}),
      startedAt: performance.now(),
    };
    if (c.request.hasSubscribers) c.request.publish(exchange);
    return exchange;
  }

  /** Where a redirect goes: only within the configured origin; the error names the agent, never the target. */
  private redirectTarget(location: string, from: ParsedUpstreamUrl, origin: string): ParsedUpstreamUrl {
    let next: ParsedUpstreamUrl;
    try {
      next = parseUpstreamUrl(new URL(location, `${from.origin}${from.path}`));
    } catch {
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.agent}" redirected to an invalid location`);
    }
    if (next.origin !== origin || next.basicAuth !== undefined) {
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.agent}" redirected to another origin, which the gateway does not follow`);
    }
    return next;
  }

  /** Parses a configured URL once (the few URLs an agent calls repeat on every request). */
  private parse(url: string | URL): ParsedUpstreamUrl {
    const key = typeof url === 'string' ? url : url.href;
    let parsed = this.urls.get(key);
    if (parsed === undefined) {
      try {
        parsed = parseUpstreamUrl(url);
      } catch {
        throw new GatewayError('CONFIG_ERROR', `Agent "${this.agent}" has an invalid URL`);
      }
      if (this.urls.size >= URL_CACHE_SIZE) this.urls.clear();
      this.urls.set(key, parsed);
    }
    return parsed;
  }
}

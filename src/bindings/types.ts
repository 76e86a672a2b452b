import type { Context, Hono } from 'hono';
import type { GatewayError } from '../base/errors.ts';
import type { Gateway } from '../core/gateway-types.ts';
import type { Principal } from '../core/principal.ts';

/** Transport settings every binding may need (from the config's `server` section). */
export interface ServerSettings {
  /** Largest request body accepted, in bytes (413 above it). */
  bodyLimitBytes: number;
  /** Allowed `Origin` values for browser-reachable endpoints (MCP DNS-rebinding protection). Empty = any. */
  allowedOrigins: string[];
  /** Allowed `Host` values (MCP DNS-rebinding protection). Empty = any. */
  allowedHosts: string[];
  /** The gateway's public base URL, for links it publishes (webtool endpoints, NLIP upload URI). */
  publicUrl?: string;
  /** How long a promise lives (config `defaults.promiseTtlMs`): the `ttl` an MCP task reports. */
  promiseTtlMs?: number;
  /** The caps a binding enforces itself (config `limits`). */
  limits: BindingLimits;
  /**
   * The base URL for links the gateway publishes: `publicUrl`, else the request's origin only when
   * its Host passed the edge's allow-list, else the address the gateway listens on (never an
   * arbitrary Host header).
   */
  publicBase(c: Context): string;
  /** The edge's credential verifier (src/edge/identity.ts), for credentials carried inside a message (NLIP 6.5 tokens). */
  identity: {
    readonly enabled: boolean;
    verify(authorization: string): Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }>;
  };
}

/**
 * What the edge (src/edge) needs from a binding to refuse a request before the binding runs, in
 * the binding's own wire shape. Paths are given without an `/agents/{name}` prefix.
 */
export interface EdgeHooks {
  /** Whether this request is this binding's (its refusals are then rendered by `renderError`). */
  claims(method: string, path: string): boolean;
  /** Whether this request carries a JSON body, which must be declared as JSON (415 otherwise). */
  jsonBody(method: string, path: string): boolean;
  /** Renders a refusal made at the edge (401, 403, 415, 429) in this protocol's shape. */
  renderError(c: Context, err: GatewayError): Response;
}

/** Caps on stored state a binding enforces (config `limits`, where their defaults are). */
export interface BindingLimits {
  /** Largest stored MCP session record (initialize facts), in bytes. */
  maxSessionRecordBytes: number;
  /** Upload bytes one principal may hold at once (NLIP 6.4). */
  uploadBytesPerPrincipal: number;
  /** Upload bytes all callers may hold together. */
  uploadBytesTotal: number;
}

/** What a binding is given to build its routes. */
export interface BindingContext {
  gateway: Gateway;
  settings: ServerSettings;
}

/** One inbound protocol: routes that parse, validate, call the Gateway and render. */
export interface Binding {
  name: string;
  /** Also mounted under `/agents/:agent` (the agent is then `c.req.param('agent')`). */
  perAgent: boolean;
  routes(ctx: BindingContext): Hono;
  /** How the edge recognises this binding's requests and renders its refusals. */
  edge?: EdgeHooks;
}

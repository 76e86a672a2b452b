import type { Hono } from 'hono';
import type { Gateway } from '../core/gateway-types.ts';

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
}

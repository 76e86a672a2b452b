/**
 * Host and Origin checks on every route (issue 11 item 5; MCP "Security Warning" on DNS rebinding,
 * generalised from the MCP binding). Port-aware: `localhost:8080` is not `localhost:9090`, and an
 * Origin is compared as scheme://host:port. Everything is computed once from the config.
 */

export interface HostOriginConfig {
  /** `server.host`: on loopback the checks are on by default. */
  listenHost: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** CORS origins are allowed callers too (CORS stays opt-in, `server.corsOrigins`). */
  corsOrigins: readonly string[];
}

/** What a request presents; `localPort` is the socket's (undefined for in-process requests). */
export interface HostOriginRequest {
  host: string | undefined;
  origin: string | undefined;
  localPort: number | undefined;
}

export interface HostOriginPolicy {
  /** False when nothing is checked (not on loopback and no allow-lists configured). */
  readonly active: boolean;
  /** Undefined when the request may proceed, else why it may not. */
  check(req: HostOriginRequest): string | undefined;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** True when the gateway listens on a loopback address only. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** `Example.COM:80` → `{ name: 'example.com', port: '80' }`; `[::1]:8080` keeps its brackets. */
export function splitHost(value: string): { name: string; port: string } {
  const v = value.trim().toLowerCase();
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(v);
  return m ? { name: m[1]!, port: m[2] ?? '' } : { name: v, port: '' };
}

/** An allow-list entry as a host: `http://a:1` and `a:1` both give `a:1`; a bare name matches any port. */
function hostEntry(entry: string): { name: string; port: string } {
  if (entry.includes('://')) {
    try {
      const u = new URL(entry);
      return { name: u.hostname.toLowerCase(), port: u.port };
    } catch {
      return splitHost(entry);
    }
  }
  return splitHost(entry);
}

/** The origin of an allow-list entry (`https://a.example/` → `https://a.example`), or the entry itself. */
function originEntry(entry: string): string {
  try {
    const o = new URL(entry).origin;
    return o === 'null' ? entry.toLowerCase() : o;
  } catch {
    return entry.toLowerCase();
  }
}

/** Builds the policy for one gateway (docs/security.md "Host and Origin"). */
export function createHostOriginPolicy(cfg: HostOriginConfig): HostOriginPolicy {
  const explicitHosts = cfg.allowedHosts.map(hostEntry);
  const loopbackDefault = explicitHosts.length === 0 && isLoopback(cfg.listenHost);
  const active = explicitHosts.length > 0 || cfg.allowedOrigins.length > 0 || loopbackDefault;
  const origins = new Set([...cfg.allowedOrigins, ...cfg.corsOrigins].filter((o) => !o.endsWith('://*') && o !== '*').map(originEntry));
  const schemes = [...cfg.allowedOrigins, ...cfg.corsOrigins].filter((o) => o.endsWith('://*')).map((o) => o.slice(0, -1).toLowerCase());
  const anyOrigin = cfg.corsOrigins.includes('*');

  const hostAllowed = (host: string | undefined, localPort: number | undefined): boolean | undefined => {
    if (explicitHosts.length > 0) {
      if (!host) return false;
      const h = splitHost(host);
      return explicitHosts.some((e) => e.name === h.name && (e.port === '' || e.port === h.port));
    }
    if (!loopbackDefault || localPort === undefined) return undefined; // nothing to check
    if (!host) return false;
    const h = splitHost(host);
    return LOOPBACK_NAMES.includes(h.name) && h.port === String(localPort);
  };

  return {
    active,
    check({ host, origin, localPort }) {
      if (!active) return undefined;
      const hostOk = hostAllowed(host, localPort);
      if (hostOk === false) return `Host "${host ?? ''}" is not allowed`;
      if (origin === undefined || anyOrigin) return undefined;
      // An in-process request on the loopback default has nothing to compare against.
      if (hostOk === undefined && explicitHosts.length === 0 && cfg.allowedOrigins.length === 0) return undefined;
      const normalized = originEntry(origin);
      if (origins.has(normalized) || schemes.some((s) => normalized.startsWith(s))) return undefined;
      // Same origin: the page was served by this gateway under a Host that passed.
      try {
        const u = new URL(origin);
        if ((u.protocol === 'http:' || u.protocol === 'https:') && host !== undefined && u.host === host.trim().toLowerCase() && hostOk === true) {
          return undefined;
        }
      } catch {
        // not a URL (e.g. "null"): refused below
      }
      return `Origin "${origin}" is not allowed`;
    },
  };
}

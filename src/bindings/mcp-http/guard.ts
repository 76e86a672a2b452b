import { hostHeaderValidationResponse, originValidationResponse } from '@modelcontextprotocol/server';
import type { ServerSettings } from '../types.ts';

/** A JSON-RPC error as a whole HTTP response (transport-level rejections, MCP Streamable HTTP). */
export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * Allow-list entries as the SDK's validators take them: hostnames (port-agnostic). Config may list
 * origins (`http://localhost:3000`) or hosts with ports (`localhost:8080`); both reduce to the host.
 */
export function hostnames(entries: string[]): string[] {
  return entries.map((e) => {
    if (/^[a-z][a-z0-9+.-]*:\/\/\*$/i.test(e)) return e.toLowerCase(); // `moz-extension://*` wildcards
    try {
      return new URL(e.includes('://') ? e : `http://${e}`).hostname;
    } catch {
      return e;
    }
  });
}

/**
 * DNS-rebinding protection (MCP "Security Warning", interop.md: 403 for a bad `Origin`/`Host`):
 * the `Host` must be in `allowedHosts`, a present `Origin` in `allowedOrigins`. An empty list
 * checks nothing (the config decides; see docs/mcp.md).
 */
export function rejectUntrusted(req: Request, settings: Pick<ServerSettings, 'allowedHosts' | 'allowedOrigins'>): Response | undefined {
  if (settings.allowedHosts.length > 0) {
    const bad = hostHeaderValidationResponse(req, hostnames(settings.allowedHosts));
    if (bad) return bad;
  }
  if (settings.allowedOrigins.length > 0) {
    const bad = originValidationResponse(req, hostnames(settings.allowedOrigins));
    if (bad) return bad;
  }
  return undefined;
}

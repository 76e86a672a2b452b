/**
 * Bounded label values (issue 13: "never a query or token as a label"): every value a metric or a
 * span name takes from a request is mapped onto a small fixed set here.
 */

/** The inbound protocol a route template belongs to (the bindings' routes; `gateway` for the probes). */
export function protocolOf(method: string, route: string): string {
  if (route.endsWith('/mcp')) return 'mcp';
  if (route.includes('/nlip')) return 'nlip';
  if (route.startsWith('/webtools')) return 'webtool';
  if (route.endsWith('/sites') || (route.endsWith('/ask') && method === 'GET')) return 'nlweb-legacy';
  if (route.endsWith('/ask') || route.endsWith('/await')) return 'nlweb';
  if (route === 'unmatched') return 'none';
  return 'gateway';
}

/** The route template a request matched, or `unmatched` (a 404 never puts its raw path in a label). */
export function routeLabel(template: string | undefined): string {
  return !template || template === '*' || template === '/*' ? 'unmatched' : template;
}

/** An agent name only when the config has it; anything else a client sent becomes `other`. */
export function agentLabel(known: ReadonlySet<string>, name: string | undefined): string {
  if (name === undefined || name === '') return 'none';
  return known.has(name) ? name : 'other';
}

/** The outcome of a request the core did not classify, from its HTTP status. */
export function outcomeOfStatus(status: number): string {
  if (status >= 500) return 'error';
  if (status >= 400) return 'rejected';
  return 'success';
}

/** An upstream outcome: the error code when it failed, else the status class (`2xx`). */
export function upstreamOutcome(status: number | undefined, error: string | undefined): string {
  if (error) return errorLabel(error);
  return status ? `${Math.floor(status / 100)}xx` : 'none';
}

/** A GatewayError code (UPPER_SNAKE, from the frozen ERROR_TABLE); anything else becomes `OTHER`. */
export function errorLabel(code: string): string {
  return /^[A-Z][A-Z_]{0,39}$/.test(code) ? code : 'OTHER';
}

import type { Binding } from '../bindings/types.ts';

/** What the edge knows about a request's route before any binding runs. */
export interface RouteInfo {
  /** The binding whose request this is, if any (its refusals are rendered in its shape). */
  binding: Binding | undefined;
  /** The inbound protocol for logs: the binding's name, else `gateway` (health, `/agents`). */
  protocol: string;
  /** The agent named by the path (`/agents/{name}/…`, `/webtools/{name}`), if any. */
  agent: string | undefined;
  /** Whether the body must be declared as JSON (415 otherwise). */
  jsonBody: boolean;
}

const AGENT_PREFIX = /^\/agents\/([^/]+)(\/.*)$/;
const WEBTOOL = /^\/webtools\/([^/]+)/;

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Builds the route classifier once from the bindings (app.ts mounts them the same way). */
export function routeClassifier(bindings: readonly Binding[]): (method: string, path: string) => RouteInfo {
  const withHooks = bindings.filter((b) => b.edge !== undefined);
  return (method, fullPath) => {
    const prefixed = AGENT_PREFIX.exec(fullPath);
    const path = prefixed ? prefixed[2]! : fullPath;
    const binding = withHooks.find((b) => (!prefixed || b.perAgent) && b.edge!.claims(method, path));
    const agent = prefixed ? decode(prefixed[1]!) : binding?.name === 'webtool-http' ? decode(WEBTOOL.exec(path)?.[1] ?? '') || undefined : undefined;
    return {
      binding,
      protocol: binding?.name ?? 'gateway',
      agent,
      jsonBody: binding?.edge!.jsonBody(method, path) ?? false,
    };
  };
}

import type { Context } from 'hono';
import { attachActions } from '../../core/actions.ts';
import type { Gateway, PublishedTool } from '../../core/gateway-types.ts';
import { isAnswer, type CanonicalResponse, type ResultItem } from '../../protocol/nlweb/index.ts';
import type { ServerSettings } from '../types.ts';

/** Adds NLWeb 5 actions to one result item (identity when the agent has no tools). */
export type ItemDecorator = (item: ResultItem) => ResultItem;

/**
 * The decorator for an agent's results: its structured tools become HTTP (webtool) and MCP actions
 * on each item, pointing at this gateway (`server.publicUrl`, else the origin the client used).
 */
export function actionDecorator(c: Context, gateway: Gateway, agent: string, settings: ServerSettings): Promise<ItemDecorator> {
  const decorator = (tools: readonly PublishedTool[]): ItemDecorator => {
    if (tools.length === 0) return (item) => item;
    const base = settings.publicBase(c);
    return (item) => attachActions(item, agent, tools, base);
  };
  // Not async: an agent described already (every answer after its first) costs no await (issue 25).
  const known = gateway.knownTools(agent);
  if (known) return Promise.resolve(decorator(known));
  return gateway.listTools(agent).catch(() => []).then(decorator);
}

/** Applies the decorator to every item of an answer. */
export function decorateResponse(response: CanonicalResponse, decorate: ItemDecorator): CanonicalResponse {
  return isAnswer(response) ? { ...response, results: response.results.map(decorate) } : response;
}

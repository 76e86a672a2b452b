import type { ClientChannel } from '../../core/agent.ts';
import type { Gateway } from '../../core/gateway-types.ts';
import { GatewayError } from '../../base/errors.ts';
import { callOptions, type McpCall } from './call.ts';
import { clientSessionOf } from './session-link.ts';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/** Separates an agent from a prompt name when several agents' prompts share one endpoint (as tools do). */
const SEP = '__';

/** Which agents pass each MCP method through (Agent `forwards.mcp`), for the agents an endpoint reaches. */
export async function forwardMap(gateway: Gateway, agents: string[]): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>();
  const described = await Promise.all(agents.map((a) => gateway.describeAgent(a).then((d) => [a, d] as const, () => undefined)));
  for (const entry of described) {
    if (!entry) continue;
    for (const method of entry[1].forwards?.mcp ?? []) map.set(method, [...(map.get(method) ?? []), entry[0]]);
  }
  return map;
}

/**
 * MCP methods passed through to MCP agents (resources, prompts, completions; Agent.forward). With one
 * agent the request goes through unchanged, cursors included; with several, lists are merged (prompt
 * names prefixed `<agent>__` like tools) and a read goes to the first agent that knows the resource.
 */
export class Passthrough {
  constructor(
    private readonly gateway: Gateway,
    private readonly call: McpCall,
    private readonly routes: Map<string, string[]>,
  ) {}

  serves(method: string): boolean {
    return (this.routes.get(method)?.length ?? 0) > 0;
  }

  private agents(method: string): string[] {
    return this.routes.get(method) ?? [];
  }

  private send(agent: string, method: string, params: Params, signal: AbortSignal, client?: ClientChannel): Promise<Result> {
    if (!this.gateway.forward) return Promise.reject(new GatewayError('TOOL_NOT_FOUND', `${method} is not available`));
    const session = clientSessionOf(this.call, this.gateway.store);
    return this.gateway.forward(agent, 'mcp', method, params, { ...callOptions(this.call, signal), ...(session ? { session } : {}), ...(client ? { client } : {}) });
  }

  /** `resources/subscribe` and `unsubscribe` (2025 sessions): every agent that takes them; fails only when all fail. */
  async broadcast(method: string, params: Params, signal: AbortSignal): Promise<Result> {
    const outcomes = await Promise.allSettled(this.agents(method).map((a) => this.send(a, method, params, signal)));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed && outcomes.every((o) => o.status === 'rejected')) throw failed.reason;
    return {};
  }

  /** `resources/list`, `resources/templates/list`, `prompts/list`: one agent as is, several merged. */
  async list(method: string, key: 'resources' | 'resourceTemplates' | 'prompts', params: Params, signal: AbortSignal): Promise<Result> {
    const agents = this.agents(method);
    if (agents.length === 1) return this.send(agents[0]!, method, params, signal);
    const { cursor: _ignored, ...rest } = params;
    const pages = await Promise.all(agents.map((a) => this.send(a, method, rest, signal).then((r) => [a, r] as const)));
    const items = pages.flatMap(([agent, r]) =>
      ((r[key] as Array<Record<string, unknown>> | undefined) ?? []).map((item) => (key === 'prompts' ? { ...item, name: `${agent}${SEP}${String(item.name)}` } : item)),
    );
    return { [key]: items };
  }

  /** `prompts/get`: to the agent its (possibly prefixed) name names; `client` carries a 2026 client's rounds (SEP-2322). */
  async getPrompt(params: Params, signal: AbortSignal, client?: ClientChannel): Promise<Result> {
    const { agent, name } = this.promptTarget('prompts/get', String(params.name ?? ''));
    return this.send(agent, 'prompts/get', { ...params, name }, signal, client);
  }

  /** `completion/complete`: a prompt reference goes to its agent, a resource reference to the first that answers. */
  async complete(params: Params, signal: AbortSignal): Promise<Result> {
    const ref = (params.ref ?? {}) as Record<string, unknown>;
    if (ref.type === 'ref/prompt') {
      const { agent, name } = this.promptTarget('completion/complete', String(ref.name ?? ''));
      return this.send(agent, 'completion/complete', { ...params, ref: { ...ref, name } }, signal);
    }
    return this.first('completion/complete', params, signal);
  }

  /** `resources/read` (and a resource completion): the first agent that knows the URI. */
  async first(method: string, params: Params, signal: AbortSignal, client?: ClientChannel): Promise<Result> {
    let lastError: unknown = new GatewayError('SCHEMA_ERROR', `${method}: nothing serves this request`);
    for (const agent of this.agents(method)) {
      try {
        return await this.send(agent, method, params, signal, client);
      } catch (err) {
        lastError = err;
        if (!(err instanceof GatewayError && (err.code === 'SCHEMA_ERROR' || err.code === 'TOOL_NOT_FOUND'))) throw err;
      }
    }
    throw lastError;
  }

  /** `logging/setLevel` reaches every agent that takes it; an agent's failure does not fail the client. */
  async setLevel(level: string, signal: AbortSignal): Promise<void> {
    await Promise.all(this.agents('logging/setLevel').map((a) => this.send(a, 'logging/setLevel', { level }, signal).catch(() => undefined)));
  }

  private promptTarget(method: string, name: string): { agent: string; name: string } {
    const agents = this.agents(method);
    if (agents.length === 1) return { agent: agents[0]!, name };
    const i = name.indexOf(SEP);
    const agent = i > 0 ? name.slice(0, i) : '';
    if (!agents.includes(agent)) throw new GatewayError('SCHEMA_ERROR', `Unknown prompt: ${name}`);
    return { agent, name: name.slice(i + SEP.length) };
  }
}

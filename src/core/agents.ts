import type { AskRequest } from '../protocol/nlweb/index.ts';
import { querySites } from '../protocol/nlweb/index.ts';
import type { AdapterFactory, Agent, AgentDescription, CommonAgentConfig } from './agent.ts';
import { GatewayError } from '../base/errors.ts';
import type { AgentInfo } from './gateway-types.ts';
import type { Logger } from '../base/logger.ts';
import { poolSettings, UpstreamClient, UpstreamPools, type UpstreamLimits } from './upstream/index.ts';

/** One configured agent: its instance, its settings and its cached description. */
export interface AgentEntry {
  agent: Agent;
  config: CommonAgentConfig & Record<string, unknown>;
  description?: AgentDescription;
}

/**
 * The agents of one gateway, built from config through the adapter factories (by `kind`), and the
 * router that picks one for a request (design.md "The core").
 */
export class AgentRegistry {
  private readonly entries = new Map<string, AgentEntry>();
  private nameList: readonly string[] | undefined;
  private readonly defaultName: string;
  /** One pool per upstream origin, shared by every agent of this gateway. */
  private readonly pools: UpstreamPools;

  constructor(
    configs: ReadonlyArray<CommonAgentConfig & Record<string, unknown>>,
    adapters: readonly AdapterFactory<any>[],
    deps: { log: Logger; baseDir: string; upstreamLimits?: UpstreamLimits },
    defaultAgent?: string,
  ) {
    this.pools = new UpstreamPools(poolSettings(deps.upstreamLimits));
    const factories = new Map(adapters.map((a) => [a.kind, a]));
    for (const config of configs) {
      const factory = factories.get(config.kind);
      if (!factory) throw new GatewayError('CONFIG_ERROR', `No adapter for kind "${config.kind}"`);
      const invalidateDescription = () => {
        const entry = this.entries.get(config.name);
        if (entry) delete entry.description;
      };
      const upstream = new UpstreamClient({ agent: config.name, kind: config.kind, pools: this.pools, ...(deps.upstreamLimits ? { limits: deps.upstreamLimits } : {}) });
      const agent = factory.create(config, { log: deps.log.child({ agent: config.name }), baseDir: deps.baseDir, invalidateDescription, upstream });
      // Queries are idempotent unless the config says otherwise: a lost one is run again, not lost.
      // Not for an agent that forwards the client's credentials: the re-run would have none to send.
      // Left unset otherwise: the upstream's own declaration decides then (reruns.ts `mayRunAgain`).
      const queries = factory.asksAreQueries === true && config.forwardCredentials !== true;
      const idempotent = config.idempotent ?? (queries ? true : undefined);
      this.entries.set(config.name, { agent, config: { ...config, idempotent } });
    }
    this.defaultName = defaultAgent ?? configs[0]!.name;
  }

  /** The entry for `name`; throws AGENT_NOT_FOUND. */
  get(name: string): AgentEntry {
    const entry = this.entries.get(name);
    if (!entry) throw new GatewayError('AGENT_NOT_FOUND', `No agent is named "${name}"`);
    return entry;
  }

  /** The entry for `name`, or undefined when no agent has that name. */
  find(name: string): AgentEntry | undefined {
    return this.entries.get(name);
  }

  /** The configured agents' names, in config order (the same array every call: agents never change). */
  names(): readonly string[] {
    return (this.nameList ??= Object.freeze([...this.entries.keys()]));
  }

  list(): AgentInfo[] {
    return [...this.entries.values()].map((e) => ({
      name: e.config.name,
      kind: e.config.kind,
      description: e.config.description ?? e.description?.description ?? `${e.config.kind} agent ${e.config.name}`,
    }));
  }

  /** The agent's description, fetched once and cached (a failure is not cached: the upstream may come up). */
  async describe(name: string): Promise<AgentDescription> {
    const entry = this.get(name);
    if (!entry.description) {
      const d = await entry.agent.describe(AbortSignal.timeout(entry.config.timeoutMs ?? 10_000));
      entry.description = entry.config.description ? { ...d, description: entry.config.description } : d;
    }
    return entry.description;
  }

  /** Warms the description cache so `query.site` routing knows every agent's sites. Never throws. */
  async warm(log: Logger): Promise<void> {
    await Promise.all(
      this.names().map((n) =>
        this.describe(n).catch((err: unknown) => log.warn({ agent: n, err: String(err) }, 'agent description unavailable')),
      ),
    );
  }

  /**
   * Routing: the agent named by the path; else the one whose name or listed sites match
   * `query.site`; else the default agent. An unknown path agent is AGENT_NOT_FOUND.
   */
  resolve(request: AskRequest | undefined, pathAgent?: string): string {
    if (pathAgent !== undefined) return this.get(pathAgent).config.name;
    const sites = request ? querySites(request.query) : [];
    for (const site of sites) {
      if (this.entries.has(site)) return site;
      for (const [name, entry] of this.entries) {
        if (entry.description?.sites?.includes(site)) return name;
      }
    }
    return this.defaultName;
  }

  async close(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.agent.close?.().catch(() => undefined)));
    await this.pools.close();
  }
}

import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import type { Gateway } from '../../core/gateway-types.ts';

/**
 * The agent card (A2A 1.0 §8 "Agent Discovery", §4.4.1 AgentCard) of one gateway agent, served at
 * `{agent base URL}/.well-known/agent-card.json`. Skills come from the agent's description (its
 * `ask`, tagged with its sites and item types) and its structured tools; the interfaces are the
 * JSON-RPC and HTTP+JSON bindings this binding serves; push notifications are not offered.
 */

/** Paths of one agent's A2A end-points under the gateway's base URL. */
export const a2aPaths = (agent: string) => {
  const base = `/a2a/${encodeURIComponent(agent)}`;
  return { base, jsonrpc: base, rest: `${base}/rest`, card: `${base}/.well-known/agent-card.json` };
};

const MEDIA = ['text/plain', 'application/json'];

export interface CardOptions {
  /** The gateway's public base URL (no trailing slash). */
  baseUrl: string;
  /** Declare HTTP Bearer authentication (any `auth` is configured on the gateway). */
  bearer: boolean;
}

/** §4.4.1 the card of `agent` as the gateway serves it. */
export async function buildAgentCard(gateway: Gateway, agent: string, opts: CardOptions): Promise<AgentCard> {
  const description = await gateway.describeAgent(agent).catch(() => undefined);
  const tools = await gateway.listTools(agent).catch(() => []);
  const about = description?.description || gateway.listAgents().find((a) => a.name === agent)?.description || `The ${agent} agent`;
  const paths = a2aPaths(agent);
  const skill = (id: string, name: string, text: string, tags: string[]): AgentSkill => ({
    id,
    name,
    description: text,
    tags,
    examples: [],
    inputModes: MEDIA,
    outputModes: MEDIA,
    securityRequirements: [],
  });
  const skills = [
    skill('ask', 'Ask', about, [...(description?.sites ?? []), ...(description?.itemTypes ?? [])].slice(0, 20)),
    ...tools.map((t) => skill(t.toolName, t.title ?? t.toolName, t.description, ['tool'])),
  ];
  const iface = (url: string, protocolBinding: string) => ({ url, protocolBinding, tenant: '', protocolVersion: A2A_PROTOCOL_VERSION });
  return {
    name: agent,
    description: about,
    supportedInterfaces: [iface(`${opts.baseUrl}${paths.jsonrpc}`, 'JSONRPC'), iface(`${opts.baseUrl}${paths.rest}`, 'HTTP+JSON')],
    provider: { organization: 'nlgate', url: opts.baseUrl },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: opts.bearer ? { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer', bearerFormat: '', description: 'An API key or JWT as configured on the gateway' } } } } : {},
    securityRequirements: opts.bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: MEDIA,
    defaultOutputModes: MEDIA,
    skills,
    signatures: [],
  };
}

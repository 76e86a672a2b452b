import { z } from 'zod';
import type { Gateway, PublishedTool } from '../../core/gateway-types.ts';
import {
  AnswerResponseSchema,
  AskRequestSchema,
  AwaitRequestSchema,
  ElicitationResponseSchema,
  FailureResponseSchema,
  PromiseResponseSchema,
} from '../../protocol/nlweb/index.ts';
import { metadataHash, type WebtoolAction, type WebtoolMetadata } from '../../protocol/webtool/index.ts';

/**
 * The version of the gateway's own webtool surface (the `ask`/`await` contract). The published
 * version adds a fingerprint of the whole metadata as semver build metadata (`1.0.0+h.<hash>`), so
 * any change to an agent's actions or schemas is a new version and a client's lock-in always holds.
 */
export const SURFACE_VERSION = '1.0.0';

/** The `config` a client may send to the gateway's webtools ("Configuration"): defaults for `ask`. */
export const GatewayWebtoolConfigSchema = z.strictObject({
  num_results: z.number().int().min(1).max(100).optional().meta({ description: 'Results per ask when the request does not say', examples: [5] }),
});
export type GatewayWebtoolConfig = z.infer<typeof GatewayWebtoolConfigSchema>;

const CanonicalResponseSchema = z.union([AnswerResponseSchema, ElicitationResponseSchema, PromiseResponseSchema, FailureResponseSchema]);
const json = (s: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(s, { io }) as Record<string, unknown>;

/** Schemas generated once from the NLWeb zod schemas (the single source of truth). */
let builtins: { ask: WebtoolAction; await: WebtoolAction; configSchema: Record<string, unknown> } | undefined;
function builtinActions() {
  builtins ??= {
    ask: {
      name: 'ask',
      description:
        'Ask the agent in natural language (NLWeb v0.55 ask). request: {"query":{"text":"..."}} plus optional context, prefer and meta; data: the NLWeb response (answer with results, elicitation, promise, or a NO_RESULTS failure). Send the same sessionId to continue a conversation.',
      requestSchema: json(AskRequestSchema, 'input'),
      responseSchema: json(CanonicalResponseSchema, 'output'),
    },
    await: {
      name: 'await',
      description: 'Check in on (or cancel) a promise that ask returned (NLWeb v0.55 await). request: {"promise_token":"...","action":"checkin"}.',
      requestSchema: json(AwaitRequestSchema, 'input'),
      responseSchema: json(CanonicalResponseSchema, 'output'),
    },
    configSchema: json(GatewayWebtoolConfigSchema, 'input'),
  };
  return builtins;
}

/** What `data` is for a tool without an output schema. */
const UNTYPED_RESULT_SCHEMA = { description: "The tool's structured result, or {text, content} when it returns only content" };

/** A structured tool of the agent as a webtool action ("actions"): inputSchema → requestSchema, outputSchema (or a non-object resultSchema) → responseSchema. */
export function actionOfTool(tool: PublishedTool): WebtoolAction {
  return {
    name: tool.toolName,
    description: tool.description,
    requestSchema: tool.inputSchema,
    responseSchema: tool.outputSchema ?? tool.resultSchema ?? UNTYPED_RESULT_SCHEMA,
  };
}

/** The names the gateway's own actions take; an agent tool with one of these names is not published. */
export const RESERVED_ACTIONS = new Set(['ask', 'await']);

/** An agent's tools that are published as actions. */
export async function publishedTools(gateway: Gateway, agent: string): Promise<PublishedTool[]> {
  return (await gateway.listTools(agent)).filter((t) => !RESERVED_ACTIONS.has(t.toolName));
}

/**
 * "GET {webtoolUrl}/": the metadata of an agent as a webtool: `ask` and `await`, then its tools.
 * Throws GatewayError when the agent cannot describe itself (its upstream is down).
 */
export async function agentMetadata(gateway: Gateway, agent: string): Promise<WebtoolMetadata> {
  const description = await gateway.describeAgent(agent);
  const cached = metadataOf.get(description);
  if (cached) return cached;
  const tools = await publishedTools(gateway, agent);
  const b = builtinActions();
  const body = {
    name: agent,
    description: description.description,
    actions: [b.ask, b.await, ...tools.map(actionOfTool)],
    configSchema: b.configSchema,
    defaultConfig: {},
  };
  const version = `${SURFACE_VERSION}+h.${metadataHash(body).slice(0, 12)}`;
  const metadata = { name: body.name, description: body.description, version, actions: body.actions, configSchema: body.configSchema, defaultConfig: body.defaultConfig };
  metadataOf.set(description, metadata);
  return metadata;
}

/**
 * The metadata built from each agent description. The registry never mutates a description: when an
 * agent's tools change it drops it and fetches a new one (src/core/agents.ts, `invalidateDescription`),
 * and the published tools derive from it, so the canonical-JSON
 * hash behind `version` is computed once per description rather than on every execution, where it
 * was a third of a webtool call's CPU (`npm run bench:profile webtool`).
 */
const metadataOf = new WeakMap<object, WebtoolMetadata>();

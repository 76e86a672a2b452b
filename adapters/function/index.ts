/**
 * The `function` adapter kind (issue 28): an agent whose answers come from a function in the host
 * application, for nlgate used as a library. It is not a YAML kind — a config file cannot hold a
 * function — so only `createNlgate` registers it; `functionAgent()` builds its config entry.
 */
import { z } from 'zod';
import type { AdapterFactory, Agent, AgentDescription, CallContext } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { ElicitationSchema, ResultItemSchema, type AskRequest, type Elicitation, type ResultItem } from '../../src/protocol/nlweb/index.ts';
import { GatewayError } from '../../src/base/errors.ts';

/** What an ask function is given. */
export interface FunctionAskInput {
  /** The query text. */
  query: string;
  /** The earlier queries of this conversation, oldest first. */
  prev: string[];
  /** Aborts when the caller cancels, goes away or the call times out. */
  signal: AbortSignal;
  /** The whole NLWeb v0.55 request (`query.site`, filters, `prefer`), for functions that need more. */
  request: AskRequest;
  /** Reports progress of a slow answer (shown on its promise and as MCP/A2A progress); `progress` in [0, 1]. */
  progress(update: { progress?: number; message?: string }): void;
}

/** A question back to the user instead of results (NLWeb 4.1.3 elicitation). */
export interface FunctionElicitation {
  elicitation: Elicitation;
}

/** What an ask function returns: results at once, results as they come, or a question. */
export type FunctionAnswer = ResultItem[] | AsyncIterable<ResultItem> | FunctionElicitation;

/** The function behind a function agent. */
export type FunctionAsk = (input: FunctionAskInput) => FunctionAnswer | Promise<FunctionAnswer>;

const FunctionConfigSchema = z
  .object({
    ask: z.custom<FunctionAsk>((v) => typeof v === 'function', 'must be a function'),
    /** Sub-corpora the agent answers for (`query.site` routes to it). */
    sites: z.array(z.string().min(1)).optional(),
    /** schema.org types of its results (published in listings and cards). */
    itemTypes: z.array(z.string().min(1)).optional(),
  })
  .strict();
export type FunctionConfig = z.infer<typeof FunctionConfigSchema>;

const isIterable = (v: unknown): v is AsyncIterable<unknown> | Iterable<unknown> =>
  v !== null && typeof v === 'object' && (Symbol.asyncIterator in v || Symbol.iterator in v);

/** Checks one result the host's function produced: it must be an object (a schema.org item). */
function resultItem(value: unknown, agent: string): ResultItem {
  const parsed = ResultItemSchema.safeParse(value);
  if (!parsed.success) throw new GatewayError('INTERNAL_ERROR', `Function agent "${agent}" returned a result that is not a schema.org object: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** A function agent: each ask calls the host's function and turns its answer into canonical events. */
class FunctionAgent implements Agent {
  readonly kind = 'function';
  readonly name: string;

  constructor(private readonly config: FunctionConfig & { name: string; description?: string }) {
    this.name = config.name;
  }

  async describe(): Promise<AgentDescription> {
    return {
      description: this.config.description ?? `Answers from the function agent "${this.name}"`,
      ...(this.config.sites ? { sites: this.config.sites } : {}),
      ...(this.config.itemTypes ? { itemTypes: this.config.itemTypes } : {}),
      capabilities: { streaming: true },
    };
  }

  async *ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent> {
    // Progress reported while the function runs is yielded as it comes (a promise shows the latest).
    const pending: AgentEvent[] = [];
    let wake: (() => void) | undefined;
    const progress = (u: { progress?: number; message?: string }) => {
      const p = typeof u.progress === 'number' && Number.isFinite(u.progress) ? Math.min(1, Math.max(0, u.progress)) : undefined;
      pending.push({ type: 'progress', ...(p !== undefined ? { progress: p } : {}), ...(u.message ? { message: u.message } : {}) });
      wake?.();
    };
    const prev = request.context?.prev ?? ctx.conversation?.prev ?? [];
    yield { type: 'start' };
    let settled = false;
    const answering = Promise.resolve()
      .then(() => this.config.ask({ query: request.query.text, prev: [...prev], signal: ctx.signal, request, progress }))
      .finally(() => {
        settled = true;
        wake?.();
      });
    answering.catch(() => undefined); // awaited below; no unhandled rejection while progress is yielded
    while (!settled) {
      await new Promise<void>((r) => (wake = r));
      yield* pending.splice(0);
    }
    const answer = await answering;
    yield* pending.splice(0);
    if (!isIterable(answer) && answer !== null && typeof answer === 'object' && 'elicitation' in answer) {
      const elicitation = ElicitationSchema.safeParse(answer.elicitation);
      if (!elicitation.success) throw new GatewayError('INTERNAL_ERROR', `Function agent "${this.name}" returned an invalid elicitation: ${elicitation.error.issues[0]?.message ?? 'invalid'}`);
      yield { type: 'elicitation', elicitation: elicitation.data };
      return;
    }
    if (!isIterable(answer)) throw new GatewayError('INTERNAL_ERROR', `Function agent "${this.name}" returned neither results nor an elicitation`);
    let count = 0;
    for await (const item of answer as AsyncIterable<unknown>) {
      yield* pending.splice(0);
      if (ctx.signal.aborted) return;
      count++;
      yield { type: 'result', item: resultItem(item, this.name) };
    }
    yield* pending.splice(0);
    if (count === 0) yield { type: 'error', code: 'NO_RESULTS', message: 'No results' };
    yield { type: 'complete' };
  }
}

/** The adapter factory of the `function` kind (registered by createNlgate only). */
export const functionAdapter: AdapterFactory<FunctionConfig> = {
  kind: 'function',
  configSchema: FunctionConfigSchema,
  create: (config) => new FunctionAgent(config),
};

/** What `functionAgent()` takes: the agent's name, description and function, plus any common agent setting. */
export type FunctionAgentOptions = {
  name: string;
  description?: string;
  ask: FunctionAsk;
  sites?: string[];
  itemTypes?: string[];
  /** Answer with a promise when the function has not finished after this long (ms). */
  promiseAfterMs?: number;
  /** Abort the function (its `signal`) after this long (ms). */
  timeoutMs?: number;
  /** A call lost with its replica may run again on another one (Redis store). */
  idempotent?: boolean;
  /** Refuse callers without credentials (needs an `auth` section). */
  requireAuth?: boolean;
  rateLimit?: { requests: number; windowMs: number };
};

/** The agent config entry of a function agent, to put in `createNlgate({ agents: [...] })`. */
export type FunctionAgentEntry = FunctionAgentOptions & { kind: 'function' };

/** Makes an agent config entry whose answers come from `ask` (issue 28). */
export function functionAgent(options: FunctionAgentOptions): FunctionAgentEntry {
  return { ...options, kind: 'function' };
}

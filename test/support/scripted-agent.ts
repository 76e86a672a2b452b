import { z } from 'zod';
import type { AdapterFactory, Agent, CallContext } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';

/**
 * A real in-process agent kind for core tests, driven by words in the query text:
 * `slow:<ms>` waits before answering (honouring abort), `count:<n>` returns n results,
 * `elicit` asks a question, `fail` ends with NO_RESULTS, `throw` throws mid-stream,
 * `progress` reports progress while slow, `upstream-promise:<k>` answers with its own promise
 * that completes after k check-ins. Every call is recorded in `calls` (request + context view).
 */
export interface ScriptedCall {
  /** The agent (config name) that took the call. */
  agent: string;
  request: AskRequest;
  conversation: CallContext['conversation'];
  credentials: CallContext['credentials'];
  aborted: boolean;
}

export const scriptedCalls: ScriptedCall[] = [];
const checkins = new Map<string, number>();

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
}

const arg = (text: string, word: string) => text.match(new RegExp(`${word}:(\\d+)`))?.[1];

async function* answer(request: AskRequest, ctx: CallContext, call: ScriptedCall): AsyncGenerator<AgentEvent> {
  const text = request.query.text;
  yield { type: 'start', meta: { agent_saw_prev: request.context?.prev ?? [] } };
  const slow = Number(arg(text, 'slow') ?? 0);
  try {
    if (slow > 0 && text.includes('progress')) {
      for (let i = 1; i <= 4; i++) {
        await sleep(slow / 4, ctx.signal);
        yield { type: 'progress', progress: i / 4, message: `step ${i}` };
      }
    } else if (slow > 0) await sleep(slow, ctx.signal);
  } catch (err) {
    call.aborted = true;
    throw err;
  }
  if (text.includes('upstream-promise')) {
    const token = `up_${Math.random().toString(36).slice(2)}`;
    checkins.set(token, Number(arg(text, 'upstream-promise') ?? 1));
    yield { type: 'promise', promise: { token, message: 'upstream working', progress: 0.1 } };
    return;
  }
  if (text.includes('elicit')) {
    yield { type: 'elicitation', elicitation: { text: 'Which sauce?', questions: [{ id: 'sauce', text: 'Sauce?', type: 'single_select', options: ['tomato', 'cream'] }] } };
    return;
  }
  if (text.includes('fail')) {
    yield { type: 'error', code: 'NO_RESULTS', message: 'nothing matched' };
    return;
  }
  const n = Number(arg(text, 'count') ?? 2);
  for (let i = 0; i < n; i++) {
    yield { type: 'result', item: { '@type': 'Thing', '@id': `urn:item:${i}`, name: `item ${i} for ${text}`, score: 1 - i / 10, site: 'scripted' } };
    if (text.includes('throw') && i === 0) throw new Error('adapter bug: secret-internal-detail');
  }
  const visits = Number(ctx.conversation?.upstreamSession?.visits ?? 0);
  yield { type: 'complete', meta: { session_context: { visits: visits + 1 } } };
}

class ScriptedAgent implements Agent {
  readonly kind = 'scripted';
  constructor(readonly name: string) {}
  async describe() {
    return {
      description: 'scripted test agent',
      sites: [`${this.name}.example`],
      tools: [{ name: 'echo', description: 'Echoes its arguments', inputSchema: { type: 'object', properties: { say: { type: 'string' } } } }],
    };
  }
  ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent> {
    const call: ScriptedCall = { agent: this.name, request, conversation: ctx.conversation, credentials: ctx.credentials, aborted: false };
    scriptedCalls.push(call);
    return answer(request, ctx, call);
  }
  async *await(token: string, action: 'checkin' | 'cancel'): AsyncIterable<AgentEvent> {
    const left = checkins.get(token);
    if (left === undefined) {
      yield { type: 'error', code: 'INVALID_QUERY', message: 'unknown upstream token' };
      return;
    }
    if (action === 'cancel') {
      checkins.delete(token);
      yield { type: 'error', code: 'CANCELLED', message: 'cancelled upstream' };
      return;
    }
    if (left > 1) {
      checkins.set(token, left - 1);
      yield { type: 'promise', promise: { token, progress: 0.5, message: 'still working' } };
      return;
    }
    checkins.delete(token);
    yield { type: 'result', item: { '@type': 'Thing', name: 'from upstream promise' } };
  }
  async callTool(name: string, args: Record<string, unknown>) {
    return { text: `echo ${JSON.stringify(args)}`, structured: { tool: name, args } };
  }
}

export const scriptedAdapter: AdapterFactory<Record<string, never>> = {
  kind: 'scripted',
  configSchema: z.object({}).strict() as unknown as z.ZodType<Record<string, never>>,
  create: (config) => new ScriptedAgent(config.name),
};

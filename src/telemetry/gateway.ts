import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { AskRequest, CanonicalResponse } from '../protocol/nlweb/index.ts';
import type { AskOptions, CallOptions, Gateway } from '../core/gateway-types.ts';
import type { RequestStates } from './request-state.ts';
import { delegateTo } from './delegate.ts';
import { tracer, tracingActive } from './tracing.ts';

/** NLWeb response types as request outcomes (`answer` is the success). */
const OUTCOME: Record<string, string> = { answer: 'success', promise: 'promise', elicitation: 'elicitation', failure: 'failure' };

/**
 * The core as the bindings see it, observed (issue 13): each core call gets a span (OTel GenAI
 * conventions: `invoke_agent` for ask, `execute_tool` for tool calls) and tells the HTTP metrics
 * which agent answered and how. The core itself knows nothing of this (design.md: core imports
 * nothing above it); with tracing off the only cost is the router lookup of the agent's name.
 */
export function instrumentGateway(gateway: Gateway, states: RequestStates): Gateway {
  const agentOf = (request: AskRequest | undefined, opts: CallOptions | undefined): string | undefined => {
    try {
      return gateway.resolveAgent(request, opts?.agent);
    } catch {
      return undefined; // an unknown agent: the core answers AGENT_NOT_FOUND itself
    }
  };
  const note = (opts: CallOptions | undefined, agent: string | undefined, outcome?: string) => {
    const state = states.get(opts?.requestId);
    if (!state) return;
    if (agent !== undefined) state.agent = agent;
    if (outcome !== undefined) state.outcome = outcome;
  };
  /** Tells the metrics how an answer came out, and hands it on (one `.then` a call: an async wrapper cost two promises more, issue 25). */
  const outcome = (opts: CallOptions | undefined, span: Span | undefined) => (response: CanonicalResponse) => {
    note(opts, undefined, responseOutcome(response, span));
    return response;
  };
  const overrides: Partial<Gateway> = {
    ask: (request: AskRequest, opts?: AskOptions) => {
      const agent = agentOf(request, opts);
      note(opts, agent);
      return traced('ask', agent, { 'gen_ai.operation.name': 'invoke_agent' }, (span) => gateway.ask(request, opts).then(outcome(opts, span)));
    },
    askStream: (request: AskRequest, opts?: CallOptions) => {
      const agent = agentOf(request, opts);
      note(opts, agent, 'success');
      return traced('ask', agent, { 'gen_ai.operation.name': 'invoke_agent', 'nlgate.streaming': true }, () => gateway.askStream(request, opts));
    },
    await: (request, opts?: CallOptions) =>
      traced('await', undefined, { 'nlgate.await.action': request.action }, (span) => gateway.await(request, opts).then(outcome(opts, span))),
    callTool: (agent: string, tool: string, args: Record<string, unknown>, opts?: CallOptions) => {
      note(opts, agent);
      return traced('execute_tool', agent, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool }, async (span) => {
        const result = await gateway.callTool(agent, tool, args, opts);
        note(opts, undefined, result.isError ? 'failure' : 'success');
        if (result.isError) span?.setStatus({ code: SpanStatusCode.ERROR });
        return result;
      });
    },
  };
  if (gateway.forward) {
    const forward = gateway.forward.bind(gateway);
    overrides.forward = (agent, protocol, method, params, opts) => {
      note(opts, agent);
      return traced('forward', agent, { 'mcp.method.name': method }, () => forward(agent, protocol, method, params, opts));
    };
  }
  return delegateTo(gateway, (key) => overrides[key as keyof Gateway] as ((...args: unknown[]) => unknown) | undefined);
}

/** The outcome of an NLWeb response; a failure marks the span as an error with its code. */
function responseOutcome(response: CanonicalResponse, span: Span | undefined): string {
  const type = response._meta.response_type;
  if (type === 'failure' && span) {
    const code = (response as { error?: { code?: string } }).error?.code;
    span.setStatus({ code: SpanStatusCode.ERROR, ...(code ? { message: code } : {}) });
    if (code) span.setAttribute('error.type', code);
  }
  return OUTCOME[type] ?? 'success';
}

/** Runs a core call in an internal span named `<operation> <agent>` when tracing is on; else just runs it. */
function traced<T>(operation: string, agent: string | undefined, attributes: Record<string, string | boolean>, call: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingActive()) return call(undefined);
  const name = agent ? `${operation} ${agent}` : `nlgate.${operation}`;
  return tracer().startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes: { ...attributes, ...(agent ? { 'gen_ai.agent.name': agent } : {}) } }, async (span) => {
    try {
      return await call(span);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof code === 'string' ? { message: code } : {}) });
      span.setAttribute('error.type', typeof code === 'string' ? code : 'INTERNAL_ERROR');
      throw err;
    } finally {
      span.end();
    }
  });
}

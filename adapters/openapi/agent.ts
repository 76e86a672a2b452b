import type { Agent, AgentDescription, CallContext, CommonAgentConfig, ToolResult } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import type { Logger } from '../../src/base/logger.ts';
import { UpstreamClient } from '../../src/core/upstream/index.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { createSchemaCompiler, InvalidSchemaError, type SchemaCheck } from '../../src/protocol/webtool/index.ts';
import { send } from './call.ts';
import type { OpenapiConfig } from './config.ts';
import { replyItems } from './items.ts';
import { operationsOf, type Operation } from './operations.ts';
import { buildRequest } from './request.ts';
import { DEFAULT_MAX_SPEC_BYTES, loadSpec, type OpenapiDocument, type SpecLocation } from './spec.ts';

/** The description once loaded: operations by tool name, the API's base URL, checks compiled on first use. */
interface Loaded {
  document: OpenapiDocument;
  description: string;
  operations: Map<string, Operation>;
  base: URL;
  schemes: Record<string, unknown>;
  checks(op: Operation): { input: SchemaCheck; output?: SchemaCheck };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The API's base URL: the configured one, else the spec's first server with its variables'
 * defaults, resolved against the spec's own URL (OpenAPI "Server Object"). Never from a client.
 */
export function baseUrlOf(agent: string, configured: string | undefined, doc: OpenapiDocument, where: SpecLocation): URL {
  if (configured) return new URL(configured);
  const server = Array.isArray(doc.servers) && isObj(doc.servers[0]) ? doc.servers[0] : { url: '/' };
  const vars = isObj(server.variables) ? server.variables : {};
  const raw = String(server.url ?? '/').replace(/\{([^{}]+)\}/g, (_m, name: string) => {
    const v = vars[name];
    return isObj(v) && v.default !== undefined ? String(v.default) : '';
  });
  let url: URL;
  try {
    url = 'url' in where ? new URL(raw, where.url) : new URL(raw);
  } catch {
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" has no usable server URL in its OpenAPI description: set baseUrl`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" has a server URL that is not http(s): set baseUrl`);
  return url;
}

/**
 * An HTTP API described by OpenAPI 3.0/3.1 as an agent: each allowed operation is a structured
 * tool, and `ask` calls the configured operation with the query text (docs/openapi.md).
 */
export class OpenapiAgent implements Agent {
  readonly kind = 'openapi';
  readonly name: string;
  private readonly http: UpstreamClient;
  private loading: Promise<Loaded> | undefined;

  constructor(
    private readonly config: OpenapiConfig & CommonAgentConfig,
    private readonly deps: { log: Logger; baseDir: string; upstream?: UpstreamClient },
  ) {
    this.name = config.name;
    this.http = deps.upstream ?? new UpstreamClient({ agent: config.name, kind: 'openapi' });
  }

  /** Lists the allowed operations as tools (loads and resolves the description once). */
  async describe(): Promise<AgentDescription> {
    const loaded = await this.load();
    return {
      description: loaded.description,
      tools: [...loaded.operations.values()].map((o) => o.tool),
      capabilities: { streaming: false },
    };
  }

  /** Calls one operation; unknown names are TOOL_NOT_FOUND, invalid arguments SCHEMA_ERROR (before any call). */
  async callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
    const loaded = await this.load();
    const op = loaded.operations.get(name);
    if (!op) throw new GatewayError('TOOL_NOT_FOUND', `Agent "${this.name}" has no operation "${name}"`);
    return this.run(loaded, op, args, ctx);
  }

  /** NLWeb ask: the query text goes to the `ask` operation's `query` input; its results become items. */
  async *ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent> {
    const loaded = await this.load();
    const mapping = this.config.ask;
    if (!mapping) {
      const names = [...loaded.operations.keys()].join(', ');
      throw new GatewayError('INVALID_QUERY', `Agent "${this.name}" answers only structured calls; call one of its operations as a tool: ${names}`);
    }
    const op = [...loaded.operations.values()].find((o) => o.operationId === mapping.operation);
    if (!op) throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.name}" has no operation "${mapping.operation}" to answer questions with`);
    yield { type: 'start' };
    const result = await this.run(loaded, op, this.askArguments(op, request), ctx);
    if (result.isError) {
      yield { type: 'error', code: 'INVALID_QUERY', message: result.text ?? 'The API refused the question' };
      return;
    }
    const reply = result.structured !== undefined ? result.structured : result.text;
    for (const item of replyItems(reply, op.operationId, mapping.results)) yield { type: 'result', item };
    yield { type: 'complete' };
  }

  /** Closes the connection pools this agent owns (none when the gateway's registry lends them). */
  async close(): Promise<void> {
    await this.http.close();
  }

  /** The query text under `ask.query`, plus the query's filters that name other inputs of the operation. */
  private askArguments(op: Operation, request: AskRequest): Record<string, unknown> {
    const inputs = (op.tool.inputSchema.properties ?? {}) as Obj;
    const queryKey = this.config.ask!.query;
    const args: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(request.query)) if (k !== 'text' && k !== queryKey && Object.hasOwn(inputs, k)) args[k] = v;
    if (!Object.hasOwn(inputs, queryKey) && !op.body) {
      throw new GatewayError('CONFIG_ERROR', `Agent "${this.name}" is configured to send questions as "${queryKey}", which operation "${op.tool.name}" does not take`);
    }
    if (queryKey === op.body?.key) args[queryKey] = request.query.text;
    else if (op.body && !Object.hasOwn(inputs, queryKey)) args[op.body.key] = { [queryKey]: request.query.text };
    else args[queryKey] = request.query.text;
    return args;
  }

  private async run(loaded: Loaded, op: Operation, args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
    const checks = loaded.checks(op);
    const bad = checks.input(args);
    if (bad) throw new GatewayError('SCHEMA_ERROR', `Operation "${op.tool.name}" of agent "${this.name}": ${bad}`, { details: { tool: op.tool.name } });
    const call = buildRequest(op, args, loaded.base, { credentials: this.config.auth ?? {}, schemes: loaded.schemes });
    for (const [k, v] of Object.entries(this.config.headers ?? {})) call.headers[k.toLowerCase()] = v;
    if (ctx.credentials?.authorization) call.headers.authorization = ctx.credentials.authorization;
    return send({
      http: this.http,
      agent: this.name,
      operation: op.tool.name,
      call,
      ...(checks.output ? { checkReply: checks.output } : {}),
      signal: ctx.signal,
      requestId: ctx.requestId,
      ...(this.config.timeoutMs ? { timeoutMs: this.config.timeoutMs } : {}),
      log: ctx.log,
    });
  }

  /** The description, loaded once; a failed load is tried again on the next call. */
  private load(): Promise<Loaded> {
    this.loading ??= this.loadOnce().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  private async loadOnce(): Promise<Loaded> {
    const { log, baseDir } = this.deps;
    const { document, location } = await loadSpec({ agent: this.name, spec: this.config.spec, baseDir, http: this.http, maxBytes: this.config.maxSpecBytes ?? DEFAULT_MAX_SPEC_BYTES, log });
    const { operations, skipped } = operationsOf(document, this.config.operations);
    for (const s of skipped) log.warn({ agent: this.name, operation: s.operation, reason: s.reason }, 'OpenAPI operation not offered');
    const info = isObj(document.info) ? document.info : {};
    const description = this.config.description ?? ([info.title, info.description].filter((t) => typeof t === 'string' && t !== '').join(': ') || this.name);
    const components = isObj(document.components) ? document.components : {};
    const compile = await createSchemaCompiler();
    const cache = new Map<string, { input: SchemaCheck; output?: SchemaCheck }>();
    const agent = this.name;
    return {
      document,
      description,
      operations: new Map(operations.map((o) => [o.tool.name, o])),
      base: baseUrlOf(this.name, this.config.baseUrl, document, location),
      schemes: isObj(components.securitySchemes) ? components.securitySchemes : {},
      checks(op) {
        let c = cache.get(op.tool.name);
        if (c) return c;
        try {
          const reply = op.tool.outputSchema ?? op.tool.resultSchema;
          c = { input: compile(op.tool.inputSchema, 'arguments'), ...(reply ? { output: compile(reply, 'reply') } : {}) };
        } catch (err) {
          if (err instanceof InvalidSchemaError) throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" describes operation "${op.tool.name}" with a schema that cannot be used`, { cause: err });
          throw err;
        }
        cache.set(op.tool.name, c);
        return c;
      },
    };
  }
}

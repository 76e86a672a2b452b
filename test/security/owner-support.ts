/**
 * Helpers for the issue-11 security suite: JSON calls as one caller or another (test/support/principals.ts),
 * a 2025 MCP session spoken by hand, and NLIP messages with tokens.
 */
import { expect } from 'vitest';
import { parseSseText } from '../support/http.ts';
import { alice, type Fetch } from '../support/principals.ts';

export { alice, bob, fetchFrom, type Fetch } from '../support/principals.ts';

/** A token shaped like the gateway's own that it never issued: what "unknown" looks like. */
export const NEVER_ISSUED = 'prm_AAAAAAAAAAAAAAAAAAAAAA';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs JSON as `who` and reads the JSON reply. */
export async function postJson(who: Fetch, url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await who(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** The parts of a reply a caller can tell apart: status and body (request ids and dates differ per request). */
export const visible = (r: Reply) => ({ status: r.status, body: r.body });

/** An NLIP text message with extra submessages (ECMA-430 5.1). */
export function nlipMessage(text: string, submessages: Array<Record<string, unknown>> = []): Record<string, unknown> {
  return { format: 'text', subformat: 'english', content: text, ...(submessages.length ? { submessages } : {}) };
}

/** The submessages of an NLIP reply with this format and subformat. */
export function partsOf(reply: any, format: string, subformat: string): any[] {
  return ((reply?.submessages ?? []) as any[]).filter((p) => p.format === format && p.subformat === subformat);
}

const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export interface RpcReply {
  status: number;
  message: { result?: Record<string, any>; error?: { code: number; message: string } } | undefined;
}

/** Reads the JSON-RPC reply with `id` from a JSON or SSE response. */
async function rpcReplyOf(res: Response, id: number | null): Promise<RpcReply> {
  const text = await res.text();
  if (!text) return { status: res.status, message: undefined };
  const messages = (res.headers.get('content-type') ?? '').includes('text/event-stream') ? parseSseText(text).map((e) => e.data) : [JSON.parse(text)];
  return { status: res.status, message: messages.find((m: any) => m && (m.id === id || id === null)) as RpcReply['message'] };
}

/** A 2025-era MCP session spoken by hand (raw JSON-RPC), as one caller. */
export class McpSession {
  private next = 1;
  constructor(
    readonly url: string,
    readonly id: string,
    private readonly who: Fetch,
    readonly protocolVersion = '2025-11-25',
  ) {}

  /** `initialize` as `who`; the session id the gateway issued. */
  static async open(url: string, who: Fetch = alice, capabilities: Record<string, unknown> = {}): Promise<McpSession> {
    const res = await McpSession.initialize(url, who, capabilities);
    expect(res.status).toBe(200);
    return new McpSession(url, res.sessionId!, who);
  }

  /** A raw `initialize`: its HTTP status, JSON-RPC reply and session id (if one was issued). */
  static async initialize(url: string, who: Fetch, capabilities: Record<string, unknown>): Promise<RpcReply & { sessionId: string | null }> {
    const res = await who(url, {
      method: 'POST',
      headers: JSON_AND_SSE,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'security', version: '1' } } }),
    });
    const sessionId = res.headers.get('mcp-session-id');
    return { ...(await rpcReplyOf(res, res.status === 200 ? 0 : null)), sessionId };
  }

  /** The same session id used by another caller. */
  as(who: Fetch): McpSession {
    return new McpSession(this.url, this.id, who, this.protocolVersion);
  }

  private headers(): Record<string, string> {
    return { ...JSON_AND_SSE, 'mcp-session-id': this.id, 'mcp-protocol-version': this.protocolVersion };
  }

  async rpc(method: string, params: Record<string, unknown> = {}): Promise<RpcReply> {
    const id = this.next++;
    const res = await this.who(this.url, { method: 'POST', headers: this.headers(), body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
    return rpcReplyOf(res, res.status === 200 ? id : null);
  }

  /** `tools/call` of `name`; `task` makes it a task-augmented call. */
  call(name: string, args: Record<string, unknown>, task?: Record<string, unknown>): Promise<RpcReply> {
    return this.rpc('tools/call', { name, arguments: args, ...(task ? { task } : {}) });
  }

  /** `DELETE` of the session (MCP "Session Management"). */
  async remove(): Promise<RpcReply> {
    const res = await this.who(this.url, { method: 'DELETE', headers: this.headers() });
    return rpcReplyOf(res, null);
  }

  /** `GET` of the session's server stream: only its status (the stream is cancelled at once). */
  async listenStatus(): Promise<number> {
    const controller = new AbortController();
    const res = await this.who(this.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': this.id, 'mcp-protocol-version': this.protocolVersion }, signal: controller.signal });
    const status = res.status;
    controller.abort();
    await res.body?.cancel().catch(() => undefined);
    return status;
  }
}

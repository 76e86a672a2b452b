import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenRaw, readBody, type TestServer } from '../support/http.ts';

/**
 * A small, real NLIP server agent for tests, written independently of the gateway's NLIP code and
 * as strict as the Python reference server: lowercase keys only (PascalCase gets 422), `format`,
 * `subformat`, `content` required. It behaves like deployed servers do:
 * - `POST /nlip` answers 307 to `/nlip/` (FastAPI's trailing-slash redirect), `/old/nlip/` 308 to `/nlip/`;
 * - a session cookie `sid` holds the turn count (a cookie-kept session);
 * - it mints its own conversation token (`conversation_nlipagent`) and expects it echoed;
 * - words in the question drive it: `slow` (a promise token, done after one check-in), `fail`
 *   (an error), `elicit` (questions), `secret` (needs an `authentication` token: 6.5), `redirect-away`
 *   (a 307 to another origin), `garbage` (a body that is not NLIP).
 */

export interface ReceivedMessage {
  body: Record<string, any>;
  headers: IncomingMessage['headers'];
  path: string;
}

export interface NlipTestAgent extends TestServer {
  received: ReceivedMessage[];
  /** Tokens this agent minted, and whether each later came back. */
  minted: Set<string>;
}

const FORMATS = ['text', 'token', 'structured', 'binary', 'location', 'error', 'generic'];

function reject(res: ServerResponse, status: number, detail: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ detail }));
}

/** Strict like pydantic on lowercase fields: returns an error text or null. */
function strictCheck(part: Record<string, unknown>, where: string): string | null {
  for (const k of ['format', 'subformat', 'content']) if (!(k in part)) return `${where}.${k}: field required`;
  if (!FORMATS.includes(String(part.format))) return `${where}.format: not allowed`;
  if (typeof part.subformat !== 'string') return `${where}.subformat: not a string`;
  if (typeof part.content !== 'string' && (typeof part.content !== 'object' || part.content === null || Array.isArray(part.content))) {
    return `${where}.content: must be str or dict`;
  }
  return null;
}

const sub = (format: string, subformat: string, content: unknown, label?: string) => ({ format, subformat, content, ...(label ? { label } : {}) });

/** The agent's state and its node:http handler (serve it anywhere). */
export function createNlipTestAgent(): Pick<NlipTestAgent, 'received' | 'minted'> & { handler: (req: IncomingMessage, res: ServerResponse) => void } {
  const received: ReceivedMessage[] = [];
  const minted = new Set<string>();
  const sessions = new Map<string, number>();
  const pending = new Set<string>();

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    if (req.method === 'POST' && path === '/nlip') {
      res.writeHead(307, { location: '/nlip/' }).end();
      return;
    }
    if (req.method === 'POST' && path === '/old/nlip/') {
      res.writeHead(308, { location: '/nlip/', 'set-cookie': 'moved=yes; Path=/' }).end();
      return;
    }
    if (req.method !== 'POST' || path !== '/nlip/') return reject(res, 404, 'Not Found');
    let body: Record<string, any>;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return reject(res, 400, 'invalid JSON');
    }
    const problem =
      strictCheck(body, 'body') ?? ((body.submessages ?? []) as Record<string, unknown>[]).map((s, i) => strictCheck(s, `submessages.${i}`)).find((p) => p);
    if (problem) return reject(res, 422, problem);
    received.push({ body, headers: req.headers, path });

    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const session = sid && sessions.has(sid) ? sid : randomBytes(8).toString('hex');
    const turn = (sessions.get(session) ?? 0) + 1;
    sessions.set(session, turn);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (session !== sid) headers['set-cookie'] = `sid=${session}; Path=/; HttpOnly`;

    const subs = (body.submessages ?? []) as Array<Record<string, any>>;
    const text = [body, ...subs].filter((p) => p.format === 'text' && typeof p.content === 'string').map((p) => p.content).join(' ');
    const convTokens = subs.filter((p) => p.format === 'token' && String(p.subformat).startsWith('conversation'));
    const promise = subs.find((p) => p.format === 'token' && p.subformat === 'promise')?.content as string | undefined;
    const auth = subs.find((p) => p.format === 'token' && p.subformat === 'authentication')?.content;
    let token = convTokens.find((t) => t.subformat === 'conversation_nlipagent')?.content as string | undefined;
    if (!token) {
      token = `agent-${randomBytes(12).toString('base64url')}`;
      minted.add(token);
    }
    // 6.2: echo every conversation token received, add our own.
    const tokens = [...convTokens.filter((t) => t.subformat !== 'conversation_nlipagent'), sub('token', 'conversation_nlipagent', token)];
    const send = (msg: Record<string, unknown>) => res.writeHead(200, headers).end(JSON.stringify(msg));
    const reply = (content: string, extra: unknown[] = []) =>
      send({ messagetype: null, format: 'text', subformat: 'english', content, label: null, submessages: [...extra, ...tokens] });

    if (body.messagetype === 'control' && text === 'cancel') {
      pending.delete(String(promise));
      return send({ messagetype: 'control', format: 'text', subformat: 'english', content: 'cancelled' });
    }
    if (promise !== undefined) {
      if (!pending.delete(promise)) return reply('unknown promise', [sub('error', 'code', 'INVALID_QUERY')]);
      return reply(`slow answer ready (turn ${turn})`, [sub('structured', 'json', { '@type': 'Thing', name: 'the slow result' }, 'r1')]);
    }
    if (text.includes('garbage')) return res.writeHead(200, headers).end('<html>oops</html>');
    if (text.includes('redirect-away')) return res.writeHead(307, { location: 'http://127.0.0.2:9/nlip/' }).end();
    if (text.includes('secret') && auth !== 'Bearer upstream-secret') {
      return send({ messagetype: 'control', format: 'text', subformat: 'english', content: 'Authentication required: send a token with subformat authentication' });
    }
    if (text.includes('slow')) {
      const p = `p-${randomBytes(8).toString('hex')}`;
      pending.add(p);
      return reply('working on it', [sub('token', 'promise', p)]);
    }
    if (text.includes('fail')) return reply('nothing matched that', [sub('error', 'code', 'NO_RESULTS')]);
    if (text.includes('elicit')) {
      return reply('Which sauce?', [sub('structured', 'json', { questions: [{ id: 'sauce', text: 'Sauce?', type: 'single_select', options: ['tomato', 'cream'] }] }, 'elicitation')]);
    }
    const binaries = subs.filter((p) => p.format === 'binary').map((p) => p.subformat);
    const context = subs.find((p) => p.format === 'structured' && p.label === 'context')?.content;
    const items = [
      sub('structured', 'json', { '@type': 'Thing', '@id': 'urn:nlip:1', name: `first answer to ${text}`, score: 0.9, site: 'nlip-test' }, 'r1'),
      sub('structured', 'json', JSON.stringify({ '@type': 'Thing', '@id': 'urn:nlip:2', name: 'second answer', turn, binaries, context: context ?? null }), 'r2'),
    ];
    return reply(`You asked "${text}" (turn ${turn} of this session)`, items);
  };
  return { handler: (req, res) => void handler(req, res), received, minted };
}

/** Starts the agent on a free loopback port. */
export async function startNlipTestAgent(): Promise<NlipTestAgent> {
  const { handler, received, minted } = createNlipTestAgent();
  const server = await listenRaw(handler);
  return { ...server, received, minted };
}

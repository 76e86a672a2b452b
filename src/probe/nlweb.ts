/**
 * Probes for NLWeb: v0.55 / v0.54 `POST /ask` (interop.md: scanners POST /ask and expect `_meta`),
 * and the older REST API generations A, B and C (interop.md "the older REST API" table).
 */
import { baseOf, isObject, jsonOf, probeRequest, sseData, type ProbeHttp } from './http.ts';
import type { Finding } from './finding.ts';

const ENDPOINTS = ['/ask', '/await', '/sites', '/mcp'];

/** NLWeb v0.55/v0.54 (spec 3, 7): a JSON `POST /ask` answered with `_meta.response_type`. */
export async function probeNlweb(url: string, http: ProbeHttp): Promise<Finding | undefined> {
  const base = baseOf(url, ENDPOINTS);
  const seen = await probeRequest(
    `${base}/ask`,
    { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query: { text: 'hello' }, prefer: { streaming: false } }) },
    http,
  );
  if (!seen) return undefined;
  const body = seen.contentType.includes('event-stream') ? sseData(seen.text)[0] : jsonOf(seen.text);
  const meta = isObject(body) && isObject(body._meta) ? body._meta : undefined;
  if (!meta || typeof meta.response_type !== 'string') return undefined;
  const version = String(meta.version ?? meta.api_version ?? '');
  // v0.54 says `api_version` and capitalises response types ("Answer"); v0.55 says `version`.
  const v054 = version.startsWith('0.54') || (meta.version === undefined && /^[A-Z]/.test(meta.response_type));
  return {
    protocol: v054 ? 'NLWeb v0.54' : 'NLWeb v0.55',
    evidence: `POST ${base}/ask answered _meta.response_type "${meta.response_type}"${version ? `, version ${version}` : ''}`,
    agent: { kind: 'nlweb', url: base, ...(v054 ? { version: '0.54' } : {}) },
  };
}

/** The older NLWeb REST API: `GET /ask?query=…`; C answers a JSON array, A/B an object; A ignores a POST body. */
export async function probeNlwebLegacy(url: string, http: ProbeHttp): Promise<Finding | undefined> {
  const base = baseOf(url, ENDPOINTS);
  const seen = await probeRequest(`${base}/ask?query=hello&streaming=false`, { method: 'GET', headers: { accept: 'application/json' } }, http);
  if (!seen || seen.status !== 200) return undefined;
  const body = jsonOf(seen.text);
  let generation: 'A' | 'B' | 'C';
  if (Array.isArray(body) && body.some((m) => isObject(m) && typeof m.message_type === 'string')) generation = 'C';
  else if (isObject(body) && Array.isArray(body.results)) {
    // Generation B also reads a POST JSON body; A reads only the query string (400 without one).
    const post = await probeRequest(
      `${base}/ask`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hello', streaming: 'false' }) },
      http,
    );
    generation = post?.status === 200 && isObject(jsonOf(post.text)) ? 'B' : 'A';
  } else return undefined;
  return {
    protocol: `NLWeb REST API (older), generation ${generation}`,
    evidence: `GET ${base}/ask answered ${generation === 'C' ? 'a JSON array of message_type frames' : `{"results": [...]}`}${generation === 'C' ? '' : generation === 'B' ? ' and reads a POST body' : ' and ignores a POST body'}`,
    agent: { kind: 'nlweb-legacy', url: base, generation },
  };
}

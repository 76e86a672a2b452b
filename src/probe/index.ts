/**
 * `nlgate probe <url>` (issue 13, item 7): finds out which protocol an agent speaks and writes the
 * agent entry that fronts it. Probes run in order from the least to the most intrusive: GETs that read
 * metadata first, then the POSTs that ask a question ("hello").
 */
import { stringify } from 'yaml';
import type { Finding } from './finding.ts';
import type { ProbeHttp } from './http.ts';
import { probeNlweb, probeNlwebLegacy } from './nlweb.ts';
import { probeMcpHttp, probeMcpSse, probeNlip, probeWebtool } from './others.ts';

export type { Finding } from './finding.ts';

/** Each probe with the protocol it looks for, in the order they run. */
export const PROBES: ReadonlyArray<{ looksFor: string; run: (url: string, http: ProbeHttp) => Promise<Finding | undefined> }> = [
  { looksFor: 'webtool (GET metadata)', run: probeWebtool },
  { looksFor: 'MCP over HTTP+SSE (GET /sse)', run: probeMcpSse },
  { looksFor: 'NLWeb v0.55 / v0.54 (POST /ask)', run: probeNlweb },
  { looksFor: 'NLWeb REST API, generations A/B/C (GET /ask)', run: probeNlwebLegacy },
  { looksFor: 'NLIP (POST /nlip/)', run: probeNlip },
  { looksFor: 'MCP over Streamable HTTP (POST initialize)', run: probeMcpHttp },
];

/** Runs the probes against `url` until one recognises the agent; undefined when none does. */
export async function probe(url: string, http: ProbeHttp = { timeoutMs: 5000 }): Promise<Finding | undefined> {
  for (const p of PROBES) {
    const found = await p.run(url, http);
    if (found) return found;
  }
  return undefined;
}

/** The agent entry for a config file's `agents:` list, as YAML (common fields first). */
export function configBlock(found: Finding, name: string): string {
  const { kind, ...rest } = found.agent;
  return stringify({ agents: [{ name, kind, ...rest }] }).trimEnd();
}

/**
 * The check itself, against an NLWeb server already running: every front of a gateway standing
 * before it (through the recording proxy), next to what the server answers directly, as a table.
 */
import { startGateway } from '../../test/support/gateway.ts';
import { FRONTS, describeSeen, gatewayAgents } from '../../test/legacy/real-nlweb/fronts.ts';
import type { Exchange } from '../../test/legacy/real-nlweb/exchanges.ts';
import { startRecorder } from './recorder.ts';

export interface Row {
  path: string;
  direct: string;
  through: string;
  verdict: 'ok' | 'FAIL';
}

/** What the server answers directly, in a line: its message types, counted, and the first result. */
async function direct(nlweb: string, spec: string): Promise<string> {
  if (spec.startsWith('POST /mcp')) {
    const res = await fetch(`${nlweb}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { query: 'vegan chili', generate_mode: 'summarize' } } }),
    });
    const body = (await res.json()) as { result?: { content?: Array<{ text: string }> } };
    const text = body.result?.content?.[0]?.text ?? '';
    return `one text item of ${text.length} chars: ${[...new Set(text.match(/"message_type": ?"\w+"/g) ?? [])].map((m) => m.split('"')[3]).join(',')}`;
  }
  const res = await fetch(`${nlweb}${spec.replace(/ /g, '%20')}`);
  const text = await res.text();
  const messages: Array<Record<string, any>> = text.trimStart().startsWith('{')
    ? Object.entries(JSON.parse(text) as Record<string, any>).map(([k, v]) => (k === 'results' ? { message_type: 'results', results: v } : { message_type: k, ...v }))
    : text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(m.message_type, (counts.get(m.message_type) ?? 0) + 1);
  const first = messages.flatMap((m) => m.results ?? m.content ?? m.items ?? []).find((r: any) => r && typeof r === 'object' && r.name);
  const types = [...counts].map(([k, n]) => (n > 1 ? `${k}×${n}` : k)).join(',');
  return `${res.status} ${types}${first ? `; first "${first.name}" score ${first.score}` : ''}`;
}

export async function runCheck(nlweb: string, log: (line: string) => void = () => {}): Promise<{ rows: Row[]; exchanges: Exchange[] }> {
  const recorder = await startRecorder(nlweb);
  const gw = await startGateway({ agents: gatewayAgents(recorder.url) });
  const rows: Row[] = [];
  try {
    for (const front of FRONTS) {
      log(`asking: ${front.name}`);
      const d = await direct(nlweb, front.direct).catch((e) => `failed: ${e}`);
      let through: string;
      let verdict: Row['verdict'] = 'ok';
      try {
        const seen = await front.ask(gw.url);
        through = describeSeen(seen);
        const top = seen.items[0];
        if (!top || !top.name || !top.url || !top.type || top.type === 'Thing' || !top.description) verdict = 'FAIL';
        if (front.scored !== false && top?.score === undefined) verdict = 'FAIL';
        if (seen.notes.some((n) => /error|failure|dropped|bad lines/.test(n))) verdict = 'FAIL';
      } catch (e) {
        through = `threw: ${String(e).slice(0, 120)}`;
        verdict = 'FAIL';
      }
      rows.push({ path: front.name, direct: d, through, verdict });
    }
  } finally {
    await gw.close();
    await recorder.close();
  }
  return { rows, exchanges: recorder.exchanges };
}

export function table(rows: Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
  return [
    '| path | NLWeb answered directly | the client got through nlgate | verdict |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${esc(r.path)} | ${esc(r.direct)} | ${esc(r.through)} | ${r.verdict} |`),
  ].join('\n');
}

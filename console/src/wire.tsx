import type { ClientExchange, TurnView, UpstreamExchange } from './model.ts';

const headerLines = (h: Record<string, string> | undefined) => Object.entries(h ?? {}).map(([k, v]) => `${k}: ${v}`).join('\n');

/** Pretty-prints a JSON body; SSE and other text stay as they came. */
function pretty(body: string | undefined): string {
  if (!body) return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Exchange({ ex, title, open }: { ex: ClientExchange | UpstreamExchange; title: string; open: boolean }) {
  const status = ex.status !== undefined ? `HTTP ${ex.status}` : ex.error ? 'failed' : 'waiting…';
  return (
    <details class="exchange" open={open}>
      <summary>
        <span class="ex-title">{title}</span> <code>{ex.method} {ex.url}</code> <span class="ex-status">{status}</span>
      </summary>
      <h4>Request</h4>
      <pre>{headerLines(ex.requestHeaders)}{ex.requestBody ? `\n\n${pretty(ex.requestBody)}` : ''}</pre>
      <h4>Response</h4>
      <pre>{headerLines(ex.responseHeaders)}{ex.responseBody ? `\n\n${pretty(ex.responseBody)}` : ''}{'truncated' in ex && ex.truncated ? '\n… (cut at the capture limit)' : ''}{ex.error ? `\n(${ex.error})` : ''}</pre>
    </details>
  );
}

/** Both wires of a turn side by side: browser ↔ gateway, and gateway ↔ upstream (redacted). */
export function WireView({ turn, inProcess }: { turn: TurnView; inProcess: boolean }) {
  return (
    <section class="wires" aria-label="Both wires">
      <div class="wire wire-client">
        <h3>Client wire <small>(browser ↔ gateway)</small></h3>
        {turn.exchanges.map((ex, i) => (
          <Exchange key={i} ex={ex} title={`#${i + 1}`} open={i === 0 || i === turn.exchanges.length - 1} />
        ))}
      </div>
      <div class="wire wire-upstream">
        <h3>Upstream wire <small>(gateway ↔ agent, secrets redacted)</small></h3>
        {inProcess ? (
          <p class="note">No upstream wire (in-process agent).</p>
        ) : turn.upstream === undefined ? (
          <p class="note">Loading…</p>
        ) : turn.upstream.length === 0 ? (
          <p class="note">No upstream exchange was captured for this call.</p>
        ) : (
          turn.upstream.map((ex, i, all) => <Exchange key={ex.id} ex={ex} title={`${ex.agent} #${i + 1}`} open={i === 0 || i === all.length - 1} />)
        )}
      </div>
    </section>
  );
}

import { ResultCard } from './cards.tsx';
import { ElicitationForm } from './elicit.tsx';
import { PROTOCOLS, type TurnView } from './model.ts';
import type { Answers } from './turn.ts';
import { WireView } from './wire.tsx';

const STATUS: Record<TurnView['status'], string> = {
  running: 'Asking…',
  promise: 'Working (promise)',
  done: 'Answered',
  elicitation: 'The agent asks a question',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** One question and its answer: summary first, then cards, promise, elicitation or failure, then both wires. */
export function TurnCard({ turn, inProcess, onCancel, onAnswer, busy }: { turn: TurnView; inProcess: boolean; onCancel(): void; onAnswer(a: Answers): void; busy: boolean }) {
  const protocol = PROTOCOLS.find((p) => p.id === turn.protocol)?.label ?? turn.protocol;
  return (
    <section class={`turn turn-${turn.status}`} aria-label={`Question: ${turn.query}`}>
      <header class="turn-head">
        <h2 class="turn-query">{turn.query}</h2>
        <p class="turn-meta">
          {turn.agent} · {protocol} · <span class="turn-status">{STATUS[turn.status]}</span>
        </p>
      </header>
      <div class="answer" aria-live="polite" aria-busy={turn.status === 'running'}>
        {turn.summary && <p class="summary">{turn.summary}</p>}
        {turn.results.length > 0 && (
          <div class="cards">
            {turn.results.map((item, i) => (
              <ResultCard key={i} item={item} index={i} />
            ))}
          </div>
        )}
        {turn.status === 'promise' && turn.promise && (
          <div class="promise" role="status">
            <p>
              Promise <code>{turn.promise.token.slice(0, 12)}…</code> {turn.promise.message ?? 'working'}
            </p>
            <progress max={1} value={turn.promise.progress ?? undefined} aria-label="Progress" />
            <button type="button" class="cancel" onClick={onCancel}>
              Cancel
            </button>
          </div>
        )}
        {turn.failure && (
          <p class="failure" role="alert">
            <strong>{turn.failure.code}</strong> {turn.failure.message ?? ''}
          </p>
        )}
      </div>
      {turn.status === 'elicitation' && turn.elicitation && <ElicitationForm elicitation={turn.elicitation} onAnswer={onAnswer} disabled={busy} />}
      <details class="wires-toggle" open>
        <summary>Both wires</summary>
        <WireView turn={turn} inProcess={inProcess} />
      </details>
    </section>
  );
}

import { useState } from 'preact/hooks';
import type { Elicitation, Question } from './model.ts';
import type { Answers } from './turn.ts';

function Field({ q, value, set }: { q: Question; value: unknown; set(v: unknown): void }) {
  const id = `q-${q.id}`;
  if (q.type === 'single_select' && q.options)
    return (
      <fieldset>
        <legend>{q.text}</legend>
        {q.options.map((o) => (
          <label key={o} class="choice">
            <input type="radio" name={id} value={o} checked={value === o} onChange={() => set(o)} /> {o}
          </label>
        ))}
      </fieldset>
    );
  if (q.type === 'multi_select' && q.options) {
    const chosen = Array.isArray(value) ? (value as string[]) : [];
    return (
      <fieldset>
        <legend>{q.text}</legend>
        {q.options.map((o) => (
          <label key={o} class="choice">
            <input type="checkbox" value={o} checked={chosen.includes(o)} onChange={(e) => set((e.currentTarget as HTMLInputElement).checked ? [...chosen, o] : chosen.filter((c) => c !== o))} /> {o}
          </label>
        ))}
      </fieldset>
    );
  }
  if (q.type === 'boolean')
    return (
      <label class="choice">
        <input type="checkbox" checked={value === true} onChange={(e) => set((e.currentTarget as HTMLInputElement).checked)} /> {q.text}
      </label>
    );
  return (
    <label class="field">
      {q.text}
      {q.type === 'number' ? (
        <input type="number" value={value === undefined ? '' : String(value)} onInput={(e) => set(Number((e.currentTarget as HTMLInputElement).value))} />
      ) : (
        <input type="text" value={value === undefined ? '' : String(value)} onInput={(e) => set((e.currentTarget as HTMLInputElement).value)} />
      )}
    </label>
  );
}

/** An elicitation (NLWeb v0.55 4.1.3) as a small form; its answers continue the call. */
export function ElicitationForm({ elicitation, onAnswer, disabled }: { elicitation: Elicitation; onAnswer(a: Answers): void; disabled: boolean }) {
  const questions = elicitation.questions ?? [];
  const [answers, setAnswers] = useState<Answers>(() => Object.fromEntries(questions.filter((q) => q.default !== undefined).map((q) => [q.id, q.default])));
  const [free, setFree] = useState('');
  return (
    <form
      class="elicitation"
      aria-label="The agent asks"
      onSubmit={(e) => {
        e.preventDefault();
        onAnswer(questions.length > 0 ? answers : { reply: free });
      }}
    >
      {elicitation.text && <p>{elicitation.text}</p>}
      {questions.map((q) => (
        <Field key={q.id} q={q} value={answers[q.id]} set={(v) => setAnswers({ ...answers, [q.id]: v })} />
      ))}
      {questions.length === 0 && (
        <label class="field">
          Your answer
          <input type="text" value={free} onInput={(e) => setFree((e.currentTarget as HTMLInputElement).value)} />
        </label>
      )}
      <button type="submit" disabled={disabled}>
        Answer
      </button>
    </form>
  );
}

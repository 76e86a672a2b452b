import { useState } from 'preact/hooks';

// The server's own type (type-only: nothing of the server is bundled into the page).
import type { ConsoleAgent } from '../../src/console/agents.ts';

export type { ConsoleAgent };

function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 1500);
    } catch {
      setDone(false);
    }
  };
  return (
    <button type="button" class="copy" onClick={copy} aria-label={`Copy ${label} URL`}>
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

/** The agent list (issue 14): kind, description, sites, tools and every endpoint, with copy buttons. */
export function AgentList({ agents, selected, onSelect }: { agents: ConsoleAgent[]; selected: string; onSelect(name: string): void }) {
  return (
    <ul class="agents" aria-label="Agents">
      {agents.map((a) => (
        <li key={a.name} class={a.name === selected ? 'agent selected' : 'agent'}>
          <button type="button" class="agent-pick" aria-pressed={a.name === selected} onClick={() => onSelect(a.name)}>
            <strong>{a.name}</strong> <span class="kind">{a.kind}</span>
            {a.requireAuth && <span class="badge">auth</span>}
          </button>
          <p>{a.description}</p>
          {a.sites.length > 0 && <p class="sites">Sites: {a.sites.join(', ')}</p>}
          {a.tools.length > 0 && <p class="tools">Tools: {a.tools.map((t) => t.name).join(', ')}</p>}
          <details>
            <summary>Endpoints</summary>
            <dl class="endpoints">
              {Object.entries(a.endpoints).map(([k, url]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>
                    <code>{url}</code> <CopyButton text={url} label={`${a.name} ${k}`} />
                  </dd>
                </div>
              ))}
            </dl>
          </details>
        </li>
      ))}
    </ul>
  );
}

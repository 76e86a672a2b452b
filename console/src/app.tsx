import { useEffect, useRef, useState } from 'preact/hooks';
import { AgentList, type ConsoleAgent } from './agents.tsx';
import { TurnCard } from './turn-card.tsx';
import { PROTOCOLS, type ConversationState, type Item, type Protocol, type TurnHooks, type TurnView } from './model.ts';
import { runTurn, withAnswers, type Answers } from './turn.ts';
import { gatewayUrl } from './wire-fetch.ts';

const KEY_STORAGE = 'nlgate-console-api-key';
const freshConversation = (): ConversationState => ({ prev: [] });
let nextTurnId = 1;

/** Reads the upstream wire of every request a turn made (/console/api/wire/:requestId). */
async function loadUpstream(turn: TurnView, authorization?: string) {
  const ids = [...new Set(turn.exchanges.map((e) => e.requestId).filter((id): id is string => !!id))];
  const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
  const lists = await Promise.all(
    ids.map(async (id) => {
      const res = await fetch(gatewayUrl(`/console/api/wire/${encodeURIComponent(id)}`), { headers });
      return res.ok ? ((await res.json()).exchanges as TurnView['upstream']) ?? [] : [];
    }),
  );
  return lists.flat();
}

/** The console (issue 14): pick an agent and a protocol, ask, and see the answer and both wires. */
export function App() {
  const [agents, setAgents] = useState<ConsoleAgent[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [agent, setAgent] = useState('');
  const [protocol, setProtocol] = useState<Protocol>('nlweb-json');
  const [query, setQuery] = useState('');
  const [turns, setTurns] = useState<TurnView[]>([]);
  const [busy, setBusy] = useState(false);
  const [apiKey, setApiKey] = useState(() => sessionStorage.getItem(KEY_STORAGE) ?? '');
  const [authConfigured, setAuthConfigured] = useState(false);
  const conv = useRef<ConversationState>(freshConversation());
  const cancelRef = useRef<(() => void) | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const authorization = apiKey ? `Bearer ${apiKey}` : undefined;

  const loadAgents = async () => {
    const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
    try {
      const [a, s] = await Promise.all([fetch(gatewayUrl('/console/api/agents'), { headers }), fetch(gatewayUrl('/console/api/session'), { headers })]);
      if (s.ok) setAuthConfigured(Boolean((await s.json()).authConfigured));
      if (!a.ok) throw new Error(`HTTP ${a.status}`);
      const list = (await a.json()).agents as ConsoleAgent[];
      setAgents(list);
      setLoadError(null);
      setAgent((cur) => (cur && list.some((x) => x.name === cur) ? cur : list[0]?.name ?? ''));
    } catch (err) {
      if (String(err).includes('401')) setAuthConfigured(true);
      setLoadError(`Could not load the agents (${String((err as Error).message ?? err)})`);
    }
  };
  useEffect(() => void loadAgents(), []);

  const saveKey = (key: string) => {
    setApiKey(key);
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  };

  const newConversation = () => {
    abortRef.current?.abort();
    conv.current = freshConversation();
    setTurns([]);
  };

  const ask = async (text: string, answers?: Answers) => {
    if (!text.trim() || !agent || busy) return;
    const id = nextTurnId++;
    const view: TurnView = { id, protocol, agent, query: text, status: 'running', results: [], exchanges: [] };
    const set = (patch: Partial<TurnView>) => {
      Object.assign(view, patch);
      setTurns((ts) => ts.map((t) => (t.id === id ? { ...view } : t)));
    };
    const abort = new AbortController();
    abortRef.current = abort;
    let cancel!: () => void;
    const cancelled = new Promise<void>((r) => (cancel = r));
    cancelRef.current = cancel;
    const hooks: TurnHooks = {
      update: set,
      addResult: (item: Item) => set({ results: [...view.results, item] }),
      exchange: (ex) => {
        view.exchanges = [...view.exchanges, ex];
        set({});
        return ex;
      },
      changed: () => set({ exchanges: [...view.exchanges] }),
      signal: abort.signal,
      cancelled,
      ...(authorization ? { authorization } : {}),
    };
    setTurns((ts) => [...ts, { ...view }]);
    setBusy(true);
    setQuery('');
    await runTurn(protocol, agent, text, conv.current, hooks, answers);
    if (view.status === 'running') set({ status: 'done' });
    // A 401 anywhere means the gateway wants a credential: offer the API key field.
    if (view.exchanges.some((e) => e.status === 401)) setAuthConfigured(true);
    setBusy(false);
    cancelRef.current = null;
    const current = agents?.find((a) => a.name === agent);
    if (!current?.inProcess) set({ upstream: await loadUpstream(view, authorization).catch(() => []) });
  };

  const current = agents?.find((a) => a.name === agent);
  return (
    <div class="layout">
      <header class="top">
        <h1>nlgate console</h1>
        <p class="tagline">Ask any agent on any protocol, and see both wires.</p>
        {(authConfigured || apiKey) && (
          <form class="apikey" onSubmit={(e) => (e.preventDefault(), void loadAgents())}>
            <label>
              API key <small>(kept for this browser session only)</small>
              <input type="password" autocomplete="off" value={apiKey} onInput={(e) => saveKey((e.currentTarget as HTMLInputElement).value)} />
            </label>
            <button type="submit">Use key</button>
          </form>
        )}
      </header>
      <aside class="side">
        <h2>Agents</h2>
        {loadError && <p role="alert" class="failure">{loadError}</p>}
        {agents ? <AgentList agents={agents} selected={agent} onSelect={setAgent} /> : !loadError && <p>Loading…</p>}
      </aside>
      <main class="main">
        <form
          class="ask"
          onSubmit={(e) => {
            e.preventDefault();
            void ask(query);
          }}
        >
          <label>
            <span>Agent</span>
            <select id="agent-select" aria-label="Agent" value={agent} onChange={(e) => setAgent((e.currentTarget as HTMLSelectElement).value)}>
              {(agents ?? []).map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name} ({a.kind})
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Protocol</span>
            <select id="protocol-select" aria-label="Protocol" value={protocol} onChange={(e) => setProtocol((e.currentTarget as HTMLSelectElement).value as Protocol)}>
              {PROTOCOLS.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
          <label class="question">
            <span>Question</span>
            <input type="text" aria-label="Question" value={query} placeholder="e.g. quick vegetarian pasta" onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <div class="ask-buttons">
            <button type="submit" disabled={busy || !agent}>
              {turns.length > 0 ? 'Ask follow-up' : 'Ask'}
            </button>
            <button type="button" onClick={newConversation} disabled={turns.length === 0}>
              New conversation
            </button>
          </div>
        </form>
        <div class="turns">
          {turns.map((t) => (
            <TurnCard
              key={t.id}
              turn={t}
              inProcess={agents?.find((a) => a.name === t.agent)?.inProcess ?? false}
              onCancel={() => cancelRef.current?.()}
              onAnswer={(answers) => {
                const reply = (t.elicitation?.questions ?? []).length === 0 ? `${t.query} (${String(answers.reply ?? '')})` : withAnswers(t.query, t.elicitation, answers);
                void ask(reply, answers);
              }}
              busy={busy}
            />
          ))}
        </div>
        {current && turns.length === 0 && <p class="hint">Ask {current.name} something. Each answer shows the exchange your browser had with the gateway and the one the gateway had with the agent.</p>}
      </main>
    </div>
  );
}

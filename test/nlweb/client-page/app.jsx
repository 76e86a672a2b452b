// The official NLWeb v0.54 browser client (@nlweb-ai/search-components 0.1.10) as a site embeds it:
// ChatSearch driven by useNlWeb, pointed at the gateway's POST /ask. Bundled with esbuild at test time
// (test/nlweb/browser-client.test.ts). Searches are kept in memory instead of the package's IndexedDB
// store, so every page load starts clean. The test switches the site through window.nlgateSetSite.
import { useCallback, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ChatSearch, useNlWeb } from '@nlweb-ai/search-components';

function App() {
  const [site, setSite] = useState(window.NLGATE.site);
  window.nlgateSetSite = setSite;
  // The client's own defaults (9 results a page out of 50); its pager reads them from this config.
  const config = { endpoint: window.NLGATE.endpoint, site, maxResults: 9, numRetrievalResults: 50 };
  const nlweb = useNlWeb(config);
  const [searches, setSearches] = useState([]);
  const addSearch = useCallback(async (search) => setSearches((prev) => [...prev, { ...search, id: String(prev.length + 1) }]), []);
  const addResults = useCallback(
    async (id, results) =>
      setSearches((prev) => prev.map((s) => (s.id === id ? { ...s, response: { ...s.response, results: [...s.response.results, ...results] } } : s))),
    [],
  );
  const startSession = useCallback(async () => {
    setSearches([]);
    return 'session-1';
  }, []);
  return (
    <ChatSearch
      searches={searches}
      addSearch={addSearch}
      addResults={addResults}
      startSession={startSession}
      endSession={() => setSearches([])}
      nlweb={nlweb}
      config={config}
    />
  );
}

createRoot(document.getElementById('root')).render(<App />);

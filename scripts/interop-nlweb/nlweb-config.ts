/**
 * NLWeb's configuration for the interop run, written into a directory of our own (NLWEB_CONFIG_DIR)
 * from the checkout's config/: the server runs unmodified, only configured. Changes, and why:
 * - LLM and embeddings: the `openai` provider; the OpenAI SDK it uses reads OPENAI_BASE_URL, which
 *   points at the deterministic fake (fake-openai.ts).
 * - Retrieval and the conversation store: Qdrant's local file mode, the one backend that needs no
 *   service; every other endpoint (the default config enables a hosted Azure one) is turned off.
 * - The web server's port; everything else (tool selection, decontextualisation, memory, query
 *   analysis) stays as shipped, so the prompts NLWeb really sends are the ones the fake answers.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

function edit(dir: string, file: string, change: (doc: any) => void): void {
  const path = join(dir, file);
  const doc = parse(readFileSync(path, 'utf8'));
  change(doc);
  writeFileSync(path, stringify(doc));
}

export function writeNlwebConfig(checkout: string, dir: string, opts: { port: number; dataDir: string }): void {
  cpSync(join(checkout, 'config'), dir, { recursive: true });
  edit(dir, 'config_llm.yaml', (d) => {
    d.preferred_endpoint = 'openai';
  });
  edit(dir, 'config_embedding.yaml', (d) => {
    d.preferred_provider = 'openai';
  });
  edit(dir, 'config_retrieval.yaml', (d) => {
    d.write_endpoint = 'qdrant_local';
    for (const [name, e] of Object.entries<any>(d.endpoints)) e.enabled = name === 'qdrant_local';
    d.endpoints.qdrant_local.database_path = join(opts.dataDir, 'db');
  });
  edit(dir, 'config_conv_store.yaml', (d) => {
    d.default_storage = 'qdrant_local';
    for (const [name, e] of Object.entries<any>(d.storage_endpoints)) e.enabled = name === 'qdrant_local';
    d.storage_endpoints.qdrant_local.database_path = join(opts.dataDir, 'conversations_db');
  });
  edit(dir, 'config_webserver.yaml', (d) => {
    d.port = opts.port;
    d.server = { ...d.server, host: '127.0.0.1' };
    d.server.logging = { ...d.server.logging, file: join(opts.dataDir, 'webserver.log') };
  });
}

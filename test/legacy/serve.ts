/**
 * Runs one of the test legacy NLWeb servers on a fixed port, for trying docs/legacy.md by hand:
 *   npx tsx test/legacy/serve.ts C 8000     # generation A, B or C; port (default 8000)
 */
import { createServer } from 'node:http';
import { createLegacyHandler } from './legacy-server.ts';
import type { Generation } from './scripts.ts';

const generation = (process.argv[2] ?? 'C').toUpperCase() as Generation;
const port = Number(process.argv[3] ?? 8000);
if (!['A', 'B', 'C'].includes(generation) || !Number.isInteger(port)) {
  console.error('usage: npx tsx test/legacy/serve.ts <A|B|C> [port]');
  process.exit(2);
}
const { handler } = createLegacyHandler(generation);
createServer(handler).listen(port, '127.0.0.1', () => {
  console.log(`legacy NLWeb test server, generation ${generation}, on http://127.0.0.1:${port} (/ask, /sites, /mcp)`);
});

import { fileURLToPath } from 'node:url';
import { pauseOptimizingCompilers, resumeOnTraffic } from './runtime/compiler-tiers.ts';
import type { RequestSource } from './runtime/idle-release.ts';

// A replica starts without V8's optimizing compilers and turns them on with its first request
// (src/runtime/compiler-tiers.ts); the entry pauses them before it loads the rest of the gateway.
// A cluster primary only supervises: it keeps them off. Run from the TypeScript sources (tsx, a
// checkout's `npx nlgate`) it does not pause them: tsx transpiles at start, JavaScript-heavy work
// that the pause made 180 ms slower, and a development run is not judged by its idle memory.
if (process.argv[2] === 'serve' && !import.meta.url.endsWith('.ts')) pauseOptimizingCompilers();

/** The bundled default config, found relative to this file so `npm start` works from any directory. */
const DEFAULT_CONFIG = fileURLToPath(new URL('../config/gateway.yaml', import.meta.url));
const { main } = await import('./cli/main.ts');

main(process.argv.slice(2), DEFAULT_CONFIG, (server) => resumeOnTraffic(server as RequestSource)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    console.error(`nlgate: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

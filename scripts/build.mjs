// `npm run build`: compiles the gateway CLI and the demo agents to dist/ with esbuild (one ESM file
// each, npm packages left as imports). dist/ sits one level under the repository root like src/, so
// paths the code resolves with import.meta.url (../config/gateway.yaml) mean the same from both.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const node = pkg.engines.node.match(/\d+/)[0];

await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli.ts', 'demo-agents': 'examples/demo-agents.ts' },
  // `node scripts/build.mjs [outdir]`: tests build into their own folder (one level down, like dist/).
  outdir: process.argv[2] ?? 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${node}`,
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: { js: '// Built by `npm run build` from src/ (do not edit).' },
});

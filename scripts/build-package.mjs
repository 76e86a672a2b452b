// `npm run build` (and `prepack`): everything the package and the image run, built side by side —
// the CLI bundle (build.mjs: dist/cli.js, dist/cli-main.js, dist/chunks/, dist/demo-agents.js), the library
// (build-lib.mjs: dist/lib/) and the web console (dist/console/). One source, two entry points.
import { build } from 'esbuild';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from './build.mjs';
import { buildLibrary } from './build-lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The console's two files, bundled by the gateway's own code (src/console/bundle.ts, through tsx). */
async function buildConsole() {
  const { tsImport } = await import('tsx/esm/api');
  const { bundleConsole, CONSOLE_DIST } = await tsImport('../src/console/bundle.ts', import.meta.url);
  const assets = await bundleConsole();
  await mkdir(CONSOLE_DIST, { recursive: true });
  await Promise.all([writeFile(join(CONSOLE_DIST, 'app.js'), assets.js), writeFile(join(CONSOLE_DIST, 'styles.css'), assets.css)]);
}

await Promise.all([buildServer(join(root, 'dist')), buildLibrary('dist/lib'), buildConsole()]);
console.log('dist/: cli.js, lib/ (index.js, index.d.ts), console/');

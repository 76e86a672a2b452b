import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The console's browser code, bundled: one script and one stylesheet. */
export interface ConsoleAssets {
  js: string;
  css: string;
}

/** The package root: the nearest folder above this module with a package.json (src/ or a compiled dist/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
const ROOT = packageRoot();
export const CONSOLE_SOURCE = join(ROOT, 'console', 'src');
export const CONSOLE_DIST = join(ROOT, 'dist', 'console');

/**
 * Bundles `console/src` with esbuild (Preact JSX, minified, no source maps). `npm run build:console`
 * writes the result to dist/console; the gateway does the same in memory at start-up.
 */
export async function bundleConsole(): Promise<ConsoleAssets> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: { app: join(CONSOLE_SOURCE, 'main.tsx'), styles: join(CONSOLE_SOURCE, 'styles.css') },
    bundle: true,
    write: false,
    outdir: CONSOLE_DIST,
    format: 'esm',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const pick = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: pick('.js'), css: pick('.css') };
}

/**
 * The assets to serve: built from source when the source and esbuild are there (a clone, `npm start`),
 * else the prebuilt dist/console (an image built with `npm run build` and no dev dependencies).
 */
export async function loadConsoleAssets(): Promise<ConsoleAssets> {
  if (existsSync(join(CONSOLE_SOURCE, 'main.tsx'))) {
    try {
      return await bundleConsole();
    } catch (err) {
      if (!existsSync(join(CONSOLE_DIST, 'app.js'))) throw err;
    }
  }
  const [js, css] = await Promise.all([readFile(join(CONSOLE_DIST, 'app.js'), 'utf8'), readFile(join(CONSOLE_DIST, 'styles.css'), 'utf8')]);
  return { js, css };
}

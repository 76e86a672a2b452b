import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/** esbuild's options for the console (Preact JSX, minified, no source maps), kept in memory. */
const consoleBuildOptions = () => ({
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

/** The script and the stylesheet among esbuild's output files. */
function assetsOf(files: readonly { path: string; text: string }[]): ConsoleAssets {
  const pick = (ext: string) => files.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: pick('.js'), css: pick('.css') };
}

/** The bundling process's script (CommonJS, `node -e`): one build, its output files as JSON on stdout. */
const BUNDLER_SOURCE = `
const { esbuild, options } = JSON.parse(process.env.NLGATE_CONSOLE_BUNDLE);
require(esbuild).build(options).then(
  (r) => process.stdout.write(JSON.stringify(r.outputFiles.map((f) => ({ path: f.path, text: f.text })))),
  (e) => { process.stderr.write(String((e && e.message) || e)); process.exitCode = 1; },
);
`;

/**
 * Bundles `console/src` with esbuild, in a short-lived Node process of its own: the gateway does so
 * a second after start-up, `npm run build:console` to write dist/console. esbuild's JS API keeps one
 * service process per thread for that thread's life: made in the gateway's own thread, the bundle
 * left it beside the gateway for good (18 MiB of RSS against the gateway's 82, issue 25).
 * `esbuild.stop()` there would stop the service every esbuild call of the thread shares (a host
 * application's own builds, `npm run build`'s other bundles); a worker thread that stops its own
 * leaves it a zombie, since esbuild does not wait for it to exit. The bundling process exits when the
 * bundle is made, and its esbuild service with it.
 */
export async function bundleConsole(): Promise<ConsoleAssets> {
  const { spawn } = await import('node:child_process');
  const esbuild = createRequire(import.meta.url).resolve('esbuild');
  const child = spawn(process.execPath, ['-e', BUNDLER_SOURCE], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NLGATE_CONSOLE_BUNDLE: JSON.stringify({ esbuild, options: consoleBuildOptions() }) },
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`The console bundle failed: ${Buffer.concat(err).toString().slice(0, 2000) || `exit ${code}`}`);
  return assetsOf(JSON.parse(Buffer.concat(out).toString()) as { path: string; text: string }[]);
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

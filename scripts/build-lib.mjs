// `npm run build:lib` (issue 28): the library — dist/lib/index.js from src/index.ts (esbuild, options
// shared with the CLI bundle in build.mjs) and dist/lib/index.d.ts, one declaration file bundled by
// dts-bundle-generator from src/package-types.ts (the same exports; that entry keeps the TypeScript
// program small, see there). It names only the package's own exports and npm packages. The two run
// side by side.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { libraryBuild } from './build.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds the library into `outdir` (relative to the repository root). */
export async function buildLibrary(outdir = 'dist/lib') {
  const out = resolve(root, outdir);
  await rm(out, { recursive: true, force: true });
  const generator = join(root, 'node_modules', 'dts-bundle-generator', 'dist', 'bin', 'dts-bundle-generator.js');
  const args = [generator, '--silent', '--no-check', '--export-referenced-types', 'false', '--no-banner', '--project', join(root, 'tsconfig.lib.json'), '-o', join(out, 'index.d.ts'), join(root, 'src', 'package-types.ts')];
  await Promise.all([build(libraryBuild(out)), promisify(execFile)(process.execPath, args, { cwd: root })]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildLibrary(process.argv[2]);

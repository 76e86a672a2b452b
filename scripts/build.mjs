// `npm run build`: compiles the gateway CLI and the demo agents to dist/ with esbuild (issue 23).
// The library's entry (issue 28) is built from the same settings by scripts/build-lib.mjs
// (`libraryBuild` below): the same source and target, but npm packages stay imports there.
//
// The output is self-contained: npm packages are bundled in, so the image's runtime stage ships
// dist/ and no node_modules (no tsx, no esbuild, no dev tooling). What only some deployments use is
// reached through dynamic `import()` (the OpenTelemetry SDK when tracing is on, for one), and code
// splitting puts it in its own chunk under dist/chunks/, read from disk only when it is imported.
// dist/ sits one level under the repository root like src/, so paths the code resolves with
// import.meta.url (../config/gateway.yaml) mean the same from both.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// The oldest Node the project claims: the bundle uses no syntax it lacks.
const node = semver.minVersion(pkg.engines.node).version;

/** What both builds share: ESM for the oldest supported Node, one file per entry plus shared chunks. */
const esmForNode = {
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: `node${node}`,
  // No `keepNames`: esbuild would wrap every function and class it emits in a `__name()` call, and
  // that runs each time a closure is made, on every request (Hono's Context alone makes a dozen):
  // `npm run bench` put the pass-through at 122 µs of CPU per request with it and 96 without
  // (docs/benchmarks.md "Names in the bundle"). Error classes set their `name` themselves.
  keepNames: false,
  logLevel: 'warning',
};

/**
 * zod re-exports every one of its locales (`z.locales`, ≈ 260 KiB minified, over half of zod in
 * the bundle) for `z.config(z.locales.xx())`; the gateway reports in English only and never calls that,
 * yet V8 parsed them all at every start (issue 23). In the server bundle `z.locales` holds `en` alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: fileURLToPath(new URL('../locales/en.js', `file://${args.importer}`)), namespace: 'zod-locales' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, resolveDir: root }));
  },
};

/** The server bundle's options: every npm package inside. */
export const serverBuild = (outdir) => ({
  ...esmForNode,
  // The CLI's body: the entry below loads it once V8's optimizing compilers are paused.
  entryPoints: { 'cli-main': 'src/cli/main.ts', 'demo-agents': 'examples/demo-agents.ts' },
  outdir,
  // esbuild bundles the web console at start-up only where it is installed (a clone); the image
  // serves the console prebuilt by `npm run build:console` (src/console/bundle.ts).
  external: ['esbuild'],
  plugins: [zodEnglishOnly],
  // Whitespace and syntax only: identifiers keep their names, because bundled packages read
  // `constructor.name` (ioredis tells a Cluster so, pino logs an error's type so), which mangling
  // would change now that keepNames is off. (A class esbuild renames to avoid a clash, such as
  // redis-errors' `ReplyError2`, logs under that name; nlgate tests errors with instanceof.)
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  // CommonJS packages inside an ESM bundle still call require() for Node's built-ins.
  banner: {
    js: "// Built by `npm run build` from src/ (do not edit).\nimport { createRequire as __nlgateCreateRequire } from 'node:module'; const require = __nlgateCreateRequire(import.meta.url);",
  },
});

/**
 * dist/cli.js, built apart from the split bundle and importing nothing of it statically: it must
 * pause V8's optimizing compilers before any other module loads (src/runtime/compiler-tiers.ts).
 * As one more entry of the split build it imported esbuild's shared chunk first, and loading that
 * chunk got Node's path code optimized by Maglev before the pause: ≈ 2 MiB of idle RSS (issue 23,
 * docs/benchmarks.md "Seventh round"). Its one dynamic import, the CLI's body, is dist/cli-main.js.
 */
export const entryBuild = (outdir) => ({
  ...esmForNode,
  splitting: false,
  entryPoints: { cli: 'src/cli.ts' },
  outdir,
  plugins: [{ name: 'cli-main', setup: (b) => b.onResolve({ filter: /^\.\/cli\/main\.ts$/ }, () => ({ path: './cli-main.js', external: true })) }],
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  banner: { js: '// Built by `npm run build` from src/ (do not edit).' },
});

/** Builds the gateway CLI and the demo agents into `outdir`: the split bundle and the entry. */
export const buildServer = (outdir) => Promise.all([build(serverBuild(outdir)), build(entryBuild(outdir))]);

/**
 * The library's options (issue 28): src/index.ts to dist/lib/index.js, ESM for the oldest supported
 * Node like the CLI; npm packages are not bundled (the host application installs them once, and
 * `hono` is the host's own), lazy parts (adapter SDKs) are chunks under dist/lib/chunks/.
 */
export const libraryBuild = (outdir) => ({
  ...esmForNode,
  entryPoints: { index: 'src/index.ts' },
  outdir,
  packages: 'external',
  banner: { js: '// Built by `npm run build:lib` from src/ (do not edit).' },
});

// `node scripts/build.mjs [outdir]`: tests build into their own folder (one level down, like dist/).
if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer(process.argv[2] ?? 'dist');

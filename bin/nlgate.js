#!/usr/bin/env node
// The `nlgate` command. In a checkout it runs the TypeScript sources through tsx (a dev dependency),
// so `npx nlgate` needs no build step; where there are no sources (an installed package) it runs the
// compiled bundle. The Node check comes first and the rest is imported after it, so an unsupported
// Node gets one line instead of a library's stack trace.
import { existsSync } from 'node:fs';

const { nodeProblem } = await import('../scripts/node-range.mjs');
const problem = nodeProblem(process.version);
if (problem) {
  console.error(problem);
  process.exit(1);
}
if (existsSync(new URL('../src/cli.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
} else {
  await import('../dist/cli.js');
}

#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so that `npx nlgate` works from a checkout without a build step.
// The Node check comes first and the rest is imported after it, so an unsupported Node gets one line.
const { nodeProblem } = await import('../scripts/node-range.mjs');
const problem = nodeProblem(process.version);
if (problem) {
  console.error(problem);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
await import('../src/cli.ts');

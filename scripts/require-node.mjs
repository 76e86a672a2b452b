// Preflight for `npm start` (issue 29): on a Node that `engines` does not cover, one line that says
// which Node is needed, before any library loads (a library outside its range fails with a stack
// trace that names neither the cause nor the fix).
import { nodeProblem } from './node-range.mjs';

const problem = nodeProblem(process.version);
if (problem) {
  console.error(problem);
  process.exit(1);
}

// Which Node versions nlgate runs on (issue 29): package.json `engines.node`, read here so the
// preflight (require-node.mjs), the CLI wrapper (bin/nlgate.js) and the tests share one reading.
import { readFileSync } from 'node:fs';
import semver from 'semver';

/** The project's `engines.node` range. */
export const NODE_RANGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;

/** The one-line refusal for Node `version` (e.g. `process.version`) against `range`, or undefined when it is covered. */
export function nodeProblem(version, range = NODE_RANGE) {
  if (semver.satisfies(version, range)) return undefined;
  return `nlgate needs Node.js ${range} (Node 24 LTS recommended); this is Node ${version.replace(/^v/, '')}. See docs/deploy.md#runtime.`;
}

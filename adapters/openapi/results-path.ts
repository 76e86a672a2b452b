/**
 * The `ask.results` path: the singular subset of JSONPath (RFC 9535 "normalized paths" plus dotted
 * names) — `$`, `.name`, `['name']` and `[index]` — which is all a path to one list needs. Wildcards,
 * filters and recursive descent are refused when the config is read, so there is no engine to bound.
 */

type Step = string | number;

const TOKEN = /\.([A-Za-z_$][\w$-]*)|\[(\d{1,9})\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;

/** The steps of a path, or a reason it is not one this subset reads. */
export function parseResultsPath(path: string): Step[] | string {
  const p = path.trim();
  if (!p.startsWith('$')) return 'must start with $ (e.g. $.items)';
  const steps: Step[] = [];
  TOKEN.lastIndex = 1;
  while (TOKEN.lastIndex < p.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(p);
    if (!m) return `unsupported JSONPath at "${p.slice(at, at + 20)}": only .name, ['name'] and [index] are read`;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else steps.push((m[3] ?? m[4]!).replace(/\\(.)/g, '$1'));
  }
  return steps;
}

/** A problem with a configured path, or null. */
export function checkResultsPath(path: string): string | null {
  const steps = parseResultsPath(path);
  return typeof steps === 'string' ? steps : null;
}

/** The value at `path` in `value` (undefined when absent); own properties only. */
export function readResultsPath(value: unknown, path: string): unknown {
  const steps = parseResultsPath(path);
  if (typeof steps === 'string') return undefined;
  let at: unknown = value;
  for (const step of steps) {
    if (at === null || typeof at !== 'object') return undefined;
    if (typeof step === 'number') at = Array.isArray(at) ? at[step] : undefined;
    else at = Object.hasOwn(at, step) ? (at as Record<string, unknown>)[step] : undefined;
  }
  return at;
}

import type { AskRequest } from '../../src/protocol/nlweb/index.ts';

/** A placeholder that is a whole string: its value keeps its type (`"{{context.prev}}"` → an array). */
const WHOLE = /^\{\{\s*([\w.@-]+)\s*\}\}$/;
/** Placeholders inside a longer string: interpolated as text. */
const INLINE = /\{\{\s*([\w.@-]+)\s*\}\}/g;
/** Guards against a template nested deeper than any sane config. */
const MAX_DEPTH = 16;

/** The values a template can reach: the request's parts and the request itself. */
export function templateScope(request: AskRequest): Record<string, unknown> {
  return { query: request.query, context: request.context, prefer: request.prefer, meta: request.meta, request };
}

/** Reads `a.b.c` from `scope`; undefined when any step is missing. Own properties only. */
export function lookup(scope: Record<string, unknown>, path: string): unknown {
  let value: unknown = scope;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Sentinel for "drop this key": a whole placeholder whose value is absent. */
const ABSENT = Symbol('absent');

function render(node: unknown, scope: Record<string, unknown>, depth: number): unknown {
  if (depth > MAX_DEPTH) return ABSENT;
  if (typeof node === 'string') {
    const whole = WHOLE.exec(node);
    if (whole) {
      const value = lookup(scope, whole[1]!);
      return value === undefined ? ABSENT : value;
    }
    return node.replace(INLINE, (_m, path: string) => asText(lookup(scope, path)));
  }
  if (Array.isArray(node)) return node.map((n) => render(n, scope, depth + 1)).filter((v) => v !== ABSENT);
  if (node !== null && typeof node === 'object') {
    // fromEntries defines own properties: a `__proto__` key stays a plain key.
    const entries = Object.entries(node).map(([k, v]) => [k, render(v, scope, depth + 1)] as const);
    return Object.fromEntries(entries.filter(([, r]) => r !== ABSENT));
  }
  return node;
}

/**
 * Renders an argument template (config `ask.arguments`) against an ask request: whole-string
 * placeholders keep the value's type and drop their key when absent; inline ones interpolate text.
 */
export function renderTemplate(template: Record<string, unknown>, request: AskRequest): Record<string, unknown> {
  return render(template, templateScope(request), 0) as Record<string, unknown>;
}

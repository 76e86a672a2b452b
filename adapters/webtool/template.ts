/**
 * The `ask` template: how an NLWeb question becomes one webtool action's `request`.
 *
 * Syntax (kept tiny on purpose):
 * - a string that is exactly `{{path}}` is replaced by the value at `path`, keeping its JSON type
 *   (a number stays a number); when there is no value the key (or array element) is left out;
 * - `{{path}}` inside a longer string is replaced by the value as text ("" when there is none);
 * - `path` is dotted and starts at `query`, `context` or `prefer` of the ask request:
 *   `{{query.text}}`, `{{query.unit}}` (any query filter), `{{context.prev.0}}`, `{{prefer.mode}}`;
 * - everything else (objects, arrays, numbers, other strings) is copied as written.
 *
 * Example: `{ "text": "{{query.text}}", "to": "{{query.unit}}" }`.
 */
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}\s]+)\s*\}\}$/;
/** Only these parts of a request may be read: never `meta` (it holds the session context). */
const ROOTS = new Set(['query', 'context', 'prefer']);

/** The paths a template reads, for checking a config before it is used. */
export function templatePaths(template: unknown): string[] {
  if (typeof template === 'string') return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  if (Array.isArray(template)) return template.flatMap(templatePaths);
  if (template !== null && typeof template === 'object') return Object.values(template).flatMap(templatePaths);
  return [];
}

/** A problem with a template's paths (a path outside query/context/prefer), or null. */
export function checkTemplate(template: unknown): string | null {
  const bad = templatePaths(template).find((p) => !ROOTS.has(p.split('.')[0]!));
  return bad === undefined ? null : `"{{${bad}}}" must start with query., context. or prefer.`;
}

function lookup(request: AskRequest, path: string): unknown {
  const [root, ...rest] = path.split('.');
  if (!ROOTS.has(root!)) return undefined;
  let value: unknown = (request as Record<string, unknown>)[root!];
  for (const key of rest) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

const asText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

const OMIT = Symbol('omit');

function render(template: unknown, request: AskRequest): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) return lookup(request, whole[1]!) ?? OMIT;
    return template.replace(PLACEHOLDER, (_m, path: string) => asText(lookup(request, path)));
  }
  if (Array.isArray(template)) return template.map((t) => render(t, request)).filter((v) => v !== OMIT);
  if (template !== null && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, t] of Object.entries(template)) {
      const v = render(t, request);
      if (v !== OMIT) out[k] = v;
    }
    return out;
  }
  return template;
}

/** Fills the template from an ask request (see the syntax above). Pure. */
export function renderTemplate(template: Record<string, unknown>, request: AskRequest): Record<string, unknown> {
  return render(template, request) as Record<string, unknown>;
}

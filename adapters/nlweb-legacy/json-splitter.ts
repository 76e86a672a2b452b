/** What splitting a text of concatenated JSON values found. */
export interface SplitJson {
  /** Every complete top-level object or array, parsed, in order. */
  values: unknown[];
  /** Pieces that looked like a value but did not parse, or text outside any value (not whitespace). */
  rejected: number;
  /** An unfinished value at the end of the text (a truncated reply), if any. */
  rest: string;
}

/**
 * Splits text holding JSON objects/arrays written back to back with no separator — how the legacy
 * `/mcp` returns every stream frame in one text content item (interop.md). Scans once, tracking
 * bracket depth outside strings and backslash escapes inside them, so braces and quotes inside
 * string values never split a value. Whitespace, commas or newlines between values are skipped.
 * Never throws.
 */
export function splitConcatenatedJson(input: string): SplitJson {
  const values: unknown[] = [];
  let rejected = 0;
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  let strayText = false;

  for (let i = 0; i < input.length; i++) {
    const ch = input[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (depth === 0) {
      if (ch === '{' || ch === '[') {
        if (strayText) rejected++, (strayText = false);
        start = i;
        depth = 1;
      } else if (!/[\s,]/.test(ch)) {
        // A stray scalar or junk between values: one rejection per run, not per character.
        strayText = true;
        if (ch === '"') inString = true;
      }
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) {
        try {
          values.push(JSON.parse(input.slice(start, i + 1)));
        } catch {
          rejected++;
        }
        start = -1;
      }
    }
  }
  if (strayText) rejected++;
  return { values, rejected, rest: start >= 0 ? input.slice(start) : '' };
}

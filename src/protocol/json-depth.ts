/**
 * The nesting bound on every inbound JSON body (issue 24, hole 4). JSON.parse itself copes with deep
 * input, but the walks after it (zod, the SDKs' validators, structured clones, renderers) recurse
 * and overflow the stack at a few thousand levels: one request then fails as an internal error.
 * Checking the text first, in one linear pass that does not recurse, refuses such a body as the
 * client's mistake before any walk. No real peer nests anywhere near this deep.
 */
export const MAX_JSON_DEPTH = 64;

/** How deeply `text` nests objects and arrays, counted without recursion; stops counting past `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return max;
}

/**
 * Whether `text` holds at most `n` opening brackets, counted with `indexOf` (native, no JavaScript
 * loop per character; brackets inside strings count too, so it only ever over-counts). A body with
 * no more than MAX_JSON_DEPTH of them cannot nest deeper: almost every body is one of those, and
 * under callgrind the scan cost an A2A request 4.8 thousand instructions where this costs a tenth.
 */
function bracketsAtMost(text: string, n: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > n) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > n) return false;
  return true;
}

/** The refusal for a body nested deeper than MAX_JSON_DEPTH, or undefined when it is within it. */
export function jsonTooDeep(text: string): string | undefined {
  if (bracketsAtMost(text, MAX_JSON_DEPTH)) return undefined;
  return jsonDepth(text) > MAX_JSON_DEPTH ? `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels` : undefined;
}

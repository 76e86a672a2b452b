/**
 * Summarises a V8 sampling heap profile (HeapProfiler.stopSampling): bytes allocated per frame, self
 * and inclusive, with frames of the compiled bundle mapped back to their source through its source
 * maps (the bundle keeps names but not lines).
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface HeapNode { callFrame: CallFrame; selfSize: number; children: HeapNode[] }
/** The profile HeapProfiler.stopSampling returns (its `samples` are not needed here). */
export interface SamplingProfile { head: HeapNode }

/** Maps a frame of a file with a `.map` beside it to `source:line`; other frames as `file:line`. */
function framer(): (frame: CallFrame) => string {
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (url: string): SourceMap | null => {
    if (!maps.has(url)) {
      const path = url.startsWith('file://') ? fileURLToPath(url) : url;
      maps.set(url, existsSync(`${path}.map`) ? new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')) as never) : null);
    }
    return maps.get(url)!;
  };
  return ({ functionName, url, lineNumber, columnNumber }) => {
    const name = functionName || '(anonymous)';
    if (!url) return name;
    const entry = mapOf(url)?.findEntry(lineNumber, columnNumber);
    if (entry && 'originalSource' in entry && entry.originalSource) {
      return `${name}  ${entry.originalSource.replace(/^.*node_modules\//, '~/').replace(/^.*\/src\//, 'src/')}:${entry.originalLine + 1}`;
    }
    return `${name}  ${url.replace(/^.*node_modules\//, '~/')}:${lineNumber + 1}`;
  };
}

/** Bytes allocated in all, and per frame: self (allocated in it) and inclusive (in it or its callees), largest first. */
export function heapSites(profile: SamplingProfile): { total: number; self: Array<[string, number]>; inclusive: Array<[string, number]> } {
  const keyOf = framer();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  // Each node's self bytes count once for every distinct frame on its stack.
  const walk = (node: HeapNode, stack: string[]): void => {
    const key = keyOf(node.callFrame);
    const path = stack.includes(key) ? stack : [...stack, key];
    if (node.selfSize) {
      total += node.selfSize;
      self.set(key, (self.get(key) ?? 0) + node.selfSize);
      for (const k of path) inclusive.set(k, (inclusive.get(k) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, path);
  };
  walk(profile.head, []);
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { total, self: sorted(self), inclusive: sorted(inclusive) };
}

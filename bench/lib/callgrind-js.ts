/**
 * Names V8's JIT code in a callgrind dump (bench/instructions.ts, BENCH_VERBOSE=1): callgrind knows
 * JIT code only by address (`fn=0x…`), and V8's `--perf-basic-prof` map (/tmp/perf-<pid>.map: start,
 * size and name of every code object it made) tells which JavaScript function each address is in.
 * One JavaScript function has several code objects (interpreted, baseline, optimised), so costs
 * are summed by the function's name and place, without V8's tier mark.
 */
import { readFileSync } from 'node:fs';

interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/** The code objects of a perf map, sorted by start; the latest object wins where two overlap (code space is reused). */
function readMap(file: string): CodeRange[] {
  const ranges: CodeRange[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = line.match(/^([0-9a-f]+) ([0-9a-f]+) (.*)$/);
    if (!m) continue;
    const start = parseInt(m[1]!, 16);
    // `JS:*name file:line:col` → `name file:line:col` (the tier mark dropped: one row per function).
    ranges.push({ start, end: start + parseInt(m[2]!, 16), name: m[3]!.replace(/^JS:[*~^+]?/, '') });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/** The name of the code object holding `address`, by binary search; undefined outside every object. */
function nameAt(ranges: CodeRange[], address: number): string | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  let found: CodeRange | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid]!.start <= address) {
      found = ranges[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found && address < found.end ? found.name : undefined;
}

export interface FunctionCost {
  name: string;
  /** Instructions in the function itself. */
  self: number;
  /** Instructions in it and in what it called (each call counted once; recursion may count twice). */
  inclusive: number;
  /** What it called: the instructions of each callee's calls from here, inclusive. */
  callees: Map<string, number>;
}

/**
 * Self and inclusive instructions of every function in a callgrind dump (written with
 * `--compress-strings=no --dump-instr=no`), JIT code named from the perf map.
 */
export function functionCosts(dumpFile: string, mapFile: string): FunctionCost[] {
  const ranges = readMap(mapFile);
  const named = new Map<string, string>();
  const nameOf = (fn: string): string => {
    if (!fn.startsWith('0x')) return fn;
    let name = named.get(fn);
    if (name === undefined) named.set(fn, (name = nameAt(ranges, parseInt(fn, 16)) ?? 'JIT code (unnamed)'));
    return name;
  };
  const costs = new Map<string, FunctionCost>();
  const costOf = (name: string) => {
    let c = costs.get(name);
    if (!c) costs.set(name, (c = { name, self: 0, inclusive: 0, callees: new Map() }));
    return c;
  };
  let current: FunctionCost | undefined;
  let callee: string | undefined;
  let callCost = false;
  for (const line of readFileSync(dumpFile, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) {
      current = costOf(nameOf(line.slice(3)));
      callCost = false;
    } else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
    else if (current && /^[+-]?\d/.test(line)) {
      const cost = Number(line.split(' ')[1] ?? 0);
      if (callCost) {
        // A call's inclusive cost belongs to the caller's inclusive figure, not to its own code;
        // a call within one function (two code objects of it) is not counted twice.
        if (callee !== current.name) {
          current.inclusive += cost;
          current.callees.set(callee!, (current.callees.get(callee!) ?? 0) + cost);
        }
        callCost = false;
      } else {
        current.self += cost;
        current.inclusive += cost;
      }
    }
  }
  return [...costs.values()];
}

/**
 * The functions that called any function whose name holds one of `names`, with what those calls cost
 * them (inclusive), most first. V8's builtins (`Builtins_KeyedLoadIC_Megamorphic`…) are named only by
 * what they do, so a builtin that tops the list is traced to its JavaScript callers this way.
 */
export function callersOf(costs: readonly FunctionCost[], names: readonly string[]): Array<{ name: string; cost: number }> {
  const matches = (callee: string) => names.some((n) => callee.includes(n));
  return costs
    .map((c) => ({ name: c.name, cost: [...c.callees].reduce((sum, [callee, cost]) => (matches(callee) ? sum + cost : sum), 0) }))
    .filter((c) => c.cost > 0)
    .sort((a, b) => b.cost - a.cost);
}

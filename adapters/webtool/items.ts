import type { ResultItem } from '../../src/protocol/nlweb/index.ts';

function toItem(value: unknown, action: string): ResultItem | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return value as ResultItem;
  // A bare value still answers the question: show it as a schema.org PropertyValue.
  return { '@type': 'PropertyValue', name: action, value } as ResultItem;
}

/** A webtool's `data` as NLWeb result items (4.1.1): an array gives one item per element, anything else one item. */
export function dataToItems(data: unknown, action: string): ResultItem[] {
  const values = Array.isArray(data) ? data : [data];
  return values.map((v) => toItem(v, action)).filter((i): i is ResultItem => i !== undefined);
}

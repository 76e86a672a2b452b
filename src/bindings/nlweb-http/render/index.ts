import type { WireVersion } from '../../../protocol/nlweb/index.ts';
import { v054Wire } from './v054.ts';
import { v055Wire } from './v055-wire.ts';
import type { NlwebWire } from './wire.ts';

export type { NlwebWire, StreamRendering } from './wire.ts';
export { renderNlwebError } from './v055.ts';

const WIRES: Readonly<Record<WireVersion, NlwebWire>> = { '0.54': v054Wire, '0.55': v055Wire };

/** The renderer for a request's declared NLWeb version (v0.55 unless it declares an older one). */
export function wireFor(version: WireVersion): NlwebWire {
  return WIRES[version];
}

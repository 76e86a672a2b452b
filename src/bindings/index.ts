/**
 * The inbound protocols the gateway serves, mounted by app.ts at the root and (where `perAgent`)
 * under `/agents/:agent`. One line per binding.
 */
import type { Binding } from './types.ts';
import { nlwebHttpBinding } from './nlweb-http/index.ts';

export const builtinBindings: Binding[] = [
  nlwebHttpBinding,
];

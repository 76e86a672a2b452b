/**
 * The inbound protocols the gateway serves, mounted by app.ts at the root and (where `perAgent`)
 * under `/agents/:agent`. One line per binding.
 */
import type { Binding } from './types.ts';
import { nlwebHttpBinding } from './nlweb-http/index.ts';
import { nlwebLegacyHttpBinding } from './nlweb-legacy-http/index.ts';
import { webtoolHttpBinding } from './webtool-http/index.ts';
import { nlipHttpBinding } from './nlip-http/index.ts';
import { mcpHttpBinding } from './mcp-http/index.ts';
import { a2aHttpBinding } from './a2a-http/index.ts';

export const builtinBindings: Binding[] = [
  nlwebHttpBinding,
  nlwebLegacyHttpBinding,
  webtoolHttpBinding,
  nlipHttpBinding,
  mcpHttpBinding,
  a2aHttpBinding,
];

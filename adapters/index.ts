/**
 * The built-in adapter kinds. The core never imports an adapter: the composition root (app.ts, cli)
 * hands this list to the gateway, which picks a factory by an agent's `kind`.
 * One line per kind; a new kind is one new folder and one line here.
 */
import type { AdapterFactory } from '../src/core/agent.ts';
import { nlwebAdapter } from './nlweb/index.ts';
import { nlwebLegacyAdapter } from './nlweb-legacy/index.ts';
import { mcpAdapter } from './mcp/index.ts';
import { nlipAdapter } from './nlip/index.ts';
import { webtoolAdapter } from './webtool/index.ts';
import { catalogAdapter } from './catalog/index.ts';
import { a2aAdapter } from './a2a/index.ts';

export const builtinAdapters: AdapterFactory<any>[] = [
  nlwebAdapter,
  nlwebLegacyAdapter,
  mcpAdapter,
  nlipAdapter,
  webtoolAdapter,
  catalogAdapter,
  a2aAdapter,
];

/**
 * The built-in adapter kinds. The core never imports an adapter: the composition root (app.ts, cli)
 * hands this list to the gateway, which picks a factory by an agent's `kind`.
 * One line per kind; a new kind is one new folder and one line here.
 */
import type { AdapterFactory } from '../src/core/agent.ts';

export const builtinAdapters: AdapterFactory<any>[] = [
];

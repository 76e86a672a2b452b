/**
 * Runs the example webtool: `npx tsx examples/webtools/server.ts` (PORT, default 8090; HOST,
 * default 127.0.0.1). The kitchen webtool lives at http://127.0.0.1:8090/kitchen.
 */
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { kitchenVersions } from './kitchen.ts';
import { createWebtoolApp } from './webtool-app.ts';

/** The example server's app: the kitchen webtool under `/kitchen`. */
export function createExampleApp(): Hono {
  return createWebtoolApp('/kitchen', () => kitchenVersions);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.env.PORT ?? 8090);
  const hostname = process.env.HOST ?? '127.0.0.1';
  serve({ fetch: createExampleApp().fetch, port, hostname }, (info) => {
    console.log(`kitchen webtool on http://${hostname}:${info.port}/kitchen`);
  });
}

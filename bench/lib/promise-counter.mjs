// Preloaded into the gateway by bench/promises.ts (`node --import`): counts the promises the process
// makes (v8.promiseHooks) and the HTTP requests it is sent (diagnostics_channel), and on SIGUSR2
// writes both counts so far to $PROMISE_COUNT_FILE as JSON: `{ made, requests, sites? }`. The
// requests are counted here because the load generator's own rate times its duration is not the
// number the gateway served between two reports (it put one scenario 4 % apart between runs).
// With PROMISE_SITES=<n>, one promise in n, drawn at random (a fixed stride would follow a request's
// own cycle of promises and see the same few), has its creation traced (the gateway runs with
// --enable-source-maps, so frames name the source files) and the file holds
// `sites: { "<the frames that made it>": count }` too: where a scenario's promises come from.
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { promiseHooks } from 'node:v8';

const every = Number(process.env.PROMISE_SITES ?? 0);
let made = 0;
let requests = 0;
subscribe('http.server.request.start', () => void requests++);
const sites = new Map();
/** The first frames of the creating stack that are not the hook's own or Node's promise machinery. */
function site() {
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 12;
  Error.captureStackTrace(holder, site);
  Error.stackTraceLimit = limit;
  const frames = holder.stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, '').replace(/\((?:file:\/\/)?\/[^()]*?\/(src|adapters|bench|node_modules)\//, '($1/'))
    .filter((f) => !f.includes('promise-counter') && !f.startsWith('new Promise') && !f.includes('<anonymous>'));
  return frames.slice(0, 3).join(' < ');
}
promiseHooks.onInit(() => {
  made++;
  if (every > 0 && Math.random() * every < 1) {
    const key = site();
    sites.set(key, (sites.get(key) ?? 0) + 1);
  }
});
process.on('SIGUSR2', () => {
  writeFileSync(process.env.PROMISE_COUNT_FILE, JSON.stringify({ made, requests, ...(every > 0 ? { sites: Object.fromEntries(sites) } : {}) }));
  sites.clear();
});

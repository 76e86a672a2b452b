// Preloaded into the gateway by bench/promises.ts (`node --import`): counts the promises the process
// makes (v8.promiseHooks) and, on SIGUSR2, writes the count so far to $PROMISE_COUNT_FILE.
import { writeFileSync } from 'node:fs';
import { promiseHooks } from 'node:v8';

let made = 0;
promiseHooks.onInit(() => void made++);
process.on('SIGUSR2', () => writeFileSync(process.env.PROMISE_COUNT_FILE, String(made)));

/**
 * Issue 24: what NLIP uploads held at the cap cost the process. Starts one gateway in this process
 * (memory store, the default `limits.uploadBytesTotal`, 256 MiB, and the per-caller cap raised to it
 * so one caller can fill it), posts 8 MiB uploads until the total is full, collects garbage, and
 * prints RSS, heap and external memory before and after beside the bytes held.
 *
 *   node --expose-gc --import tsx bench/upload-rss.ts
 *
 * UPLOAD_RSS_TOTAL_MIB lowers the total for a quick look.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { builtinAdapters } from '../adapters/index.ts';
import { createApp } from '../src/app.ts';
import { silentLogger } from '../src/base/logger.ts';
import { parseConfig } from '../src/config/load.ts';

const MiB = 1024 * 1024;
const TOTAL = Number(process.env.UPLOAD_RSS_TOTAL_MIB ?? 256) * MiB;
const CHUNK = 8 * MiB - 64 * 1024;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const settle = async () => {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 100));
  }
};
const snapshot = () => {
  const m = process.memoryUsage();
  return { rss: m.rss / MiB, heapUsed: m.heapUsed / MiB, external: m.external / MiB, arrayBuffers: m.arrayBuffers / MiB };
};
const fmt = (s: ReturnType<typeof snapshot>) => Object.entries(s).map(([k, v]) => `${k} ${v.toFixed(0)} MiB`).join(', ');

const loaded = parseConfig(
  {
    limits: { uploadBytesTotal: TOTAL, uploadBytesPerPrincipal: TOTAL, gatewayRateLimit: { requests: 100_000, windowMs: 60_000 } },
    agents: [{ name: 'catalog', kind: 'catalog', file: 'examples/catalog/events.json' }],
  },
  { adapters: builtinAdapters, baseDir: new URL('../', import.meta.url).pathname, source: 'bench' },
);
const gw = await createApp(loaded.config, { log: silentLogger, baseDir: loaded.baseDir, adapters: builtinAdapters });
const server = await new Promise<{ url: string; close(): void }>((resolve) => {
  const s = serve({ fetch: gw.app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve({ url: `http://127.0.0.1:${info.port}`, close: () => s.close() }));
});

// The client is curl, another process: only the gateway's own memory is measured.
const dir = mkdtempSync(join(tmpdir(), 'nlgate-upload-rss-'));
const file = join(dir, 'b.bin');
writeFileSync(file, Buffer.alloc(CHUNK, 7));
const upload = async () => (await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-F', `contents=@${file};type=application/octet-stream`, `${server.url}/nlip/upload/`])).stdout;

await settle();
const before = snapshot();
let held = 0;
for (;;) {
  const status = await upload();
  if (status !== '200') break;
  held += CHUNK;
}
await settle();
const after = snapshot();
console.log(`held ${(held / MiB).toFixed(0)} MiB in ${Math.round(held / CHUNK)} uploads`);
console.log(`before: ${fmt(before)}`);
console.log(`after:  ${fmt(after)}`);
console.log(`RSS grew ${(after.rss - before.rss).toFixed(0)} MiB: ${((after.rss - before.rss) / (held / MiB)).toFixed(2)} × the bytes held`);
server.close();
await gw.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);

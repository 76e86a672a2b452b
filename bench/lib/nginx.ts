/**
 * nginx for the bench: the static upstream (`return 200`, as issue 12 measured it) and a
 * `proxy_pass` in front of it with a keep-alive upstream, each on a free port, from a temp config.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANSWER_JSON, ANSWER_SSE, AWAIT_JSON } from './upstream.ts';

export interface Nginx {
  /** The static upstream (`/ask` JSON, `/sse/ask` SSE, `/await`). */
  upstreamUrl: string;
  /** `proxy_pass` to the upstream with `workers` worker processes. */
  proxyUrl: string;
  stop(): Promise<void>;
}

/** True when the machine has nginx. */
export function nginxAvailable(): boolean {
  return spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;

/** Writes the config and starts `nginx -g 'daemon off;'`; resolves once both ports answer. */
export async function startNginx(workers: number): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'nlgate-bench-nginx-'));
  const [up, proxy] = [await freePort(), await freePort()];
  const conf = `
worker_processes ${workers};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;
  upstream nlweb { server 127.0.0.1:${up}; keepalive 64; }
  server {
    listen 127.0.0.1:${up};
    location = /ask { default_type application/json; return 200 ${quote(ANSWER_JSON)}; }
    location = /sse/ask { default_type text/event-stream; return 200 ${quote(ANSWER_SSE)}; }
    location = /await { default_type application/json; return 200 ${quote(AWAIT_JSON)}; }
  }
  server {
    listen 127.0.0.1:${proxy};
    location / { proxy_pass http://nlweb; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const upstreamUrl = `http://127.0.0.1:${up}`;
  const proxyUrl = `http://127.0.0.1:${proxy}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${err}`);
    const ok = await fetch(`${proxyUrl}/ask`, { method: 'POST', body: '{}' }).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 100) throw new Error(`nginx did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    upstreamUrl,
    proxyUrl,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGQUIT');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

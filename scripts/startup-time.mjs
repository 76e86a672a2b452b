// How long the gateway takes from process start to its first /healthz answer, compiled (what the
// image and npm start run) against transpiled at start (tsx). Usage: node scripts/startup-time.mjs [runs]
// With built checkouts after the runs (`node scripts/startup-time.mjs 15 /path/to/other/checkout .`),
// it compares their compiled starts instead, one start of each in turn, so a drifting host hits all alike.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 5);
const variants = {
  'node dist/cli.js serve': ['dist/cli.js', 'serve'],
  'node --import tsx src/cli.ts serve': ['--import', 'tsx', 'src/cli.ts', 'serve'],
};

const trees = process.argv.slice(3);

function once(args, cwd = root) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, PORT: '0', NLGATE_CONFIG: '' } });
    let out = '';
    child.stdout.on('data', async (d) => {
      out += d;
      const m = out.match(/"url":"([^"]+)"/);
      if (!m || child.answered) return;
      child.answered = true;
      const res = await fetch(`${m[1]}/healthz`);
      const ms = performance.now() - t0;
      child.kill('SIGTERM');
      res.ok ? resolve(ms) : reject(new Error(`healthz ${res.status}`));
    });
    child.once('exit', (code) => !child.answered && reject(new Error(`exited ${code}`)));
  });
}

const report = (name, times) => {
  times.sort((a, b) => a - b);
  console.log(`${name}: median ${times[Math.floor(runs / 2)].toFixed(0)} ms to the first /healthz (min ${times[0].toFixed(0)}, max ${times.at(-1).toFixed(0)}, ${runs} runs)`);
};

if (trees.length > 0) {
  const times = trees.map(() => []);
  for (let i = 0; i < runs; i++) for (const [t, tree] of trees.entries()) times[t].push(await once(variants['node dist/cli.js serve'], tree));
  for (const [t, tree] of trees.entries()) report(`${tree}: node dist/cli.js serve`, times[t]);
} else {
  for (const [name, args] of Object.entries(variants)) {
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await once(args));
    report(name, times);
  }
}

/**
 * The upstream of `npm run bench:streams`, in a process of its own (each process gets its own
 * file-descriptor budget): every `/ask` answers SSE `start` and one result, then only keep-alive
 * comments until the connection closes. Prints its URL on stdout.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const held = new Set<ServerResponse>();
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('event: start\ndata: {"_meta":{"version":"0.55"}}\n\nevent: result\ndata: {"index":0,"item":{"name":"Held","url":"https://x.example/held"}}\n\n');
  held.add(res);
  res.once('close', () => held.delete(res));
});
server.maxConnections = 100_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
setInterval(() => held.forEach((r) => r.write(': keepalive\n\n')), 10_000);
// `held?` on stdin answers how many streams are open; stdin closing ends the process.
process.stdin.on('data', () => console.log(String(held.size)));
process.stdin.once('end', () => process.exit(0));

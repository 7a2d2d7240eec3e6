// Baseline of the server benchmarks: a bare node:http server, spawned as its own process.
// - any POST/PUT/… under /e/: reads the body, answers 200 "OK" (what the ingress answers), and
//   forwards the body to every connected SSE client as a record shaped like Tributary's
//   ({ id, indexed_at_ms, event }), in process;
// - GET /sources/<anything>/sse: an SSE stream of those records (same framing: `id:` / `data:`).
// No persistence, no queue, no sandbox: the floor of "HTTP in, SSE out" on this machine.
// Run: node bench/baseline-server.mjs <port>   (forked by server-lib.mjs; reports `listening`)
import { Buffer } from 'node:buffer';
import http from 'node:http';
import process from 'node:process';

const port = Number(process.argv[2] ?? 0);
const streams = new Set();
let sequence = 0;

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && /^\/sources\/[^/]+\/sse/.test(req.url ?? '')) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    res.write(':sse-handshake\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
    return;
  }
  if (req.method === 'GET' && req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('OK');
    if (streams.size === 0) return;
    const text = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = JSON.parse(text);
    } catch {
      event = text;
    }
    const now = Date.now();
    const id = `${now}-${(sequence += 1)}`;
    const frame = `id: ${id}\ndata: ${JSON.stringify({ id, indexed_at_ms: now, event })}\n\n`;
    for (const stream of streams) stream.write(frame);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.send?.({ type: 'listening', port: server.address().port }));
process.on('SIGTERM', () => {
  for (const stream of streams) stream.end();
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
});
process.on('disconnect', () => process.exit(0));

// The peer of tests/bench/serve: the usual node server stack (node:http) answering every POST
// with a constant body, the same bytes forge serve answers, read whole first as a real mock would.
import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';

const [, , portFile, whole, streamed] = process.argv;
const bodies = { whole: readFileSync(whole), stream: readFileSync(streamed) };
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const stream = Buffer.concat(chunks).includes('"stream":true');
    if (stream) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      // one write per event, as forge sends one chunk per event
      for (const ev of bodies.stream.toString().split('\n\n')) if (ev) res.write(ev + '\n\n');
      res.end();
    } else {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(bodies.whole);
    }
  });
});
server.listen(0, '127.0.0.1', () => writeFileSync(portFile, String(server.address().port)));

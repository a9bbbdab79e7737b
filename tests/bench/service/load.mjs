// autocannon against POST /agent-api/chat-sync: prints "rps p50_ms p99_ms non2xx".
// usage: node load.mjs PORT CONNECTIONS SECONDS
import autocannon from "autocannon";
const [port, conns, secs] = process.argv.slice(2).map(Number);
const r = await autocannon({
  url: `http://127.0.0.1:${port}/agent-api/chat-sync`,
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ message: "weather in Paris" }),
  connections: conns,
  duration: secs,
});
console.log(`${Math.round(r.requests.average)} ${r.latency.p50} ${r.latency.p99} ${r.non2xx + r.errors}`);

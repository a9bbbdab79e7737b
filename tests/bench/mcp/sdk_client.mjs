// The official TypeScript SDK's client calling echo N times in one session, for
// tests/bench/mcp/run.sh. Prints {calls, wall_ms, calls_per_s, cpu_ms_per_call, server_cpu_ms_per_call}
// (the server's CPU only for a stdio server it started, read from /proc).
// usage: node sdk_client.mjs N stdio CMD ARGS... | N http URL
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';

const [, , nText, mode, ...rest] = process.argv;
const n = Number(nText);
const transport = mode === 'stdio' ? new StdioClientTransport({ command: rest[0], args: rest.slice(1) })
                                   : new StreamableHTTPClientTransport(new URL(rest[0]));
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(transport);
const procCpu = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms
};
const pid = mode === 'stdio' ? transport.pid : null;
const s0 = pid ? procCpu(pid) : 0;
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < n; i++) await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
const wall = performance.now() - t0;
const c = process.cpuUsage(c0);
const s1 = pid ? procCpu(pid) : 0;
await client.close();
console.log(JSON.stringify({ calls: n, wall_ms: wall, calls_per_s: n * 1000 / wall, cpu_ms_per_call: (c.user + c.system) / 1000 / n,
  server_cpu_ms_per_call: pid ? (s1 - s0) / n : null }));

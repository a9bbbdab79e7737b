// The official TypeScript SDK as a client of forge mcp serve: connect (stdio or Streamable
// HTTP), list every tool, call each with the arguments given, print what the SDK made of it.
// usage: node sdk_client.mjs stdio FORGE TOOLS.lua CALLS.json | http URL CALLS.json
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';

const [, , mode, ...rest] = process.argv;
const transport = mode === 'stdio'
  ? new StdioClientTransport({ command: rest[0], args: ['mcp', 'serve', rest[1]] })
  : new StreamableHTTPClientTransport(new URL(rest[0]), process.env.FORGE_TEST_TOKEN
    ? { requestInit: { headers: { Authorization: 'Bearer ' + process.env.FORGE_TEST_TOKEN } } } : undefined);
const calls = JSON.parse(readFileSync(mode === 'stdio' ? rest[2] : rest[1], 'utf8'));
const client = new Client({ name: 'forge-test', version: '1.0.0' });
await client.connect(transport);
const out = { server: client.getServerVersion(), protocol: transport.protocolVersion ?? null, tools: [], calls: [] };
out.tools = (await client.listTools()).tools;
for (const c of calls) out.calls.push({ name: c.name, result: await client.callTool({ name: c.name, arguments: c.arguments }) });
await client.close();
console.log(JSON.stringify(out));

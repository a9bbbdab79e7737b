// The official TypeScript SDK's server with one trivial tool (echo), over stdio, or Streamable
// HTTP on $PORT (stateless), for tests/bench/mcp/run.sh.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import http from 'node:http';

function make() {
  const s = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
  s.registerTool('echo', { description: 'Echoes the text back.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return s;
}
if (process.argv[2] === 'http') {
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const s = make();
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => { t.close(); s.close(); });
    await s.connect(t);
    await t.handleRequest(req, res, body);
  });
  server.listen(Number(process.env.PORT), '127.0.0.1', () => console.error('listening'));
} else {
  await make().connect(new StdioServerTransport());
}

// The reference side of the eval benchmark: promptfoo's assertion engine (runAssertions) on the
// same recorded outputs forge scores, with the closest assertions promptfoo has: icontains,
// not-icontains, regex, latency and tool-call-f1 per case (and a `javascript` assertion for the
// custom-assertion figure). Parsing of the case file and of every transcript line is included.
// usage: node bench_promptfoo.mjs PROMPTFOO_INDEX_JS DIR [custom]
import fs from 'node:fs';
import readline from 'node:readline';

const [, , pfPath, dir, mode] = process.argv;
const pf = await import(pfPath);
const { runAssertions } = pf.assertions;
const t0 = process.hrtime.bigint();
const cases = JSON.parse(fs.readFileSync(`${dir}/cases.json`, 'utf8'));
const byId = new Map(cases.map((c) => [c.id, c]));
let passed = 0, failed = 0;
const rl = readline.createInterface({ input: fs.createReadStream(`${dir}/transcripts.jsonl`), crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const t = JSON.parse(line);
  const c = byId.get(t.trajectory_id);
  const agent = t.turns.filter((x) => x.role === 'agent').pop();
  const e = c.expect;
  const assert = [];
  for (const s of e.responseContains) assert.push({ type: 'icontains', value: s });
  for (const s of e.responseNotContains) assert.push({ type: 'not-icontains', value: s });
  assert.push({ type: 'regex', value: e.regexPattern });
  assert.push({ type: 'latency', threshold: e.maxLatencyMs });
  assert.push({ type: 'tool-call-f1', value: e.toolsCalled, threshold: 1 });
  if (mode === 'custom') assert.push({ type: 'javascript', value: `output.includes(${JSON.stringify(c.expect.toolParams[0].value)})` });
  const output = JSON.stringify({
    content: agent.content,
    tool_calls: agent.tool_calls.map((k) => ({ id: k.id, type: 'function', function: { name: k.name, arguments: JSON.stringify(k.arguments) } })),
  });
  const r = await runAssertions({ test: { assert }, providerResponse: { output }, latencyMs: t.metadata.latency_ms });
  if (r.pass) passed++; else failed++;
}
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(JSON.stringify({ cases: passed + failed, passed, failed, seconds: secs }));

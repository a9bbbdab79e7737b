// Small agents on the official SDKs, pointed at forge serve. Each runs its own tools and
// writes what it did (calls with arguments and results, the final text) to a JSON file, which
// the test compares with the trajectories forge recorded.
// usage: node agents.mjs BASE_URL OUT.json SDK...   (SDK: openai-chat openai-responses anthropic gemini ollama)
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { writeFileSync } from 'node:fs';

const [, , base, outPath, ...sdks] = process.argv;
const TOKEN = process.env.FORGE_TEST_TOKEN || 'no-token';

const impl = {
  get_weather: ({ city }) => ({ city, temp_c: 21, condition: 'sunny' }),
  get_forecast: ({ city, days }) => ({ city, days: Array.from({ length: days }, (_, i) => ({ day: i + 1, high_c: 23 + i, rain: false })) }),
};
const schemas = {
  get_weather: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  get_forecast: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'] },
};
const desc = { get_weather: 'Current weather in a city.', get_forecast: 'Forecast for the next days.' };
const names = Object.keys(impl);
const records = [];

function run(rec, name, args) {
  const result = impl[name](args);
  rec.calls.push({ name, arguments: args, result });
  return result;
}

// ---- OpenAI chat completions: a plain loop, the stream helper, and runTools ----
async function openaiChat(c, caseId, prompt, mode) {
  const rec = { case: caseId, sdk: 'openai-chat/' + mode, calls: [], rounds: 0 };
  const headers = caseId.startsWith('matched-') ? {} : { 'X-Forge-Case': caseId };
  const tools = names.map((n) => ({ type: 'function', function: { name: n, description: desc[n], parameters: schemas[n] } }));
  if (mode === 'runTools') {
    const runner = c.chat.completions.runTools({
      model: 'gpt-test', messages: [{ role: 'user', content: prompt }],
      tools: names.map((n) => ({ type: 'function', function: { name: n, description: desc[n], parameters: schemas[n],
        parse: JSON.parse, function: (args) => run(rec, n, args) } })),
    }, { headers });
    rec.final = await runner.finalContent();
    rec.rounds = (await runner.allChatCompletions()).length;
    return rec;
  }
  const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: prompt }];
  for (;;) {
    let msg;
    if (mode === 'stream') {
      const s = c.chat.completions.stream({ model: 'gpt-test', messages, tools, stream_options: { include_usage: true } }, { headers });
      let deltas = 0;
      s.on('chunk', () => { deltas++; });
      const done = await s.finalChatCompletion();
      if (deltas < 2) throw new Error('the stream came in one chunk');
      msg = done.choices[0].message;
    } else {
      const r = await c.chat.completions.create({ model: 'gpt-test', messages, tools }, { headers });
      msg = r.choices[0].message;
    }
    rec.rounds++;
    messages.push({ role: 'assistant', content: msg.content ?? null, tool_calls: msg.tool_calls });
    if (!msg.tool_calls || msg.tool_calls.length === 0) { rec.final = msg.content; return rec; }
    for (const tc of msg.tool_calls) {
      const result = run(rec, tc.function.name, JSON.parse(tc.function.arguments));
      messages.push({ role: 'tool', tool_call_id: tc.id, content: JSON.stringify(result) });
    }
  }
}

// ---- OpenAI responses ----
async function openaiResponses(c, caseId, prompt, mode) {
  const rec = { case: caseId, sdk: 'openai-responses/' + mode, calls: [], rounds: 0 };
  const headers = { 'X-Forge-Case': caseId };
  const tools = names.map((n) => ({ type: 'function', name: n, description: desc[n], parameters: schemas[n], strict: false }));
  const input = [{ role: 'user', content: prompt }];
  for (;;) {
    let r;
    if (mode === 'stream') {
      const s = c.responses.stream({ model: 'gpt-test', input, tools, store: false }, { headers });
      r = await s.finalResponse();
    } else {
      r = await c.responses.create({ model: 'gpt-test', input, tools, store: false }, { headers });
    }
    rec.rounds++;
    const calls = r.output.filter((o) => o.type === 'function_call');
    if (calls.length === 0) { rec.final = r.output_text; return rec; }
    // as OpenAI documents it: the model's output items back into the input, then the results
    input.push(...r.output);
    for (const fc of calls)
      input.push({ type: 'function_call_output', call_id: fc.call_id, output: JSON.stringify(run(rec, fc.name, JSON.parse(fc.arguments))) });
  }
}

// ---- Anthropic messages ----
async function anthropic(c, caseId, prompt, mode) {
  const rec = { case: caseId, sdk: 'anthropic/' + mode, calls: [], rounds: 0 };
  const headers = { 'X-Forge-Case': caseId };
  const tools = names.map((n) => ({ name: n, description: desc[n], input_schema: schemas[n] }));
  const messages = [{ role: 'user', content: prompt }];
  for (;;) {
    const body = { model: 'claude-test', max_tokens: 512, system: 'Be brief.', messages, tools };
    const m = mode === 'stream' ? await c.messages.stream(body, { headers }).finalMessage()
                                : await c.messages.create(body, { headers });
    rec.rounds++;
    messages.push({ role: 'assistant', content: m.content });
    const uses = m.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) { rec.final = m.content.filter((b) => b.type === 'text').map((b) => b.text).join(''); return rec; }
    messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: JSON.stringify(run(rec, u.name, u.input)) })) });
  }
}

// ---- Gemini ----
async function gemini(ai, caseId, prompt, mode) {
  const rec = { case: caseId, sdk: 'gemini/' + mode, calls: [], rounds: 0 };
  const config = { tools: [{ functionDeclarations: names.map((n) => ({ name: n, description: desc[n], parameters: schemas[n] })) }],
                   systemInstruction: 'Be brief.', httpOptions: { headers: { 'X-Forge-Case': caseId } } };
  const contents = [{ role: 'user', parts: [{ text: prompt }] }];
  for (;;) {
    let parts = [];
    if (mode === 'stream') {
      const s = await ai.models.generateContentStream({ model: 'gemini-test', contents, config });
      for await (const chunk of s) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    } else {
      const r = await ai.models.generateContent({ model: 'gemini-test', contents, config });
      parts = r.candidates[0].content.parts;
    }
    rec.rounds++;
    contents.push({ role: 'model', parts });
    const fcs = parts.filter((p) => p.functionCall);
    if (fcs.length === 0) { rec.final = parts.filter((p) => p.text).map((p) => p.text).join(''); return rec; }
    contents.push({ role: 'user', parts: fcs.map((p) => ({ functionResponse: { id: p.functionCall.id, name: p.functionCall.name,
      response: run(rec, p.functionCall.name, p.functionCall.args) } })) });
  }
}

// ---- Ollama (its REST API; NDJSON when streamed) ----
async function ollama(root, caseId, prompt, mode) {
  const rec = { case: caseId, sdk: 'ollama/' + mode, calls: [], rounds: 0 };
  const tools = names.map((n) => ({ type: 'function', function: { name: n, description: desc[n], parameters: schemas[n] } }));
  const messages = [{ role: 'user', content: prompt }];
  for (;;) {
    const res = await fetch(root + '/api/chat', { method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forge-Case': caseId, Authorization: 'Bearer ' + TOKEN },
      body: JSON.stringify({ model: 'qwen-test', messages, tools, stream: mode === 'stream' }) });
    if (!res.ok) throw new Error('ollama: HTTP ' + res.status + ' ' + await res.text());
    let msg = { role: 'assistant', content: '', tool_calls: [] };
    const lines = (await res.text()).split('\n').filter((l) => l);
    if (mode !== 'stream' && lines.length !== 1) throw new Error('ollama: expected one JSON body');
    for (const l of lines) {
      const o = JSON.parse(l);
      msg.content += o.message?.content ?? '';
      msg.tool_calls.push(...(o.message?.tool_calls ?? []));
    }
    rec.rounds++;
    messages.push(msg);
    if (msg.tool_calls.length === 0) { rec.final = msg.content; return rec; }
    for (const tc of msg.tool_calls)
      messages.push({ role: 'tool', tool_name: tc.function.name, content: JSON.stringify(run(rec, tc.function.name, tc.function.arguments)) });
  }
}

const prompts = { one: 'What is the weather in Paris?', par: 'Tell me the weather now and the forecast for tomorrow in Oslo', joke: 'Tell me a joke' };
const oa = new OpenAI({ baseURL: base + '/v1', apiKey: TOKEN, maxRetries: 0 });
const an = new Anthropic({ baseURL: base, apiKey: TOKEN, maxRetries: 0 });
const gg = new GoogleGenAI({ apiKey: TOKEN, httpOptions: { baseUrl: base } });
const jobs = {
  'openai-chat': () => Promise.all([
    openaiChat(oa, 'openai-chat', prompts.one, 'create'),
    openaiChat(oa, 'openai-chat-parallel', prompts.par, 'create'),
    openaiChat(oa, 'openai-chat-stream', prompts.par, 'stream'),
    openaiChat(oa, 'openai-chat-runtools', prompts.one, 'runTools'),
    openaiChat(oa, 'openai-chat-fails', prompts.joke, 'stream'),
    openaiChat(oa, 'matched-by-message', 'What is the weather in Lisbon?', 'create'),
  ]),
  'openai-responses': () => Promise.all([
    openaiResponses(oa, 'responses', prompts.one, 'create'),
    openaiResponses(oa, 'responses-stream', prompts.par, 'stream'),
  ]),
  anthropic: () => Promise.all([
    anthropic(an, 'anthropic', prompts.par, 'create'),
    anthropic(an, 'anthropic-stream', prompts.par, 'stream'),
    anthropic(an, 'anthropic-joke', prompts.joke, 'stream'),
  ]),
  gemini: () => Promise.all([
    gemini(gg, 'gemini', prompts.par, 'create'),
    gemini(gg, 'gemini-stream', prompts.one, 'stream'),
  ]),
  ollama: () => Promise.all([
    ollama(base, 'ollama', prompts.par, 'create'),
    ollama(base, 'ollama-stream', prompts.one, 'stream'),
  ]),
};
for (const s of sdks) records.push(...await jobs[s]());
writeFileSync(outPath, JSON.stringify(records, null, 1));

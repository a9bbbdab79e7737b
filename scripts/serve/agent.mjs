// An agent under test in TypeScript/JavaScript on @anthropic-ai/sdk, with its own tools. Only
// its base URL points at `forge serve` (see docs/serve.md).
//
//   npm install @anthropic-ai/sdk
//   ANTHROPIC_BASE_URL=http://127.0.0.1:8080 ANTHROPIC_API_KEY=test node agent.mjs
import Anthropic from '@anthropic-ai/sdk';

const tools = {
  get_weather: ({ city }) => ({ city, temp_c: 18, condition: 'cloudy' }),
  get_forecast: ({ city, days }) => ({ city, days: Array.from({ length: days }, (_, d) => ({ day: d + 1, condition: d ? 'rain' : 'cloudy' })) }),
};
const schemas = [
  { name: 'get_weather', description: 'Current weather in a city.',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'get_forecast', description: 'Forecast for the next days.',
    input_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'] } },
];

async function ask(client, question) {
  const messages = [{ role: 'user', content: question }];
  for (;;) {
    // messages.stream: forge streams Anthropic's own events; finalMessage() assembles them
    const msg = await client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages, tools: schemas }).finalMessage();
    messages.push({ role: 'assistant', content: msg.content });
    const uses = msg.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) return msg.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
    messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: JSON.stringify(tools[u.name](u.input)) })) });
  }
}

const client = new Anthropic();
for (const q of ['What is the weather in Paris?', 'Do I need an umbrella in Oslo?'])
  console.log(q, '->', await ask(client, q));

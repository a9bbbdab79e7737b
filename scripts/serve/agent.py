"""An agent under test: plain Python on the `openai` package, with its own tools. Nothing in it
knows forge; only its base URL points at `forge serve` (see docs/serve.md).

    pip install openai
    OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=test python3 agent.py
"""
import json

from openai import OpenAI


def get_weather(city):
    return {"city": city, "temp_c": 18, "condition": "cloudy"}


def get_forecast(city, days):
    return {"city": city, "days": [{"day": d + 1, "condition": "rain" if d else "cloudy"} for d in range(days)]}


TOOLS = {"get_weather": get_weather, "get_forecast": get_forecast}
SCHEMAS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                     "required": ["city"]}}},
    {"type": "function", "function": {"name": "get_forecast", "description": "Forecast for the next days.",
                                      "parameters": {"type": "object",
                                                     "properties": {"city": {"type": "string"},
                                                                    "days": {"type": "integer"}},
                                                     "required": ["city", "days"]}}},
]


def ask(client, question):
    messages = [{"role": "user", "content": question}]
    while True:
        msg = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=SCHEMAS).choices[0].message
        messages.append(msg.model_dump(exclude_none=True))
        if not msg.tool_calls:
            return msg.content
        for call in msg.tool_calls:
            result = TOOLS[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})


if __name__ == "__main__":
    client = OpenAI()
    for q in ["What is the weather in Paris?", "Do I need an umbrella in Oslo?"]:
        print(q, "->", ask(client, q))

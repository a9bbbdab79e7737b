#!/usr/bin/env python3
"""Generates N eval cases and N recorded transcripts for the eval benchmark.

usage: gen.py OUTDIR N
Writes OUTDIR/cases.json (built-in assertions), OUTDIR/custom.json (the same cases plus one Lua
custom assertion each), OUTDIR/transcripts.jsonl and OUTDIR/assertions.lua. Deterministic.
"""
import json
import os
import random
import sys

CITIES = ["Paris", "Tokyo", "Berlin", "Oslo", "Madrid", "Rome", "Lima", "Cairo", "Quito", "Seoul"]
CONDITIONS = ["cloudy", "sunny", "rainy", "windy", "foggy"]


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    rnd = random.Random(42)
    os.makedirs(out, exist_ok=True)
    cases, custom = [], []
    with open(os.path.join(out, "transcripts.jsonl"), "w", encoding="utf-8") as t:
        for i in range(n):
            city = CITIES[i % len(CITIES)]
            cond = CONDITIONS[rnd.randrange(len(CONDITIONS))]
            temp = rnd.randrange(-5, 35)
            forecast = i % 3 == 0
            cid = f"gs-get_weather-{i:06d}"
            expect = {
                "toolsCalled": ["get_weather", "get_forecast"] if forecast else ["get_weather"],
                "toolParams": [{"tool": "get_weather", "paramName": "city", "assertion": "equals", "value": city}],
                "responseNonEmpty": True,
                "responseContains": [city, cond],
                "responseNotContains": ["temp_c", "as an ai"],
                "maxLatencyMs": 30000,
                "maxToolCalls": 3,
                "regexPattern": "-?\\d+°C",
            }
            case = {"id": cid, "description": f"weather in {city}", "input": {"message": f"Weather in {city}?"},
                    "expect": expect}
            cases.append(case)
            c2 = json.loads(json.dumps(case))
            c2["expect"]["custom"] = {"mentions_city": city}
            custom.append(c2)
            calls = [{"id": "call_1", "name": "get_weather", "arguments": {"city": city, "units": "celsius"},
                      "result": {"temp_c": temp, "condition": cond}, "error": None, "latency_ms": 12, "round": 1}]
            if forecast:
                calls.append({"id": "call_2", "name": "get_forecast", "arguments": {"city": city, "days": 2},
                              "result": {"days": [cond, "sunny"]}, "error": None, "latency_ms": 15, "round": 1})
            # about one case in ten fails (a missing condition word)
            answer = f"It is {temp}°C and {cond if i % 10 else 'pleasant'} in {city}."
            traj = {"trajectory_id": cid, "turns": [
                {"turn_id": 1, "role": "user", "content": f"Weather in {city}?", "timestamp": "2026-11-21T10:00:00Z"},
                {"turn_id": 1, "role": "agent", "content": answer, "timestamp": "2026-11-21T10:00:01Z",
                 "latency_ms": 500 + i % 700, "tool_calls": calls}],
                "metadata": {"model": "scripted", "provider": "scripted", "input_tokens": 120, "output_tokens": 30,
                             "cost_usd": 0.0003, "latency_ms": 500 + i % 700}}
            t.write(json.dumps(traj, ensure_ascii=False) + "\n")
    with open(os.path.join(out, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False)
    with open(os.path.join(out, "custom.json"), "w", encoding="utf-8") as f:
        json.dump(custom, f, ensure_ascii=False)
    with open(os.path.join(out, "assertions.lua"), "w", encoding="utf-8") as f:
        f.write('local forge = require "forge"\n'
                'forge.assertion("mentions_city", function(run, expected)\n'
                '  return run.response:find(expected, 1, true) ~= nil\n'
                'end)\n')


if __name__ == "__main__":
    main()

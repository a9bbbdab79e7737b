#!/usr/bin/env python3
"""Writes a generated suite for the memory benchmark into DIR: cases.json (N cases), rules.lua
(the scripted model's rules), tools.lua (the suite's tools) and transcripts.jsonl (one recorded
trajectory a case, for the offline run). Every 10th case fails, every 50th has no transcript.

usage: gen.py DIR N"""
import json
import os
import sys

out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
cities = ["Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Perth", "Quito", "Hanoi"]
with open(os.path.join(out, "cases.json"), "w") as f:
    f.write("[\n")
    for i in range(n):
        city = cities[i % len(cities)]
        case = {"id": f"case-{i:07d}", "description": f"weather in {city}",
                "input": {"message": f"weather in {city}"},
                "expect": {"toolsCalled": ["get_weather"], "responseContains": ["sunny" if i % 10 else "rainy"],
                           "toolParams": [{"tool": "get_weather", "paramName": "city", "assertion": "equals",
                                           "value": city}], "maxToolCalls": 2}}
        f.write(("," if i else "") + json.dumps(case) + "\n")
    f.write("]\n")
with open(os.path.join(out, "rules.lua"), "w") as f:
    f.write('return { { match = "weather in (\\\\w+)", calls = { { name = "get_weather", arguments = { city = "$1" } } },\n'
            '           reply = "It is sunny." } }\n')
with open(os.path.join(out, "tools.lua"), "w") as f:
    f.write('local forge = require "forge"\n'
            'return { forge.tool { name = "get_weather", description = "Current weather for a city.",\n'
            '  schema = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },\n'
            '  mock = { temp_c = 18, condition = "sunny" } } }\n')
with open(os.path.join(out, "transcripts.jsonl"), "w") as f:
    for i in range(n):
        if i % 50 == 49:
            continue
        city = cities[i % len(cities)]
        f.write(json.dumps({"trajectory_id": f"case-{i:07d}", "turns": [
            {"turn_id": 1, "role": "user", "content": f"weather in {city}"},
            {"turn_id": 1, "role": "agent", "content": "It is sunny.", "latency_ms": 100 + i % 400,
             "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": city},
                             "result": {"temp_c": 18}, "round": 1}]}],
            "metadata": {"latency_ms": 100 + i % 400, "cost_usd": 0.0001}}) + "\n")

#!/usr/bin/env python3
"""The scripted model's C engine against its Lua engine: rules_suite.lua run twice, once as it
is (data rules answered in C) and once with every request sent to the Lua engine; the
transcripts, timings removed, must be the same, and the answers are the ones listed here.

usage: check.py FORGE
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VOLATILE = {"timestamp", "latency_ms", "model_latency_ms"}

EXPECTED = {
    "weather": "Paris: 15°C clear, day 2 17 (round 2, turn 1, case weather, call call_1_2 2 get_forecast, "
               "said 'weather in Paris', {Paris}, $Paris ||get_weather||Paris|weather in Paris|)",
    "groups": "[][beta][false][beta][]",
    "numbers": "1.5 1e+20 9.007199254741e+15 0 7 9.2233720368548e+18 true  str -12",
    "errors": "boom|boom|plain text|false||text|",
    "flag": "[false]",
    "numcase": "five",
    "holes": "",
    "meta": "M",
    "table": '{"city":"Oslo","condition":"clear","temp_c":14}',
    "function": "fn Rome",
    "when": "when said yes",
    "empty": "",
    "false": "",
    "number": "42",
    "nested": "Oslo nested Oslo 1.25 ",
    "mutate": "not changed",
    "multi-a": "multi Lyon",
    "multi-b": "fallback no match here  ",
    "both": "after plain text",
    "other": "fallback hello  ",
    "when-no": "fallback no  ",
}


def scrub(v):
    if isinstance(v, dict):
        return {k: scrub(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [scrub(x) for x in v]
    return v


def run(forge, tmp, mode):
    tr = os.path.join(tmp, mode + ".jsonl")
    p = subprocess.run([forge, "script", os.path.join(HERE, "rules_suite.lua"), "-q",
                        "--save-transcripts", tr, "--", mode], capture_output=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"{mode}: exit {p.returncode}\n{p.stdout.decode()}{p.stderr.decode()}")
    return [scrub(json.loads(l)) for l in open(tr, encoding="utf-8")]


def main():
    forge = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp()
    c, lua = run(forge, tmp, "c"), run(forge, tmp, "lua")
    failures = []
    if len(c) != len(EXPECTED) or len(lua) != len(EXPECTED):
        failures.append(f"{len(c)} and {len(lua)} transcripts, expected {len(EXPECTED)}")
    for a, b in zip(c, lua):
        tid = a["trajectory_id"]
        if a != b:
            failures.append(f"{tid}: the engines differ:\n  C:   {json.dumps(a)}\n  Lua: {json.dumps(b)}")
        got = a["turns"][1]["content"]
        if EXPECTED.get(tid) != got:
            failures.append(f"{tid}: answer {got!r}, expected {EXPECTED.get(tid)!r}")
    # a model whose respond the script replaced: that function answers, once per request
    tr = os.path.join(tmp, "wrap.jsonl")
    p = subprocess.run([forge, "script", os.path.join(HERE, "wrap_suite.lua"), "-q", "--save-transcripts", tr],
                       capture_output=True, timeout=120)
    got = [json.loads(l)["turns"][1]["content"] for l in open(tr, encoding="utf-8")] if p.returncode == 0 else p
    if got != ["reply A #1", "reply B #2"]:
        failures.append(f"wrapped respond: {got!r}")
    # a rules table whose walk never ends in C: given up, and the Lua engine stops at its limit
    p = subprocess.run([forge, "script", os.path.join(HERE, "dag_suite.lua"), "-q", "--lua-timeout", "1000"],
                       capture_output=True, timeout=100)
    want = "time limit exceeded: the script ran longer than 1000 ms in one call; raise it with --lua-timeout MS"
    if p.returncode != 1 or want.encode() not in p.stdout + p.stderr:
        failures.append(f"shared-table rules: exit {p.returncode}, {(p.stdout + p.stderr)[-400:]!r}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(c)} cases, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""forge coverage on large generated suites: wall time, CPU time and peak RSS as tools and cases grow.

usage: run.py FORGE [--quick]

There is no peer to run side by side: agent-tool-forge's coverage check is a skill a model
follows (its overlap map and coverage checklist), not a program. The figures show how forge's
cost grows: cases are indexed per tool and pairs sorted once, so time grows with the number of
mentions and of overlapping pairs, not with tools x cases.
"""
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

WORDS = ["alpha", "beta", "gamma", "delta", "search", "web", "news", "email", "weather", "city",
         "stock", "quote", "order", "trade", "file", "page", "user", "report", "image", "video"]


def generate(d, tools, cases, seed=1):
    rnd = random.Random(seed)
    defs = [{"name": f"tool_{i}", "description": "Does " + " ".join(rnd.sample(WORDS, 5)) + " things.",
             "schema": {"type": "object", "properties": {"q": {"type": "string"}, "mode": {"enum": ["a", "b", "c"]},
                                                         "opt": {"type": "integer"}}, "required": ["q"]}}
            for i in range(tools)]
    with open(os.path.join(d, "tools.json"), "w") as f:
        json.dump(defs, f)
    files, per = [], 10000
    for k in range(0, cases, per):
        rows = []
        for i in range(k, min(cases, k + per)):
            a, b = f"tool_{rnd.randrange(tools)}", f"tool_{rnd.randrange(tools)}"
            rows.append({"id": f"ls-{i}", "input": {"message": "x"},
                         "expect": {"toolsCalled": [a], "toolsNotCalled": [b],
                                    "toolParams": [{"tool": a, "paramName": "mode", "assertion": "equals",
                                                    "value": rnd.choice("abc")}]}})
        path = os.path.join(d, f"e{k // per}.labeled.json")
        with open(path, "w") as f:
            json.dump(rows, f)
        files.append(path)
    return files


def measure(forge, d, files):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run([forge, "coverage", os.path.join(d, "tools.json"), *files, "--format", "json"],
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"forge coverage failed: {p.stderr}")
    rep = json.loads(p.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024, rep


def main():
    forge = os.path.abspath(sys.argv[1])
    sizes = [(50, 10000), (300, 10000), (300, 100000)] if "--quick" not in sys.argv else [(50, 10000)]
    print(f"{'tools':>6} {'cases':>8} {'pairs':>7} {'items':>7} {'wall s':>8} {'cpu s':>7} {'peak RSS MB':>12}")
    for tools, cases in sizes:
        with tempfile.TemporaryDirectory() as d:
            files = generate(d, tools, cases)
            wall, cpu, rss, rep = measure(forge, d, files)
            print(f"{tools:>6} {cases:>8} {len(rep['overlaps']):>7} {rep['items']:>7} {wall:>8.2f} {cpu:>7.2f} {rss:>12.1f}")


if __name__ == "__main__":
    main()

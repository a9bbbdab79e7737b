#!/usr/bin/env python3
"""Runs forge's and ajv's validators on one case file side by side, in short alternating slices,
and prints one JSON line per set with both rates (run.sh calls it; standard library only).

usage: slices.py MODE SECONDS CASE.json FORGE_DRIVER NODE_MODULES [BEFORE_DRIVER]

Each driver runs as one process for the whole file (bench_schema MODE serve CASE.json, node
ajv_bench.js NODE_MODULES MODE serve CASE.json; BEFORE_DRIVER, a bench_schema built at another
revision, a third). Per set (valid, then invalid): each side is calibrated to a number of passes
over the set that takes about SLICE_MS (20) milliseconds, warmed up for WARM_SECONDS (0.3) of
slices (V8 optimizes ajv's code in that time), then the sides run one slice each in turn until
each has run about SECONDS. A load that comes and goes on a shared machine then falls on both
sides alike, where figures taken one after the other (a second of forge, then a second of ajv)
can catch it on one side only. The rates are total passes over total time; "slices" is the
median of the slices' own ratios (each forge slice over the ajv slice right after it) and
"low" their tenth percentile."""
import json
import os
import subprocess
import sys

SLICE_MS = float(os.environ.get("SLICE_MS", "20"))
WARM_SECONDS = float(os.environ.get("WARM_SECONDS", "0.3"))


class Driver:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline().strip()
        if line != "ready":
            self.p.wait()
            sys.exit(f"slices.py: {cmd[0]} did not start (exit {self.p.returncode})")
        self.passes = 1

    def run(self, st, passes):
        """Nanoseconds that <passes> passes over set <st> took."""
        self.p.stdin.write(f"{st} {passes}\n")
        self.p.stdin.flush()
        return int(self.p.stdout.readline())

    def calibrate(self, st):
        n = 1
        while True:
            ns = self.run(st, n)
            if ns >= SLICE_MS * 1e6 / 4:
                self.passes = max(1, round(n * SLICE_MS * 1e6 / ns))
                return
            n *= 2

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    if len(sys.argv) < 6 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    mode, seconds, case, forge, modules = sys.argv[1:6]
    before = sys.argv[6] if len(sys.argv) > 6 else None
    here = os.path.dirname(os.path.abspath(__file__))
    names = ["forge", "ajv"] + (["before"] if before else [])
    sides = [Driver([forge, mode, "serve", case]),
             Driver(["node", os.path.join(here, "ajv_bench.js"), modules, mode, "serve", case])]
    if before:
        sides.append(Driver([before, mode, "serve", case]))
    with open(case) as f:
        c = json.load(f)
    groups = c.get("groups", [c])
    for st, set_name in enumerate(["valid", "invalid"]):
        per_pass = sum(len(g[set_name]) for g in groups)
        for d in sides:
            d.calibrate(st)
        warm = max(1, round(WARM_SECONDS * 1000 / SLICE_MS))
        for _ in range(warm):
            for d in sides:
                d.run(st, d.passes)
        for d in sides:  # again, now that V8 has optimized
            d.calibrate(st)
        total = [0] * len(sides)
        ratios = []
        n = max(3, round(float(seconds) * 1000 / SLICE_MS))
        for _ in range(n):
            ns = [d.run(st, d.passes) for d in sides]
            for i, t in enumerate(ns):
                total[i] += t
            ratios.append((sides[0].passes / ns[0]) / (sides[1].passes / ns[1]))
        ratios.sort()
        out = {"case": os.path.basename(case), "set": set_name,
               "slices": round(ratios[len(ratios) // 2], 4), "low": round(ratios[len(ratios) // 10], 4)}
        for name, d, t in zip(names, sides, total):
            out[name] = round(d.passes * n * per_pass / (t / 1e9))
        print(json.dumps(out), flush=True)
    for d in sides:
        d.close()


if __name__ == "__main__":
    main()

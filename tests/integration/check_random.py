#!/usr/bin/env python3
"""forge check on random, often malformed trajectories (default and --deep, several workers):
it never crashes (run under the sanitizers in CI), every line is either checked or reported as
skipped, and the exit code is a verdict (0 or 1).
usage: check_random.py FORGE_BIN"""
import os
import subprocess
import sys

FORGE = sys.argv[1]
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check")
failures = []
for seed in (1, 2, 3):
    data = subprocess.run([sys.executable, os.path.join(HERE, "random_trajectories.py"), str(seed), "1500"],
                          capture_output=True, text=True, check=True).stdout
    n = data.count("\n")
    for extra in ([], ["--deep"]):
        p = subprocess.run([FORGE, "check", "-", "--tools", os.path.join(HERE, "odd_tools.json"), "--format",
                            "jsonl", "-j", "3", *extra], input=data, capture_output=True, text=True, timeout=300)
        checked = p.stdout.count("\n") - 1  # JSON text may hold U+2028: count newlines only
        skipped = sum(1 for l in p.stderr.split("\n") if l.endswith("(line skipped)"))
        name = f"seed {seed} {' '.join(extra) or 'default'}"
        if p.returncode not in (0, 1):
            failures.append(f"{name}: exit {p.returncode}: {p.stderr[-2000:]}")
        elif "Sanitizer" in p.stderr or "runtime error" in p.stderr:
            failures.append(f"{name}: sanitizer report: {p.stderr[-2000:]}")
        elif checked + skipped != n:
            failures.append(f"{name}: {checked} checked + {skipped} skipped != {n} lines")
for f in failures:
    print("FAIL", f)
print(f"check on random input: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

#!/usr/bin/env python3
"""Agent-loop throughput: a generated suite on the scripted model with Lua tools, a verifier and
a custom assertion, at several sizes, printing cases/s and peak memory (to show it stays flat).
usage: tests/bench/agent/run.py [BUILD_DIR]"""
import os
import resource
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "build")
forge = os.path.join(build, "forge")
for n in (1000, 10000, 30000):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([forge, "script", os.path.join(here, "suite.lua"), "-q", "--lua-timeout", "60000",
                        "--", str(n)], capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = p.stdout.decode().strip().splitlines()[-2:] if p.stdout else []
    print(f"{n:6d} cases: {n / wall:8.0f} cases/s wall, {n / cpu:8.0f} cases/s per CPU second, "
          f"peak RSS {after.ru_maxrss / 1024:.1f} MiB (exit {p.returncode}) {last[:1]}")

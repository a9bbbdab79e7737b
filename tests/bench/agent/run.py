#!/usr/bin/env python3
"""Agent-loop throughput: a generated suite on the scripted model with Lua tools, a verifier and
a custom assertion, at several sizes, printing cases/s per CPU second and peak memory (to show it
stays flat). Given several build folders (for example one built from an older commit), prints
them side by side with the ratio of the last to the first. Each figure is the best of ROUNDS
runs (--rounds, 3 by default), the builds alternating within each round; the ratio column
gives the ratio of the bests and, after a slash, the median of the rounds' own ratios (each
round's last build over its first, measured one after the other: robust to a machine whose load
changes between rounds).

usage: tests/bench/agent/run.py [BUILD_DIR...] [--sizes 1000,10000,30000] [--rounds 3]

On a shared machine wall time depends on the neighbours; CPU seconds much less so. For
repeatable figures count instructions: valgrind --tool=callgrind BUILD/forge script suite.lua
-q -j 1 --lua-timeout 600000 -- N, at two sizes; the difference over the difference in N is the
cost of one case (docs/internals.md, "Profiling")."""
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
sizes = (1000, 10000, 30000)
if "--sizes" in args:
    i = args.index("--sizes")
    sizes = tuple(int(x) for x in args[i + 1].split(","))
    del args[i:i + 2]
rounds = 3
if "--rounds" in args:
    i = args.index("--rounds")
    rounds = max(1, int(args[i + 1]))
    del args[i:i + 2]
if "-h" in args or "--help" in args:
    print(__doc__)
    sys.exit(0)
builds = args or [os.path.join(here, "..", "..", "..", "build")]
for b in builds:
    if not os.access(os.path.join(b, "forge"), os.X_OK):
        sys.exit(f"run.py: {b} has no forge binary (give build folders; --help for usage)")


def run(build, n):
    # this child's own CPU time and peak RSS (os.wait4): RUSAGE_CHILDREN's ru_maxrss is the
    # largest of every child so far, so a second build would show the first one's peak
    forge = os.path.join(build, "forge")
    t = time.perf_counter()
    p = subprocess.Popen([forge, "script", os.path.join(here, "suite.lua"), "-q", "-j", "1",
                          "--lua-timeout", "600000", "--", str(n)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    ok = p.returncode == 0 and f"{n}/{n} passed" in out.decode()
    return n / cpu, n / wall, usage.ru_maxrss / 1024, ok

print(f"agent loop on the scripted model (-j 1): cases/s per CPU second (wall in brackets), peak RSS; "
      f"best of {rounds} rounds")
print(f"{'cases':>6} | " + " | ".join(f"{os.path.basename(os.path.abspath(os.path.join(b, '..'))) + '/' + os.path.basename(os.path.abspath(b)):>32}" for b in builds)
      + (" | ratio (best / median)" if len(builds) > 1 else ""))
for n in sizes:
    per_round = [[run(b, n) for b in builds] for _ in range(rounds)]
    best = [max((r[k] for r in per_round), key=lambda x: x[0]) for k in range(len(builds))]
    ok = [all(r[k][3] for r in per_round) for k in range(len(builds))]
    cells = [f"{c:8.0f} ({w:6.0f}) {max(r[k][2] for r in per_round):6.1f} MiB{'' if ok[k] else ' FAILED'}"
             for k, (c, w, rss, _) in enumerate(best)]
    line = f"{n:6d} | " + " | ".join(f"{c:>32}" for c in cells)
    if len(builds) > 1:
        ratios = sorted(r[-1][0] / r[0][0] for r in per_round)
        m = len(ratios)
        median = ratios[m // 2] if m % 2 else (ratios[m // 2 - 1] + ratios[m // 2]) / 2
        line += f" | {best[-1][0] / best[0][0]:.2f}x / {median:.2f}x"
    print(line)

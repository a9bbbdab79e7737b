#!/usr/bin/env python3
"""Benchmark: `forge check` against agent-eval-harness's tool-use checks (the reference) on the
same generated JSONL trajectories, plus a cJSON parse-only ceiling. Prints seconds, MB/s,
trajectories/s and peak RSS side by side, and the ratios. Not a test: no timed assertions.

usage: tests/bench/check/run.py [--mb 77] [--reference-src DIR] [--forge BIN] [--runs 3] [--rounds 8]

Then the two ratios of the performance goals, measured in alternation in one run (--rounds times;
best and median): `forge check -j 1` against the parse-only pass (wall and CPU), and the throughput
of `-j N` (N = the CPUs) against `-j 1`, with the parse-only pass's own N-thread speed-up beside it
as the control (on a busy machine neither reaches N). The load average is printed before and after:
figures taken while other work runs say so.

--reference-src is a checkout (or bare git directory) of github.com/reaatech/agent-eval-harness;
its packages/tool-use/src/*.ts are transpiled with TypeScript (installed from npm into
tests/bench/.scratch, git-ignored) and run under node. The npm registry has no published
@reaatech/agent-eval-harness-tool-use package, so the reference runs from source."""
import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SCRATCH = os.path.join(SRC, "tests", "bench", ".scratch", "check")


def sh(*cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def busy_seconds():
    """CPU seconds the whole machine has spent not idle (all programs, and time the hypervisor
    took), from /proc/stat; None where there is none."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def measure(cmd, stdin_path=None, stdin_cmd=None):
    """Runs cmd with stdout to /dev/null; returns (seconds, peak RSS MB, exit code, CPU seconds,
    voluntary context switches, CPU seconds other programs used meanwhile). A voluntary switch is
    a thread going to sleep: waiting for a lock, a condition or I/O, the idling that a busy
    machine does not cause."""
    devnull = open(os.devnull, "w")
    feeder = None
    stdin = open(stdin_path, "rb") if stdin_path else None
    if stdin_cmd:
        feeder = subprocess.Popen(stdin_cmd, stdout=subprocess.PIPE)
        stdin = feeder.stdout
    b0 = busy_seconds()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=devnull, stderr=subprocess.DEVNULL, stdin=stdin)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    b1 = busy_seconds()
    cpu = ru.ru_utime + ru.ru_stime
    others = max(0.0, b1 - b0 - cpu) if b0 is not None else 0.0
    if feeder:
        feeder.stdout.close()
        feeder.wait()
    return dt, ru.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status), cpu, ru.ru_nvcsw, others


def best(cmd, runs, **kw):
    """Best wall time and best CPU time of <runs> runs (the machine may be shared)."""
    res = [measure(cmd, **kw)[:4] for _ in range(runs)]
    return min(r[0] for r in res), max(r[1] for r in res), res[0][2], min(r[3] for r in res)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=77)
    ap.add_argument("--reference-src", default=os.environ.get("AEH_SRC"))
    ap.add_argument("--forge")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=8)
    a = ap.parse_args()
    os.makedirs(SCRATCH, exist_ok=True)

    data = os.path.join(SCRATCH, f"trajectories-{a.mb:g}mb.jsonl")
    tools = os.path.join(SCRATCH, "tools.json")
    if not os.path.exists(data) or not os.path.exists(tools):
        sh(sys.executable, os.path.join(HERE, "gen_trajectories.py"), data, tools, "--mb", str(a.mb))
    size_mb = os.path.getsize(data) / 1e6
    with open(data, "rb") as f:
        ntraj = sum(1 for _ in f)

    forge = a.forge
    if not forge:
        build = os.path.join(SCRATCH, "build-release")
        sh("cmake", "-S", SRC, "-B", build, "-DCMAKE_BUILD_TYPE=Release", stdout=subprocess.DEVNULL)
        sh("cmake", "--build", build, "-j2", "--target", "forge", stdout=subprocess.DEVNULL)
        forge = os.path.join(build, "forge")

    parse_only = os.path.join(SCRATCH, "parse_only")
    sh("cc", "-O2", "-o", parse_only, os.path.join(HERE, "parse_only.c"), "-lcjson", "-lpthread")

    rows = []
    ncpu = os.cpu_count() or 2
    t, rss, _, cpu = best([parse_only, data, "1"], a.runs)
    rows.append(("cJSON parse only, 1 thread", t, rss, cpu))
    t, rss, _, cpu = best([parse_only, data, str(ncpu)], a.runs)
    rows.append((f"cJSON parse only, {ncpu} threads", t, rss, cpu))
    base = [forge, "check", data, "--tools", tools, "--format", "jsonl"]
    t, rss, code, cpu = best(base + ["-j", "1"], a.runs)
    rows.append(("forge check -j 1", t, rss, cpu))
    t, rss, code, cpu = best(base, a.runs)
    forge_t, forge_cpu = t, cpu
    rows.append((f"forge check (-j {ncpu})", t, rss, cpu))
    t, rss, _, cpu = best([forge, "check", data, "--tools", tools, "--quiet"], a.runs)
    rows.append((f"forge check --quiet (text)", t, rss, cpu))
    t, rss, _, cpu = best(base + ["--deep"], a.runs)
    rows.append((f"forge check --deep", t, rss, cpu))

    ref_t = None
    if a.reference_src:
        ref = os.path.join(SCRATCH, "ref")
        lib = os.path.join(ref, "lib")
        srcdir = os.path.join(ref, "src")
        os.makedirs(srcdir, exist_ok=True)
        for f in ("validator", "schema-checker", "result-verifier"):
            rel = f"packages/tool-use/src/{f}.ts"
            path = os.path.join(a.reference_src, rel)
            if os.path.exists(path):
                shutil.copy(path, os.path.join(srcdir, f + ".ts"))
            else:
                with open(os.path.join(srcdir, f + ".ts"), "wb") as out:
                    sh("git", "--git-dir", a.reference_src, "show", "HEAD:" + rel, stdout=out)
        if not os.path.isdir(os.path.join(ref, "node_modules", "typescript")):
            sh("npm", "install", "--prefix", ref, "--no-audit", "--no-fund", "--silent", "typescript@5")
        sh("node", os.path.join(HERE, "build_ref.mjs"), os.path.join(ref, "node_modules"), srcdir, lib)
        t, rss, _, cpu = best(["node", os.path.join(HERE, "ref_check.mjs"), lib, data, tools], a.runs)
        ref_t, ref_cpu = t, cpu
        rows.append(("agent-eval-harness (node " + subprocess.run(["node", "--version"], capture_output=True,
                                                                   text=True).stdout.strip() + ")", t, rss, cpu))
    else:
        print("(no --reference-src: the reference is not run)")

    print(f"\n{ntraj} trajectories, {size_mb:.1f} MB, {ncpu} CPUs, best of {a.runs}\n")
    print(f"{'':34} {'seconds':>8} {'MB/s':>8} {'traj/s':>9} {'peak RSS':>9} {'CPU s':>7}"
          + ("  vs reference (wall, CPU)" if ref_t else ""))
    for name, t, rss, cpu in rows:
        ratio = f"  {ref_t / t:6.1f}x {ref_cpu / cpu:6.1f}x" if ref_t else ""
        print(f"{name:34} {t:8.2f} {size_mb / t:8.0f} {ntraj / t:9.0f} {rss:7.1f}MB {cpu:7.2f}{ratio}")

    # The goals' ratios, alternating the commands so that load changes hit them alike.
    load0 = os.getloadavg()
    alt = {"parse 1": [parse_only, data, "1"], f"parse {ncpu}": [parse_only, data, str(ncpu)],
           "check -j 1": base + ["-j", "1"], f"check -j {ncpu}": base + ["-j", str(ncpu)]}
    got = {k: [] for k in alt}
    for _ in range(a.rounds):
        for k, cmd in alt.items():
            t, _, _, cpu, vsw, others = measure(cmd)
            got[k].append((t, cpu, vsw, others / (t * ncpu)))
    load1 = os.getloadavg()

    def stat(k, i, f):
        v = sorted(x[i] for x in got[k])
        return v[0] if f == "best" else v[len(v) // 2]

    def paired(k1, k2, i=0):
        """Median over rounds of the ratio k1 / k2 within each round (runs taken seconds apart)."""
        v = sorted(x[i] / y[i] for x, y in zip(got[k1], got[k2]))
        return v[len(v) // 2]

    jn = f"check -j {ncpu}"
    pn = f"parse {ncpu}"
    print(f"\nalternating {a.rounds} rounds of parse only (1 and {ncpu} threads), check -j 1 and -j {ncpu}; "
          f"load average (1, 5, 15 min) before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after "
          f"{load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} on {ncpu} CPUs")
    print(f"{'':8} {'check -j 1 / parse only':>24}   {'-j ' + str(ncpu) + ' speed-up over -j 1':>26}")
    print(f"{'':8} {'wall':>7} {'CPU':>7} {'goal':>8}   {'check':>7} {'control':>8} {'goal':>9}")
    for f in ("best", "median"):
        print(f"{f:8} {stat('check -j 1', 0, f) / stat('parse 1', 0, f):6.2f}x {stat('check -j 1', 1, f) / stat('parse 1', 1, f):6.2f}x"
              f" {'<= 1.2x':>8}   x{stat('check -j 1', 0, f) / stat(jn, 0, f):6.2f} x{stat('parse 1', 0, f) / stat(pn, 0, f):7.2f}"
              f" {'>= x' + str(round(0.9 * ncpu, 2)):>9}")
    print(f"{'paired':8} {paired('check -j 1', 'parse 1'):6.2f}x {paired('check -j 1', 'parse 1', 1):6.2f}x"
          f" {'':8}   x{paired('check -j 1', jn):6.2f} x{paired('parse 1', pn):7.2f}"
          "   (median of each round's own ratio)")
    # What load does not distort: the CPU time that -j N adds to -j 1's (overhead), and the sleeps
    # (voluntary context switches) that are waits inside the program.
    print(f"CPU seconds, median: check -j 1 {stat('check -j 1', 1, 'median'):.3f}, -j {ncpu} {stat(jn, 1, 'median'):.3f}"
          f" ({stat(jn, 1, 'median') / stat('check -j 1', 1, 'median'):.2f}x; control {stat(pn, 1, 'median') / stat('parse 1', 1, 'median'):.2f}x);"
          f" voluntary context switches, median: -j 1 {stat('check -j 1', 2, 'median'):.0f}, -j {ncpu} {stat(jn, 2, 'median'):.0f}"
          f" (control {stat(pn, 2, 'median'):.0f})")
    # The share of the CPUs that other programs took while these ran: the load average cannot
    # tell it, as it counts the benchmark's own threads.
    share = sorted(x[3] for k in alt for x in got[k])
    print(f"other programs used {100 * share[len(share) // 2]:.0f} % of the {ncpu} CPUs during the runs "
          f"(median; {100 * share[-1]:.0f} % at most)")
    # forge's start-up (about 6 ms, most of it the dynamic loader) is serial: under 0.15 s it
    # takes several percent off the speed-up
    short = stat(jn, 0, "best") < 0.15
    busy = share[len(share) // 2] > 0.05
    if short or busy:
        print("caution: " + "; ".join(
            (["the -j %d run takes %.2f s: fixed costs (start-up, the last chunks) weigh on the speed-up; "
              "use a bigger --mb" % (ncpu, stat(jn, 0, "best"))] if short else []) +
            (["other programs shared the CPUs, so the wall ratios (the control's too) are low and scattered, "
              "and a program gets a share of the CPUs that grows with its thread count, not its speed; "
              "trust the CPU and context-switch figures, or run again on an idle machine"] if busy else [])))

    # Memory on a stream four times the size, through stdin.
    t, rss, _, _, _, _ = measure([forge, "check", "-", "--tools", tools, "--format", "jsonl"],
                           stdin_cmd=["cat", data, data, data, data])
    print(f"\nforge check on a {4 * size_mb:.0f} MB stream (stdin): {t:.2f} s, {4 * size_mb / t:.0f} MB/s, "
          f"peak RSS {rss:.1f} MB")
    load = os.getloadavg()[0]
    print(f"load average at the end: {load:.2f} on {ncpu} CPUs (wall times suffer when it exceeds 0)")
    if ref_t:
        print(f"forge / reference throughput: {ref_t / forge_t:.1f}x wall, {ref_cpu / forge_cpu:.1f}x CPU time")
        # Same verdicts: every trajectory's validation results and summary, field for field.
        import json
        ref_out = subprocess.run(["node", os.path.join(HERE, "ref_check.mjs"), lib, data, tools],
                                 capture_output=True, text=True, check=True).stdout.splitlines()
        forge_out = subprocess.run(base, capture_output=True, text=True).stdout.splitlines()[:-1]
        same = 0
        for r, f in zip(ref_out, forge_out):
            r, f = json.loads(r), json.loads(f)
            val = [{k: v for k, v in x.items() if k != "turn_id"} for x in f["validation"]]
            same += r["validation"] == val and r["summary"] == f["summary"]
        print(f"identical results (validation and summary, every field): {same} of {len(ref_out)} trajectories")


if __name__ == "__main__":
    main()

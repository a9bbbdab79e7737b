#!/usr/bin/env python3
"""Provider concurrency benchmark: forge against promptfoo on the same local fake model server.

usage: python3 tests/bench/providers/run.py [--forge build/forge] [--cases 200] [--jobs 20]
                                            [--delay-ms 200] [--no-promptfoo]

Starts tests/support/fake_provider.py on 127.0.0.1 with a fixed delay per answer, then sends
the same tool-calling chat request (system prompt, one tool, OpenAI chat completions dialect)
<cases> times with <jobs> in flight:
  forge      forge model batch --no-cache -n CASES -j JOBS
  promptfoo  promptfoo eval --no-cache -j JOBS on a generated config with CASES test cases
             (installed on demand with npm into tests/bench/.scratch, which git ignores)
and prints, side by side, wall time against the ideal (cases / jobs * delay), CPU time per
call, and peak memory, with the ratios. Nothing here is a pass/fail test."""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRATCH = os.path.join(ROOT, "tests", "bench", ".scratch")
FAKE = os.path.join(ROOT, "tests", "support", "fake_provider.py")

TOOL = {"name": "get_weather", "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
SYSTEM = "You are a weather assistant."


def measure(argv, env, cwd=None):
    """Runs argv; returns (exit code, wall s, cpu s, peak RSS MiB, stdout, stderr)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    wall = time.monotonic() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p.returncode, wall, out.decode(), err.decode(), ru


def child_usage(before, after):
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def run_forge(args, port, tmp):
    req = {"system": SYSTEM, "messages": [{"role": "user", "content": "Hello"}], "tools": [TOOL]}
    path = os.path.join(tmp, "request.json")
    with open(path, "w") as f:
        json.dump(req, f)
    env = dict(os.environ, OPENAI_API_KEY="sk-bench")
    argv = ["/usr/bin/time", "-f", "%M", args.forge, "model", "batch", "--model", "openai:bench", "--base-url",
            "http://127.0.0.1:%d/v1" % port, "--no-cache", "-n", str(args.cases), "-j", str(args.jobs), path]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc, wall, out, err, after = measure(argv, env)
    if rc != 0:
        sys.exit("forge failed (%d): %s" % (rc, err))
    summary = json.loads(out)
    rss_kib = int(err.strip().splitlines()[-1])
    return {"wall": wall, "cpu": child_usage(before, after), "rss": rss_kib / 1024.0, "ok": summary["ok"],
            "inner_wall": summary["wall_ms"] / 1000.0}


def ensure_promptfoo():
    exe = os.path.join(SCRATCH, "node_modules", ".bin", "promptfoo")
    if not os.path.exists(exe):
        os.makedirs(SCRATCH, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "promptfoo"], cwd=SCRATCH, check=True)
    return exe


def run_promptfoo(args, port, tmp):
    exe = ensure_promptfoo()
    cfg = os.path.join(tmp, "promptfooconfig.json")
    config = {
        "description": "forge provider benchmark",
        "prompts": [json.dumps([{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hello {{i}}"}])],
        "providers": [{"id": "openai:chat:bench", "config": {
            "apiBaseUrl": "http://127.0.0.1:%d/v1" % port, "apiKey": "sk-bench",
            "tools": [{"type": "function", "function": TOOL}]}}],
        "tests": [{"vars": {"i": i}} for i in range(args.cases)],
        "evaluateOptions": {"maxConcurrency": args.jobs},
    }
    with open(cfg, "w") as f:
        json.dump(config, f)
    home = os.path.join(tmp, "pf-home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, PROMPTFOO_CONFIG_DIR=home, PROMPTFOO_DISABLE_TELEMETRY="1",
               PROMPTFOO_DISABLE_UPDATE="1", PROMPTFOO_DISABLE_SHARING="1", PROMPTFOO_CACHE_ENABLED="false",
               PROMPTFOO_SELF_HOSTED="1", NO_COLOR="1", CI="1")
    argv = ["/usr/bin/time", "-f", "%M", exe, "eval", "-c", cfg, "--no-cache", "-j", str(args.jobs),
            "--no-write", "--no-table", "--no-progress-bar", "-o", os.path.join(tmp, "pf-out.json")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc, wall, out, err, after = measure(argv, env, cwd=tmp)
    try:
        with open(os.path.join(tmp, "pf-out.json")) as f:
            res = json.load(f)
        stats = res.get("results", {}).get("stats", {})
        ok = stats.get("successes", 0) + stats.get("failures", 0)
    except (OSError, ValueError):
        sys.exit("promptfoo failed (%d):\n%s\n%s" % (rc, out[-2000:], err[-2000:]))
    rss_kib = int(err.strip().splitlines()[-1])
    return {"wall": wall, "cpu": child_usage(before, after), "rss": rss_kib / 1024.0, "ok": ok}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--forge", default=os.path.join(ROOT, "build", "forge"))
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=20)
    ap.add_argument("--delay-ms", type=int, default=200)
    ap.add_argument("--no-promptfoo", action="store_true")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="forge-bench-providers-")
    port_file = os.path.join(tmp, "port")
    fake = subprocess.Popen([sys.executable, FAKE, "--port-file", port_file, "--delay-ms", str(args.delay_ms),
                             "--max-seconds", "600"])
    try:
        for _ in range(200):
            if os.path.exists(port_file):
                break
            time.sleep(0.02)
        port = int(open(port_file).read())
        ideal = args.cases / args.jobs * args.delay_ms / 1000.0
        f = run_forge(args, port, tmp)
        print("fake server: %d ms per answer; %d cases at -j %d; ideal wall %.2f s" % (args.delay_ms, args.cases,
                                                                                  args.jobs, ideal))
        print("%-10s %9s %11s %12s %14s %9s" % ("tool", "wall s", "vs ideal", "CPU ms/call", "peak RSS MiB", "answers"))
        print("%-10s %9.2f %10.2fx %12.3f %14.1f %9d" % ("forge", f["wall"], f["wall"] / ideal,
                                                       f["cpu"] * 1000 / args.cases, f["rss"], f["ok"]))
        print("  (forge's own timing of the batch, without process start: %.2f s = %.2fx ideal)" %
              (f["inner_wall"], f["inner_wall"] / ideal))
        if not args.no_promptfoo:
            p = run_promptfoo(args, port, tmp)
            print("%-10s %9.2f %10.2fx %12.3f %14.1f %9d" % ("promptfoo", p["wall"], p["wall"] / ideal,
                                                           p["cpu"] * 1000 / args.cases, p["rss"], p["ok"]))
            print("ratios promptfoo/forge: wall %.2fx, CPU %.1fx, peak memory %.1fx" % (
                p["wall"] / f["wall"], p["cpu"] / f["cpu"] if f["cpu"] else float("inf"), p["rss"] / f["rss"]))
    finally:
        fake.terminate()
        fake.wait()


if __name__ == "__main__":
    main()

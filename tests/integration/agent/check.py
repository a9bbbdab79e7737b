#!/usr/bin/env python3
"""Whole suites on the scripted model, end to end: exit codes, console lines, and the exact
trajectories (--save-transcripts) and JSON report, with timings and timestamps removed.

usage: check.py FORGE [--update]   (--update rewrites the expected files; review the diff)
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
VOLATILE = {"timestamp", "latency_ms", "model_latency_ms", "durationMs", "latencyMs", "runId",
            "totalDurationMs", "p50LatencyMs", "p95LatencyMs"}


def scrub(v):
    if isinstance(v, dict):
        return {k: scrub(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [scrub(x) for x in v]
    return v


def start_server():
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "server.py")], stdout=subprocess.PIPE)
    port = p.stdout.readline().decode().strip()
    return p, port


def main():
    forge = os.path.abspath(sys.argv[1])
    update = "--update" in sys.argv
    failures = []
    server, port = start_server()
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, FORGE_TEST_KEY="k123")

    def run(name, args, exit_code, cwd=ROOT, stderr_has=(), stdout_has=(), expected=None,
            transcript_has=()):
        tr = os.path.join(tmp, name + ".jsonl")
        rep = os.path.join(tmp, name + ".json")
        extra = ["--save-transcripts", tr, "--report", "json=" + rep] if expected or transcript_has else []
        p = subprocess.run([forge] + args[:1] + extra + args[1:], cwd=cwd, capture_output=True,
                           env=env, timeout=120)
        out, err = p.stdout.decode(), p.stderr.decode()
        problems = []
        if p.returncode != exit_code:
            problems.append(f"exit {p.returncode}, expected {exit_code}")
        problems += [f"stderr lacks {s!r}" for s in stderr_has if s not in err]
        problems += [f"stdout lacks {s!r}" for s in stdout_has if s not in out]
        text = open(tr, encoding="utf-8").read() if transcript_has and os.path.exists(tr) else ""
        problems += [f"transcripts lack {s!r}" for s in transcript_has if s not in text]
        if expected and os.path.exists(tr):
            got = {"transcripts": sorted((scrub(json.loads(l)) for l in open(tr, encoding="utf-8")),
                                         key=lambda t: t["trajectory_id"]),
                   "report": scrub(json.load(open(rep, encoding="utf-8")))}
            path = os.path.join(HERE, "expected", expected)
            if update:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(got, f, indent=1, ensure_ascii=False, sort_keys=True)
                    f.write("\n")
            else:
                want = json.load(open(path, encoding="utf-8"))
                if want != got:
                    problems.append(f"transcripts/report differ from expected/{expected}:\n"
                                    + json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True)[:4000])
        elif expected:
            problems.append("no transcripts written")
        if problems:
            failures.append(name)
            print(f"FAIL {name}: " + "; ".join(problems))
            print("  stdout: " + out[-1500:])
            print("  stderr: " + err[-1500:])
        else:
            print(f"ok   {name}")

    run("demo", ["script", "scripts/demo.lua"], 1, expected="demo.json",
        stdout_has=["✗ gs-weather-004", "custom:quotes_tool_temperature: the answer says 30°C, which no tool returned",
                    "✗ 7/8 passed (87.5%)", "gate passRate >= 0.8: actual 0.875 pass"])
    run("demo on 4 workers", ["script", "scripts/demo.lua", "-j", "4"], 1, expected="demo.json")
    run("tools", ["script", "tests/integration/agent/tools_suite.lua", "--allow-net", "--allow-env",
                  "FORGE_TEST_KEY", "--lua-memory", "64", "--", port], 0, expected="tools.json")
    run("headers_from_env needs --allow-env", ["script", "tests/integration/agent/tools_suite.lua",
                                                "--allow-net", "--", port], 1,
        transcript_has=["http.headers_from_env: the environment variable FORGE_TEST_KEY is not let "
                        "through; allow it with --allow-env FORGE_TEST_KEY"])
    run("http tools need --allow-net", ["script", "tests/integration/agent/tools_suite.lua", "--", port], 1,
        transcript_has=["HTTP tools defined in scripts need network access: run forge with --allow-net"])
    run("rules from the command line",
        ["script", "scripts/demo.lua", "--model", "scripted:tests/integration/agent/rules.lua"], 1,
        stdout_has=["✓ gs-weather-001", "✗ gs-weather-002"])
    run("unknown suite key", ["script", "tests/integration/agent/bad_suite.lua"], 2,
        stderr_has=["suite 'bad': unknown key 'casez' (name, model, tools, verifiers, cases, policy, approve, system, params, gates, stream)"])
    run("bad case", ["script", "tests/integration/agent/bad_case.lua"], 2,
        stderr_has=["suite 'bad': cases[1]: ", "toolsCaled", "toolsCalled"])
    run("bad rule", ["script", "tests/integration/agent/bad_rule.lua"], 2,
        stderr_has=["bad_rule.lua:4: scripted rule 1: unknown key 'mach' (match, case, when, steps, calls, reply, name)"])
    run("scripted needs rules", ["script", "scripts/demo.lua", "--model", "scripted"], 2,
        stderr_has=["the scripted model needs rules: --model scripted:RULES.lua"])
    run("missing key", ["script", "scripts/demo.lua", "--model", "anthropic:claude-x"], 2,
        stderr_has=["ANTHROPIC_API_KEY"])
    run("forge run live, Lua tools", ["run", "evals/demo/weather.golden.json", "evals/demo/weather.labeled.json",
                                       "--tools", "scripts/weather/tools.lua",
                                       "--assertions", "scripts/weather/assertions.lua",
                                       "--model", "scripted:scripts/weather/rules.lua", "-j", "2"], 1,
        expected="run_live.json", stdout_has=["✗ 7/8 passed (87.5%)"])
    run("forge run live, JSON tools", ["run", "tests/integration/agent/live.json",
                                        "--tools", "tests/integration/agent/tools.json",
                                        "--model", "scripted:tests/integration/agent/rules.lua"], 0,
        expected="run_live_json.json", stdout_has=["✓ 2/2 passed (100.0%)"])
    run("Lua tools need --model", ["run", "tests/integration/agent/live.json", "--tools", "scripts/weather/tools.lua"], 2,
        stderr_has=["run: --tools scripts/weather/tools.lua: Lua tools run only in live runs (add --model)"])
    run("transcripts or model", ["run", "tests/integration/agent/live.json", "--transcripts", "x.jsonl",
                                 "--model", "scripted:tests/integration/agent/rules.lua"], 2,
        stderr_has=["give one of them"])
    run("metatables on suite tables do not run", ["script", "tests/integration/agent/tricky_suite.lua"], 0,
        stdout_has=["✓ 1/1 passed (100.0%)"])
    run("a replaced forge.verifiers runs as user code", ["script", "tests/integration/agent/tricky_suite.lua",
                                                          "--", "replace"], 2,
        stderr_has=["tricky_suite.lua:7: verifiers replaced"])
    run("forge.http", ["script", "tests/integration/agent/http_spec.lua", "--allow-net", "--", port], 0,
        stdout_has=["5 passed, 0 failed"])
    run("forge.http needs --allow-net", ["script", "tests/integration/agent/http_spec.lua", "--", port], 2,
        stdout_has=["network access is off; run forge with --allow-net"])
    # the progress line: on stderr when it is a terminal, never on stdout
    master, slave = os.openpty()
    p = subprocess.run([forge, "script", "scripts/demo.lua", "-q"], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=slave, timeout=60)
    os.close(slave)
    tty = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        tty += chunk
    os.close(master)
    tty = tty.decode(errors="replace")
    if "[8/8] passed 7, failed 1, errors 0" not in tty or "cases/s" not in p.stdout.decode() + tty \
            or "\033[K" in p.stdout.decode():
        failures.append("progress line")
        print("FAIL progress line: " + repr(tty[-300:]))
    else:
        print("ok   progress line")
    server.kill()
    print(f"{0 if failures else 'all'} ok; {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs the `forge run` integration cases: each case runs forge with arguments in this folder
and checks the exit code, the exact stdout and stderr, and report files byte for byte.

usage: cases.py FORGE CASES.json

A case: {"name", "args": [...], "exit": 0, "stdout": "exact" (optional), "stderr": "exact"
(optional), "stderr_has": [...], "stdin_file": "file fed to stdin" (optional),
"files": {"$OUT/r.json": "expected/r.json"}}.
"$OUT" in args and file names is a fresh temporary folder. SOURCE_DATE_EPOCH is fixed so the
run id and timestamp are reproducible. Set FORGE_UPDATE=1 to rewrite the expected files.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    forge, cases_path = os.path.abspath(sys.argv[1]), sys.argv[2]
    here = os.path.dirname(os.path.abspath(cases_path))
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1763700000")
    update = os.environ.get("FORGE_UPDATE") == "1"
    failures = 0
    for case in cases:
        out_dir = tempfile.mkdtemp(prefix="forge-run-")
        try:
            args = [a.replace("$OUT", out_dir) for a in case["args"]]
            stdin = open(os.path.join(here, case["stdin_file"]), "rb").read() if "stdin_file" in case else b""
            p = subprocess.run([forge] + args, cwd=here, capture_output=True, env=env, timeout=120, input=stdin)
            out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
            problems = []
            if p.returncode != case.get("exit", 0):
                problems.append(f"exit {p.returncode}, expected {case.get('exit', 0)}")
            if "stdout" in case and out != case["stdout"]:
                problems.append(f"stdout differs:\n--- got\n{out}--- expected\n{case['stdout']}")
            if "stderr" in case and err != case["stderr"]:
                problems.append(f"stderr differs:\n--- got\n{err}--- expected\n{case['stderr']}")
            for frag in case.get("stderr_has", []):
                if frag not in err:
                    problems.append(f"stderr lacks {frag!r}")
            for produced, expected in case.get("files", {}).items():
                produced = produced.replace("$OUT", out_dir)
                expected = os.path.join(here, expected)
                if not os.path.exists(produced):
                    problems.append(f"{os.path.basename(produced)} was not written")
                    continue
                got = open(produced, "rb").read()
                if update:
                    os.makedirs(os.path.dirname(expected), exist_ok=True)
                    open(expected, "wb").write(got)
                    continue
                want = open(expected, "rb").read()
                if got != want:
                    problems.append(f"{os.path.basename(produced)} differs from {expected}:\n"
                                    f"--- got\n{got.decode('utf-8', 'replace')}")
            leftovers = [n for n in os.listdir(out_dir) if ".tmp." in n]
            if leftovers:
                problems.append(f"temporary files left: {leftovers}")
        finally:
            shutil.rmtree(out_dir, ignore_errors=True)
        if problems:
            failures += 1
            print(f"FAIL {case['name']}: " + "\n  ".join(problems))
        else:
            print(f"ok   {case['name']}")
    print(f"{len(cases) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

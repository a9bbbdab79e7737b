#!/usr/bin/env python3
"""Runs the CLI cases of one JSON file: each case runs forge with arguments and checks the exit
code and the exact stdout and/or fragments of stderr.

usage: cases.py FORGE CASES.json

A case: {"name": "...", "args": ["script", "x.lua"], "exit": 2,
         "stdout": "exact text" (optional), "stdout_has": [...], "stderr_has": [...],
         "stderr_lacks": [...], "stdin": "..." (optional), "timeout": 30}
Paths in args are relative to the folder of CASES.json, where forge runs.
"""
import json
import os
import subprocess
import sys


def main():
    forge, cases_path = os.path.abspath(sys.argv[1]), sys.argv[2]
    here = os.path.dirname(os.path.abspath(cases_path))
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    failures = 0
    for case in cases:
        try:
            p = subprocess.run([forge] + case["args"], cwd=here, capture_output=True,
                               input=case.get("stdin", "").encode(),
                               timeout=case.get("timeout", 60))
            out, err, code = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), p.returncode
        except subprocess.TimeoutExpired:
            out, err, code = "", "(timed out)", None
        problems = []
        if code != case.get("exit", 0):
            problems.append(f"exit {code}, expected {case.get('exit', 0)}")
        if "stdout" in case and out != case["stdout"]:
            problems.append(f"stdout differs:\n--- got\n{out}\n--- expected\n{case['stdout']}")
        for frag in case.get("stdout_has", []):
            if frag not in out:
                problems.append(f"stdout lacks {frag!r}")
        for frag in case.get("stderr_has", []):
            if frag not in err:
                problems.append(f"stderr lacks {frag!r}")
        for frag in case.get("stderr_lacks", []):
            if frag in err:
                problems.append(f"stderr has {frag!r}")
        if problems:
            failures += 1
            print(f"FAIL {case['name']}: " + "; ".join(problems))
            print(f"  stderr was: {err[:2000]}")
        else:
            print(f"ok   {case['name']}")
    print(f"{len(cases) - failures}/{len(cases)} passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""End-to-end checks of `forge bfcl score` on the example under evals/bfcl.

usage: bfcl_cli.py FORGE SRC_DIR WORK_DIR

The expected score files in tests/integration/bfcl/expected were checked against BFCL's own
checker. Also covers the flags and the exit codes for bad usage and bad input.
"""
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(forge, *args):
    p = subprocess.run([forge, "bfcl", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    forge, src, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data = os.path.join(src, "evals", "bfcl", "data")
    results = os.path.join(src, "evals", "bfcl", "result")
    expected = os.path.join(src, "tests", "integration", "bfcl", "expected")

    out = os.path.join(work, "score")
    code, stdout, stderr = run(forge, "score", "--data", data, "--results", results, "--out", out)
    check(code == 0, f"example run exited {code}: {stderr}")
    table = [line.split() for line in stdout.splitlines()]
    check(table == [["model", "category", "accuracy", "correct", "total"],
                    ["my-model-FC", "simple_python", "66.67%", "2", "3"],
                    ["my-model-FC", "parallel", "100.00%", "1", "1"],
                    ["my-model-FC", "irrelevance", "50.00%", "1", "2"]], f"table: {stdout!r}")
    for name in sorted(os.listdir(expected)):
        got = os.path.join(out, "my-model-FC", "non_live", name)
        check(os.path.exists(got), f"no score file {got}")
        if os.path.exists(got):
            with open(got, "rb") as a, open(os.path.join(expected, name), "rb") as b:
                check(a.read() == b.read(), f"{name} differs from the expected score file")

    # --category and --model-name
    code, stdout, _ = run(forge, "score", "--data", data, "--results", results, "--category",
                          "parallel", "--model-name", "m")
    check(code == 0 and stdout.splitlines()[1].split() == ["m", "parallel", "100.00%", "1", "1"]
          and len(stdout.splitlines()) == 2, f"--category: {stdout!r}")

    # --underscore-to-dot: the example spells dotted names with dots, so those calls now fail
    # (and the third entry fails anyway)
    code, stdout, _ = run(forge, "score", "--data", data, "--results", results, "--underscore-to-dot",
                          "--category", "simple_python")
    check(code == 0 and stdout.splitlines()[1].split()[2] == "0.00%", f"--underscore-to-dot: {stdout!r}")

    # bad usage and bad input exit 2 with a message naming the problem
    code, _, stderr = run(forge, "score", "--results", results)
    check(code == 2 and "--data" in stderr, f"missing --data: {code} {stderr!r}")
    code, _, stderr = run(forge, "score", "--data", data, "--results", results, "--category", "multi_turn")
    check(code == 2 and "multi_turn" in stderr, f"unknown category: {code} {stderr!r}")
    code, _, stderr = run(forge, "frobnicate")
    check(code == 2, f"unknown subcommand: {code}")

    bad = os.path.join(work, "bad", "m", "non_live")
    os.makedirs(bad)
    with open(os.path.join(bad, "BFCL_v4_parallel_result.json"), "w") as f:
        f.write('{"id": "parallel_0", "result": []}\n{"id": x}\n')
    code, _, stderr = run(forge, "score", "--data", data, "--results", os.path.join(work, "bad"))
    check(code == 2 and "BFCL_v4_parallel_result.json:2:8: invalid JSON: Expecting value" in stderr,
          f"invalid JSON line: {code} {stderr!r}")
    with open(os.path.join(bad, "BFCL_v4_parallel_result.json"), "w") as f:
        f.write('{"id": "parallel_9", "result": []}\n')
    code, _, stderr = run(forge, "score", "--data", data, "--results", os.path.join(work, "bad"))
    check(code == 2 and "'parallel_9' is not in" in stderr, f"unknown id: {code} {stderr!r}")
    with open(os.path.join(bad, "BFCL_v4_parallel_result.json"), "w") as f:
        f.write("")
    os.makedirs(os.path.join(work, "bad2", "m"))
    with open(os.path.join(work, "bad2", "m", "BFCL_v4_irrelevance_result.json"), "w") as f:
        f.write('{"id": "irrelevance_1", "result": []}\n')
    code, _, stderr = run(forge, "score", "--data", data, "--results", os.path.join(work, "bad2"))
    check(code == 2 and "no result for 'irrelevance_0'" in stderr, f"missing result: {code} {stderr!r}")
    code, stdout, stderr = run(forge, "score", "--data", data, "--results", os.path.join(work, "bad2"),
                               "--partial")
    check(code == 0 and stdout.splitlines()[1].split() == ["m", "irrelevance", "100.00%", "1", "1"],
          f"--partial: {code} {stdout!r} {stderr!r}")
    code, _, stderr = run(forge, "score", "--data", os.path.join(work, "nowhere"), "--results",
                          os.path.join(work, "bad2"))
    check(code == 2 and "nowhere" in stderr, f"missing data file: {code} {stderr!r}")

    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

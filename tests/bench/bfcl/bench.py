#!/usr/bin/env python3
"""BFCL scoring speed: forge bfcl score vs BFCL's own Python checker, on the same files.

usage: bench.py BFCL_ROOT [--forge PATH] [--data DIR] [--runs N] [--work DIR]

BFCL_ROOT: the folder holding BFCL's `bfcl_eval` package, e.g. a clone of
https://github.com/ShishirPatil/gorilla at berkeley-function-call-leaderboard (put it under
tests/bench/.scratch/, which git ignores). --data defaults to ../shared/testdata/bfcl.

Builds synthetic results for every question of the 13 AST and relevance categories for two
model settings (make_results.py), scores them with both tools (each in one process, as
`bfcl evaluate` scores several models in one run), checks that the score files are
identical, and prints wall-clock figures for whole runs (process start, file loading, checking,
writing score files) side by side. Best of --runs (default 3) for BFCL, of at least 10 for forge.
"""
import argparse
import filecmp
import json
import os
import resource
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
MODELS = {"gpt-4o-2024-11-20-FC": True, "firefunction-v2-FC": False}


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
        return False
    for name in cmp.common_files:
        if not filecmp.cmp(os.path.join(a, name), os.path.join(b, name), shallow=False):
            return False
    return all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bfcl_root")
    ap.add_argument("--forge", default=os.path.join(SRC, "build", "forge"))
    ap.add_argument("--data", default=os.path.join(SRC, "..", "shared", "testdata", "bfcl"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(SRC, "tests", "bench", ".scratch", "bfcl-bench"))
    args = ap.parse_args()

    results = os.path.join(args.work, "result")
    shutil.rmtree(args.work, ignore_errors=True)
    out = subprocess.run([sys.executable, os.path.join(HERE, "make_results.py"), args.data, results],
                         check=True, capture_output=True, text=True)
    entries = int(out.stdout.strip())

    forge_best = None
    for _ in range(max(10, 3 * args.runs)):  # short runs: more samples against scheduling noise
        shutil.rmtree(os.path.join(args.work, "forge"), ignore_errors=True)
        cmd = [args.forge, "bfcl", "score", "--data", args.data, "--results", results,
               "--out", os.path.join(args.work, "forge")]
        for model, u2d in MODELS.items():
            if u2d:
                cmd += ["--underscore-to-dot-for", model]
        c0, t0 = child_cpu(), time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        dt, dc = time.perf_counter() - t0, child_cpu() - c0
        if forge_best is None or dt < forge_best:
            forge_best, forge_cpu = dt, dc

    ref_best = None
    ref_inner = None
    for _ in range(args.runs):
        shutil.rmtree(os.path.join(args.work, "bfcl"), ignore_errors=True)
        c0, t0 = child_cpu(), time.perf_counter()
        run = subprocess.run([sys.executable, os.path.join(HERE, "bfcl_reference.py"), args.bfcl_root,
                              args.data, results, os.path.join(args.work, "bfcl")],
                             check=True, capture_output=True, text=True)
        dt, dc = time.perf_counter() - t0, child_cpu() - c0
        inner = json.loads(run.stdout.strip().splitlines()[-1])
        if ref_best is None or dt < ref_best:
            ref_best, ref_inner, ref_cpu = dt, inner, dc

    identical = all(same_tree(os.path.join(args.work, "forge", m), os.path.join(args.work, "bfcl", m))
                    for m in MODELS)
    per_entry_us = ref_inner["evaluate_seconds"] / entries * 1e6
    print(f"BFCL scoring, {entries} entries (13 categories x 2 model settings), best run of each")
    print(f"{'':34}{'seconds':>10}{'entries/s':>14}{'CPU s':>10}")
    print(f"{'forge bfcl score (whole run)':34}{forge_best:10.3f}{entries / forge_best:14.0f}{forge_cpu:10.3f}")
    print(f"{'BFCL checker (whole run)':34}{ref_best:10.3f}{entries / ref_best:14.0f}{ref_cpu:10.3f}")
    print(f"{'  of which import + start-up':34}{ref_inner['import_seconds']:10.3f}")
    print(f"{'  of which evaluate_task':34}{ref_inner['evaluate_seconds']:10.3f}"
          f"{entries / ref_inner['evaluate_seconds']:14.0f}   ({per_entry_us:.1f} us/entry)")
    print(f"{'  of which per-entry checks':34}{ref_inner['entry_check_seconds']:10.3f}"
          f"{entries / ref_inner['entry_check_seconds']:14.0f}   "
          f"({ref_inner['entry_check_seconds'] / entries * 1e6:.1f} us/entry)")
    print(f"speed-up, whole run: {ref_best / forge_best:.1f}x wall-clock, {ref_cpu / forge_cpu:.1f}x CPU time")
    print(f"speed-up vs BFCL's evaluate_task alone: {ref_inner['evaluate_seconds'] / forge_best:.1f}x")
    print(f"score files identical: {'yes' if identical else 'NO'}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())

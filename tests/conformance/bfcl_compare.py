#!/usr/bin/env python3
"""Runs `forge bfcl score` over BFCL's dev oracle and compares every score file with the one
BFCL's own checker wrote.

usage: bfcl_compare.py FORGE DEV_DIR OUT_DIR

For each model folder under DEV_DIR/result (gpt-4o-2024-11-20-FC is scored with
--underscore-to-dot, firefunction-v2-FC without), every category's score file must match
DEV_DIR/score/<model>/<group>/BFCL_v4_<category>_score.json: the header (accuracy,
correct_count, total_count), the failing ids in order, and for each failing entry every field
BFCL writes (valid, error_type, error messages including the per-candidate sub-errors of
parallel matching, model_name, test_category, prompt, model results, possible answer).
Exits 1 with a list of the differences otherwise.
"""
import json
import os
import shutil
import subprocess
import sys

MODELS = {"gpt-4o-2024-11-20-FC": True, "firefunction-v2-FC": False}


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    forge, dev, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    problems = []
    compared = entries = failing = 0
    for model, u2d in MODELS.items():
        cmd = [forge, "bfcl", "score", "--data", dev, "--results",
               os.path.join(dev, "result", model), "--out", os.path.join(out, model)]
        if u2d:
            cmd.append("--underscore-to-dot")
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{' '.join(cmd)} exited {run.returncode}:\n{run.stderr}", file=sys.stderr)
            return 1
        ref_root = os.path.join(dev, "score", model)
        for group in sorted(os.listdir(ref_root)):
            for name in sorted(os.listdir(os.path.join(ref_root, group))):
                ref_path = os.path.join(ref_root, group, name)
                got_path = os.path.join(out, model, group, name)
                label = f"{model}/{group}/{name}"
                if not os.path.exists(got_path):
                    problems.append(f"{label}: forge wrote no score file")
                    continue
                ref, got = load(ref_path), load(got_path)
                compared += 1
                if ref[0] != got[0] or type(ref[0]["accuracy"]) is not type(got[0]["accuracy"]):
                    problems.append(f"{label}: header {got[0]} != {ref[0]}")
                entries += ref[0]["total_count"]
                ref_ids = [r["id"] for r in ref[1:]]
                got_ids = [r["id"] for r in got[1:]]
                if ref_ids != got_ids:
                    missing = [i for i in ref_ids if i not in set(got_ids)]
                    extra = [i for i in got_ids if i not in set(ref_ids)]
                    problems.append(f"{label}: failing ids differ; forge misses {missing[:10]}, "
                                    f"forge adds {extra[:10]}")
                by_id = {r["id"]: r for r in got[1:]}
                for r in ref[1:]:
                    failing += 1
                    g = by_id.get(r["id"])
                    if g is None:
                        continue
                    if list(g.keys()) != list(r.keys()):
                        problems.append(f"{label} {r['id']}: fields {list(g.keys())} != {list(r.keys())}")
                    for key in r:
                        if g.get(key) != r[key]:
                            problems.append(f"{label} {r['id']}: {key}: forge {json.dumps(g.get(key))[:400]}"
                                            f" != BFCL {json.dumps(r[key])[:400]}")
    for p in problems[:60]:
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} differences", file=sys.stderr)
        return 1
    if compared == 0 or entries == 0:
        print("no score file was compared: nothing ran", file=sys.stderr)
        return 1
    print(f"{compared} score files, {entries} entries, {failing} failing entries: all identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())

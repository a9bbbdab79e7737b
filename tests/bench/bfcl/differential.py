#!/usr/bin/env python3
"""Differential check of `forge bfcl score` against BFCL's own checker on generated results.

usage: differential.py BFCL_ROOT [--forge PATH] [--data DIR] [--seeds N] [--work DIR]

BFCL_ROOT is a local checkout of BFCL's source (the folder holding `bfcl_eval`), as for
bench.py. For each seed, three result sets are generated for every question of
../shared/testdata/bfcl under two model settings: make_results.py's accepted and mutated
answers; "wild" argument values (Unicode and escapes in strings, big and special numbers,
repeated keys, Java and JavaScript literal variants, nested values); and odd result shapes
(every JSON type where calls are expected, truncated or re-spaced argument JSON). Both
checkers score them and the score files must be byte-for-byte identical. Not a ctest test: it
needs BFCL's source, which forge does not ship.
"""
import argparse
import filecmp
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import make_results as mr  # noqa: E402

STRINGS = ["\u00c9", "stra\u00dfe", "\u0391\u0392\u0393", "\u041f\u0420\u0418\u0412\u0415\u0422",
           "\u0130stanbul", "\U0001f600", "a\u0001b", "it's", 'say "x"', "\u00a0x", "\u200bz",
           "tab\tnl\n", "\\", "", "-", "  ", "a'b\"c", "\u2028"]
NUMBERS = [10**20, -10**19, 1e16, 1e-7, 0.1 + 0.2, -0.0, 5, 5.0, True, None, 2**53 + 1]
JAVA = ["5L\n", "5\n", "'a'", "new ArrayList<Integer>(Arrays.asList(1, 2, 3))",
        "new ArrayList<>(Arrays.asList(\"a\",\"b\"))", "new int[] { 1, 2 }", "new String[]{\"a\", \"b\"}",
        "new HashMap<String, Integer>() {{ put(\"a\", 1); put(\"b\", 2L); }}", "new HashMap<>()", "3.0e2f",
        "1.5F", "-7", "007", "1_000", "true", "TRUE", "null",
        "new ArrayList<String>() {{\n add(\"x\");\n add(\"y\");\n}}", "new Object[]{1, \"abc\", true, 2.5f, 3L}",
        "  5  "]
JS = ["[1, 2, 3]", "['a', \"b\"]", "new Array(1, 2)", "[[1, 2], [3, 4]]", "{a: 1, 'b': 'x', c: [1, 2], d: {e: 1}}",
      "{}", "[]", "'x'", "\"x\"", "7n", "-3", "4.50", "1e3", "Infinity", "NaN", "true", "x",
      "{key: value, other: 'v'}", "new Array()", "[ 1 , 'two' , true ]"]


def language(category):
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


def wild_value(rnd, lang):
    if lang == "java":
        return rnd.choice(JAVA)
    if lang == "javascript":
        return rnd.choice(JS)
    k = rnd.random()
    if k < 0.4:
        return rnd.choice(STRINGS) + rnd.choice(["", "x", " Y"])
    if k < 0.7:
        return rnd.choice(NUMBERS)
    if k < 0.85:
        return [rnd.choice(STRINGS + NUMBERS) for _ in range(rnd.randrange(3))]
    return {rnd.choice(["k", "n", "a"]): rnd.choice(STRINGS + NUMBERS)}


def wild_results(data, out, seed):
    for model, u2d in mr.MODELS.items():
        rnd = random.Random(f"wild:{seed}:{model}")
        for category in mr.CATEGORIES:
            if "relevance" in category:
                continue
            group = "live" if category.startswith("live") else "non_live"
            questions = mr.load(os.path.join(data, f"BFCL_v4_{category}.json"))
            answers = mr.load(os.path.join(data, "possible_answer", f"BFCL_v4_{category}.json"))
            os.makedirs(os.path.join(out, model, group), exist_ok=True)
            with open(os.path.join(out, model, group, f"BFCL_v4_{category}_result.json"), "w",
                      encoding="utf-8") as f:
                for q, a in zip(questions, answers):
                    calls = []
                    for call in a["ground_truth"]:
                        name, params = next(iter(call.items()))
                        args = mr.accepted_call(params, language(category), rnd)
                        for key in list(args):
                            if rnd.random() < 0.3:
                                args[key] = wild_value(rnd, language(category))
                        text = json.dumps(args, ensure_ascii=rnd.random() < 0.5)
                        if rnd.random() < 0.1 and args:
                            text = text[:-1] + ", " + json.dumps(next(iter(args))) + ": 1}"
                        calls.append({mr.spell(name, u2d): text})
                    f.write(json.dumps({"id": q["id"], "result": calls}, ensure_ascii=rnd.random() < 0.5) + "\n")


def any_json(rnd, depth=0):
    k = rnd.random()
    if depth > 2 or k < 0.3:
        return rnd.choice([None, True, False, 0, 1, -1, 2.5, 1e300, "", "x", "{}", "[]", "{\"a\": 1}",
                           "null", "5", "{\"a\":", "\"s\""])
    if k < 0.6:
        return [any_json(rnd, depth + 1) for _ in range(rnd.randrange(3))]
    return {rnd.choice(["f", "g", "", "a.b"]): any_json(rnd, depth + 1) for _ in range(rnd.randrange(3))}


def shape_results(data, out, seed):
    for model in mr.MODELS:
        rnd = random.Random(f"shape:{seed}:{model}")
        for category in ["irrelevance", "live_relevance", "simple_python", "live_multiple", "parallel"]:
            group = "live" if category.startswith("live") else "non_live"
            os.makedirs(os.path.join(out, model, group), exist_ok=True)
            with open(os.path.join(out, model, group, f"BFCL_v4_{category}_result.json"), "w") as f:
                for q in mr.load(os.path.join(data, f"BFCL_v4_{category}.json")):
                    if rnd.random() < 0.5:
                        result = any_json(rnd)
                    else:
                        props = list(q["function"][0]["parameters"].get("properties", {})) or ["a"]
                        args = json.dumps({p: any_json(rnd, 1) for p in rnd.sample(props, 1)})
                        if rnd.random() < 0.3:
                            args = args.replace(" ", rnd.choice(["", "\n", "\t", "  "]))
                        if rnd.random() < 0.2:
                            args = args[:rnd.randrange(len(args) + 1)]
                        name = rnd.choice([fn["name"] for fn in q["function"]] + ["zz"])
                        result = [{name: args}] * rnd.randrange(1, 3)
                    f.write(json.dumps({"id": q["id"], "result": result}) + "\n")


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
        return False
    if not all(filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False) for n in cmp.common_files):
        return False
    return all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bfcl_root")
    ap.add_argument("--forge", default=os.path.join(SRC, "build", "forge"))
    ap.add_argument("--data", default=os.path.join(SRC, "..", "shared", "testdata", "bfcl"))
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(SRC, "tests", "bench", ".scratch", "bfcl-diff"))
    args = ap.parse_args()
    bad = 0
    for seed in range(args.seeds):
        for kind, make in (("mutated", lambda d, o, s: mr_main(d, o, s)), ("wild", wild_results),
                           ("shapes", shape_results)):
            work = os.path.join(args.work, f"{kind}-{seed}")
            shutil.rmtree(work, ignore_errors=True)
            results = os.path.join(work, "result")
            make(args.data, results, seed)
            subprocess.run([sys.executable, os.path.join(HERE, "bfcl_reference.py"), args.bfcl_root, args.data,
                            results, os.path.join(work, "bfcl")], check=True, capture_output=True)
            cmd = [args.forge, "bfcl", "score", "--data", args.data, "--results", results,
                   "--out", os.path.join(work, "forge")]
            cmd += [a for m, u2d in mr.MODELS.items() if u2d for a in ("--underscore-to-dot-for", m)]
            subprocess.run(cmd, check=True, capture_output=True)
            entries = sum(1 for root, _, files in os.walk(results) for n in files
                          for _ in open(os.path.join(root, n)))
            same = all(same_tree(os.path.join(work, "forge", m), os.path.join(work, "bfcl", m))
                       for m in mr.MODELS)
            bad += not same
            print(f"seed {seed} {kind:8} {entries:6} entries: {'identical' if same else 'DIFFERENT'}")
    return 1 if bad else 0


def mr_main(data, out, seed):
    subprocess.run([sys.executable, os.path.join(HERE, "make_results.py"), data, out, f"diff-{seed}"],
                   check=True, capture_output=True)


if __name__ == "__main__":
    sys.exit(main())

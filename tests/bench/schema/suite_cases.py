#!/usr/bin/env python3
"""Writes the JSON Schema Test Suite's draft 2020-12 tests (required ones, without remote
references) as one mixed-set bench case: {"groups": [{"schema", "valid", "invalid"}, ...]},
each group one test case of the suite with its instances split by expected verdict.
usage: suite_cases.py SUITE_DIR OUT.json"""
import json
import os
import sys

suite, out = sys.argv[1:3]
folder = os.path.join(suite, "tests", "draft2020-12")
groups = []
for name in sorted(os.listdir(folder)):
    if not name.endswith(".json") or name in ("refRemote.json", "vocabulary.json"):
        continue
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        for case in json.load(f):
            text = json.dumps(case["schema"])
            if "localhost:1234" in text or "json-schema.org/draft" in text.replace(
                    "https://json-schema.org/draft/2020-12/schema\"", ""):
                continue  # remote documents, or meta-schemas the peer would have to be given
            g = {"file": name, "schema": case["schema"], "valid": [], "invalid": []}
            for t in case["tests"]:
                g["valid" if t["valid"] else "invalid"].append(t["data"])
            groups.append(g)
with open(out, "w", encoding="utf-8") as f:
    json.dump({"groups": groups}, f)
print(f"{len(groups)} groups", file=sys.stderr)

#!/usr/bin/env python3
"""Sharded runs merged: equal to one run.

usage: shard_test.py FORGE_BIN

A suite of 60 cases with failures, skipped assertions and error cases (no transcript) is run
as one process and as N = 1, 2, 3 and 7 shards, each shard a separate process given its index
the way a Kubernetes Indexed Job gives it (JOB_COMPLETION_INDEX) or by --shard I/N; the merged
JSON, JUnit and Markdown reports must equal the single run's (SOURCE_DATE_EPOCH fixes run id and
time). Live runs (the scripted model) merge equal too, but for timings. Shards from another
suite, a shard given twice, a missing shard, a cut file and a file that is no shard are refused
with a message naming the file. Prints "N passed, N failed"; exits 1 when a check failed."""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FORGE = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="forge-shard-")
ENV = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
PASSED = FAILED = 0


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


def run(*args, env=None):
    p = subprocess.run([FORGE, *args], capture_output=True, text=True, env=env or ENV, timeout=300)
    return p.returncode, p.stdout, p.stderr


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(data if isinstance(data, str) else json.dumps(data))
    return path


# 60 cases: most pass, every 7th fails, every 11th has a toolParams entry on an uncalled tool
# (a skipped assertion), every 13th has no transcript (an error case)
cases, trajs = [], []
for i in range(60):
    cid = f"case-{i:02d}"
    expect = {"toolsCalled": ["get_weather"], "responseContains": ["sunny" if i % 7 else "rainy"]}
    if i % 11 == 0:
        expect["toolParams"] = [{"tool": "get_time", "paramName": "city", "assertion": "equals", "value": "x"}]
    cases.append({"id": cid, "input": {"message": f"weather {i}"}, "expect": expect})
    if i % 13:
        trajs.append({"trajectory_id": cid, "turns": [
            {"turn_id": 1, "role": "user", "content": f"weather {i}"},
            {"turn_id": 1, "role": "agent", "content": "It is sunny.", "latency_ms": 100 + i,
             "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "result": {"t": 1}}]}],
            "metadata": {"latency_ms": 100 + i, "cost_usd": 0.001 * i}})
half = len(cases) // 2
evals_a = write("a.json", cases[:half])
evals_b = write("b.json", cases[half:])
trans = write("t.jsonl", "".join(json.dumps(t) + "\n" for t in trajs))
FILES = [evals_a, evals_b]

code, out, err = run("run", *FILES, "--transcripts", trans, "--report", "json=" + os.path.join(WORK, "single.json"),
                     "--report", "junit=" + os.path.join(WORK, "single.xml"), "--report", "md=" + os.path.join(WORK, "single.md"))
single = json.load(open(os.path.join(WORK, "single.json")))
s = single["summary"]
check("the suite has failures, skips and errors", code == 1 and s["failed"] > 0 and s["errors"] > 0 and
      s["skippedAssertions"] > 0, json.dumps(s))

# a run counts its results as they come (eval/tally): transcripts in another order than the cases
# (each waits for the cases before it), and past its window of 256 (the rest read back from the
# results file), report the same
shuffled = trajs[:]
random.Random(7).shuffle(shuffled)
t2 = write("t-shuffled.jsonl", "".join(json.dumps(t) + "\n" for t in shuffled))
run("run", *FILES, "--transcripts", t2, "--report", "json=" + os.path.join(WORK, "single-shuffled.json"))
check("transcripts shuffled: the report equals the single run's",
      json.load(open(os.path.join(WORK, "single-shuffled.json"))) == single)
many = [{"id": f"m-{i:03d}", "input": {"message": f"weather {i}"},
         "expect": {"responseContains": ["sunny" if i % 5 else "rainy"]}} for i in range(400)]
many_trajs = [{"trajectory_id": c["id"], "turns": [
    {"turn_id": 1, "role": "user", "content": c["input"]["message"]},
    {"turn_id": 1, "role": "agent", "content": "It is sunny.", "latency_ms": 50 + (i * 37) % 101}],
    "metadata": {"latency_ms": 50 + (i * 37) % 101, "cost_usd": 0.0001 * i}} for i, c in enumerate(many) if i % 9]
many_file = write("many.json", many)
reports = []
for name, order in (("in order", many_trajs), ("reversed", many_trajs[::-1])):
    t2 = write("t-many.jsonl", "".join(json.dumps(t) + "\n" for t in order))
    out_path = os.path.join(WORK, f"many-{len(reports)}.json")
    code, out, err = run("run", many_file, "--transcripts", t2, "--report", "json=" + out_path)
    # (the console's case lines come in the transcripts' order; its summary follows them)
    reports.append((code, out[out.rindex("passed ("):], json.load(open(out_path))))
check("400 cases, transcripts reversed (past the window): the same report and summary",
      reports[0] == reports[1] and reports[0][2]["summary"]["errors"] == 45, str(reports[1][:2]))

for n in (1, 2, 3, 7):
    shards = []
    sizes = []
    for i in range(n):
        path = os.path.join(WORK, f"n{n}-s{i}.jsonl")
        if n == 3:  # as a Kubernetes Indexed Job sets it
            code, out, err = run("run", *FILES, "--transcripts", trans, "--shards", str(n), "--report", "jsonl=" + path,
                                 env=dict(ENV, JOB_COMPLETION_INDEX=str(i)))
        else:
            code, out, err = run("run", *FILES, "--transcripts", trans, "--shard", f"{i + 1}/{n}", "--report",
                                 "jsonl=" + path)
        check(f"N={n} shard {i + 1} ran", code in (0, 1) and os.path.exists(path), err)
        m = re.search(r"shard \d+/\d+: (\d+) of 60 cases", err)
        sizes.append(int(m.group(1)) if m else -1)
        shards.append(path)
    check(f"N={n}: the shards hold every case once", sum(sizes) == 60, str(sizes))
    rep = {k: os.path.join(WORK, f"n{n}-merged.{k}") for k in ("json", "xml", "md")}
    code, out, err = run("report", "merge", *shards, "--report", "json=" + rep["json"], "--report", "junit=" + rep["xml"],
                         "--report", "md=" + rep["md"])
    check(f"N={n}: merge exits as the single run does", code == 1, err)
    merged = json.load(open(rep["json"]))
    check(f"N={n}: the merged JSON report equals the single run's", merged == single,
          str([k for k in single if single[k] != merged.get(k)]))
    check(f"N={n}: JUnit and Markdown equal", open(rep["xml"]).read() == open(os.path.join(WORK, "single.xml")).read() and
          open(rep["md"]).read() == open(os.path.join(WORK, "single.md")).read(), "")

# stable when cases are added: a case keeps its shard
more = write("c.json", [{"id": f"extra-{i}", "input": {"message": "x"}, "expect": {"responseNonEmpty": True}}
                        for i in range(10)])
before = {}
for i in range(3):
    path = os.path.join(WORK, f"st-{i}.jsonl")
    run("run", *FILES, "--transcripts", trans, "--shard", f"{i + 1}/3", "--report", "jsonl=" + path)
    for line in open(path).read().splitlines()[1:]:
        before[json.loads(line)["id"]] = i
moved = 0
for i in range(3):
    path = os.path.join(WORK, f"st2-{i}.jsonl")
    run("run", *FILES, more, "--transcripts", trans, "--shard", f"{i + 1}/3", "--report", "jsonl=" + path)
    for line in open(path).read().splitlines()[1:]:
        cid = json.loads(line)["id"]
        moved += cid in before and before[cid] != i
check("adding cases moves no case to another shard", moved == 0 and len(before) == 60, f"{moved} moved")

# live runs (the scripted model): equal but for timings
rules = write("rules.lua", 'return { { match = "weather (\\\\d+)", calls = { { name = "get_weather", arguments = '
                           '{ city = "Paris" } } }, reply = "It is sunny." } }')
tools = write("tools.lua", 'local forge = require "forge"\nreturn { forge.tool { name = "get_weather", mock = { t = 1 } },'
                           ' forge.tool { name = "get_time", mock = { h = 1 } } }')
code, out, err = run("run", *FILES, "--model", "scripted:" + rules, "--tools", tools, "--report",
                     "json=" + os.path.join(WORK, "live.json"))
live = json.load(open(os.path.join(WORK, "live.json")))
shards = []
for i in range(3):
    path = os.path.join(WORK, f"live-{i}.jsonl")
    run("run", *FILES, "--model", "scripted:" + rules, "--tools", tools, "--shard", f"{i + 1}/3", "--report", "jsonl=" + path)
    shards.append(path)
code, out, err = run("report", "merge", *shards, "--report", "json=" + os.path.join(WORK, "live-merged.json"))
lm = json.load(open(os.path.join(WORK, "live-merged.json")))


def untimed(v):
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if not re.search(r"(?i)latency|duration|timestamp|_ms$", k)}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


check("live: the merged report equals the single run's, timings aside", untimed(lm) == untimed(live) and
      [c["id"] for c in lm["cases"]] == [c["id"] for c in live["cases"]], json.dumps(untimed(lm)["summary"]))
code, out, err = run("run", *FILES, "--model", "scripted:" + rules, "--tools", tools, "-j", "4", "--report",
                     "json=" + os.path.join(WORK, "live-j4.json"))
lj = json.load(open(os.path.join(WORK, "live-j4.json")))
check("live -j 4 (cases finish out of order): the report equals -j 1's, timings aside",
      untimed(lj) == untimed(live) and [c["id"] for c in lj["cases"]] == [c["id"] for c in live["cases"]],
      json.dumps(untimed(lj)["summary"]))

# what merge refuses
s3 = [os.path.join(WORK, f"n3-s{i}.jsonl") for i in range(3)]
other = os.path.join(WORK, "other.jsonl")
run("run", evals_a, "--transcripts", trans, "--shard", "2/3", "--report", "jsonl=" + other)
cut = write("cut.jsonl", open(s3[1]).read()[:-40])
short = write("short.jsonl", "\n".join(open(s3[1]).read().splitlines()[:-1]) + "\n")
plain = os.path.join(WORK, "plain.jsonl")
run("run", *FILES, "--transcripts", trans, "--report", "jsonl=" + plain)
for name, files, want in [
        ("another suite", [s3[0], other, s3[2]], "of another run than"),
        ("a shard twice", [s3[0], s3[0], s3[2]], "are both shard 1/3"),
        ("a missing shard", [s3[0], s3[2]], "2 of 3 shards given: shard 2 missing"),
        ("a cut line", [s3[0], cut, s3[2]], "cut.jsonl:"),
        ("a missing line", [s3[0], short, s3[2]], "short.jsonl: "),
        ("no shard", [plain], "plain.jsonl:1: not the results of a shard")]:
    code, out, err = run("report", "merge", *files, "--report", "json=" + os.path.join(WORK, "x.json"))
    check(f"merge refuses {name}", code == 2 and want in err, err)
code, out, err = run("run", *FILES, "--transcripts", trans, "--shards", "3")
check("--shards without an index: exit 2 naming the variables", code == 2 and "JOB_COMPLETION_INDEX" in err, err)
for flag, val, takes in (("--min-pass-rate", "", "a number from 0 to 1"), ("--min-pass-rate", "1.5", "a number from 0 to 1"),
                         ("--min-pass-rate", "nan", "a number from 0 to 1"), ("--max-cost", "-1", "a number of 0 or more"),
                         ("--max-cost", "inf", "a number of 0 or more"), ("--max-p95-ms", "x", "a number of 0 or more")):
    code, out, err = run("report", "merge", *shards, flag, val)
    check(f"merge {flag} '{val}': exit 2 naming it", code == 2 and
          err == f"forge: report merge: {flag} takes {takes}, not '{val}'\n", err)
code, out, err = run("report", "merge", *shards, "--report", "pdf=x.pdf")
check("merge --report pdf=: exit 2 naming the format", code == 2 and
      err == "forge: report merge: --report 'pdf=x.pdf': unknown format 'pdf' (json, jsonl, junit, md, html)\n", err)
code, out, err = run("run", *FILES, "--transcripts", trans, "--shard", "4/3")
check("--shard 4/3: exit 2", code == 2 and "1 <= I <= N" in err, err)

# the CI examples of docs/ci.md parse as YAML and have what sharding needs (an Indexed Job running
# forge --shards, a shard matrix and a merge job); their full schemas: ci_schema_test.py
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
for doc, schema in (("k8s-job.yaml", "k8s-indexed-job.schema.json"), ("github-actions.yml", "gha-workflow.schema.json")):
    code, out, err = run("schema", "validate", os.path.join(HERE, "ci", schema), os.path.join(ROOT, "docs", "ci", doc))
    check(f"docs/ci/{doc} parses and has what sharding needs", code == 0 and out.strip().endswith(": valid"), out + err)
job = os.path.join(ROOT, "docs", "ci", "k8s-job.yaml")
text = open(job).read()
comp = re.search(r"completions: (\d+)", text).group(1)
check("the Job's completions equal its --shards", f"--shards {comp}" in text, comp)
check("the Job's parallelism equals its completions", re.search(r"parallelism: (\d+)", text).group(1) == comp, text)
wf = open(os.path.join(ROOT, "docs", "ci", "github-actions.yml")).read()
matrix = re.search(r"shard: \[([0-9, ]+)\]", wf).group(1).split(",")
n = len(matrix)
check("the workflow's matrix is 1..N and each shard runs --shard I/N",
      [int(x) for x in matrix] == list(range(1, n + 1)) and f"--shard ${{{{ matrix.shard }}}}/{n}" in wf, wf)

print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)

#!/usr/bin/env python3
"""Flat memory: results go to disk as cases finish and the reports are read back from there;
eval files are read a case at a time.

usage: flatmem_test.py FORGE_BIN

Checks: a live run gives the same reports (timings aside) and the same case order whatever -j;
no temporary results file is left behind; broken eval files are reported with the message of the
whole file (file:line:col); an id used in two files is refused naming both; a transcript whose
case lies late in the file still finds it; and peak memory does not grow with the number of
cases: a recorded run of 40,000 cases may use at most 8 MiB more than one of 4,000 (before flat
memory it used about 130 MiB more; 36,000 more latencies take 0.3 MiB). Prints "N passed, N
failed"; exits 1 when a check failed."""
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

FORGE = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="forge-flatmem-")
TMP = os.path.join(WORK, "tmp")
os.makedirs(TMP)
ENV = dict(os.environ, SOURCE_DATE_EPOCH="1700000000", TMPDIR=TMP)
PASSED = FAILED = 0


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


def run(*args):
    p = subprocess.run([FORGE, *args], capture_output=True, text=True, env=ENV, timeout=600)
    return p.returncode, p.stdout, p.stderr


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(data if isinstance(data, str) else json.dumps(data))
    return path


def peak_rss_kib(*args):
    """Peak RSS of one forge process, from wait4 in a small helper process (a child's peak
    counts the pages of the process it was forked from, here the helper's few MiB, the same for
    every run, not this script's)."""
    helper = ("import os, subprocess, sys\n"
              "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
              "_, st, ru = os.wait4(p.pid, 0)\n"
              "print(os.waitstatus_to_exitcode(st), ru.ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", helper, FORGE, *args], capture_output=True, text=True, env=ENV).stdout
    code, kib = out.split()
    return int(code), int(kib)


def cases(n, prefix="c"):
    return [{"id": f"{prefix}-{i:06d}", "input": {"message": f"weather {i}"},
             "expect": {"toolsCalled": ["get_weather"], "responseContains": ["sunny" if i % 9 else "rainy"]}}
            for i in range(n)]


def transcripts(n, prefix="c"):
    return "".join(json.dumps({"trajectory_id": f"{prefix}-{i:06d}", "turns": [
        {"turn_id": 1, "role": "user", "content": f"weather {i}"},
        {"turn_id": 1, "role": "agent", "content": "It is sunny.", "latency_ms": 100 + i % 50,
         "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "result": {"t": 1}}]}],
        "metadata": {"latency_ms": 100 + i % 50}}) + "\n" for i in range(n) if i % 13 != 12)


def untimed(v):
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if not re.search(r"(?i)latency|duration|timestamp|_ms$", k)}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


# live runs: -j 1 and -j 4 report the same cases in the same order
a = write("a.json", cases(120, "a"))
b = write("b.json", cases(80, "b"))
rules = write("rules.lua", 'return { { match = "weather (\\\\d+)", calls = { { name = "get_weather", arguments = '
                           '{ city = "Paris" } } }, reply = "It is sunny." } }')
tools = write("tools.lua", 'local forge = require "forge"\nreturn { forge.tool { name = "get_weather", mock = { t = 1 } } }')
reps = {}
for j in (1, 4):
    out = {k: os.path.join(WORK, f"live{j}.{k}") for k in ("json", "jsonl", "xml")}
    code, stdout, err = run("run", a, b, "--model", "scripted:" + rules, "--tools", tools, "-j", str(j), "-q",
                            "--report", "json=" + out["json"], "--report", "jsonl=" + out["jsonl"],
                            "--report", "junit=" + out["xml"])
    check(f"live -j {j}: exit 1 (some cases fail)", code == 1, err)
    reps[j] = json.load(open(out["json"]))
    ids = [c["id"] for c in reps[j]["cases"]]
    check(f"live -j {j}: the JSON report lists the cases in file order", ids == [c["id"] for c in cases(120, "a")] +
          [c["id"] for c in cases(80, "b")], str(ids[:5]))
    lines = [json.loads(x)["id"] for x in open(out["jsonl"])]
    check(f"live -j {j}: the jsonl report holds every case once", sorted(lines) == sorted(ids), str(len(lines)))
    s = reps[j]["summary"]
    check(f"live -j {j}: the summary counts", (s["totalCases"], s["passed"], s["failed"]) == (200, 177, 23), json.dumps(s))
check("live: -j 1 and -j 4 give the same report, timings aside", untimed(reps[1]) == untimed(reps[4]))
check("no temporary results file is left behind", os.listdir(TMP) == [], str(os.listdir(TMP)))

# recorded runs: a transcript finds its case wherever it is in the file; a missing one is an error case
big = write("big.json", cases(3000))
trans = write("t.jsonl", "".join(reversed(transcripts(3000).splitlines(True))))
out = os.path.join(WORK, "rec.json")
code, stdout, err = run("run", big, "--transcripts", trans, "-q", "--report", "json=" + out)
rep = json.load(open(out))
s = rep["summary"]
check("recorded, transcripts in reverse: every case scored in file order",
      [c["id"] for c in rep["cases"]] == [c["id"] for c in cases(3000)] and s["errors"] == 3000 // 13 and
      s["passed"] + s["failed"] == 3000 - 3000 // 13, json.dumps(s))
check("no temporary results file is left behind (recorded run)", os.listdir(TMP) == [], str(os.listdir(TMP)))

# broken eval files: the whole file's message, with its line and column
good = '{"id": "x1", "input": {"message": "m"}}'
for name, text, want in [
        ("a cut case", "[" + good + ",\n " + '{"id": "x2", "input": {"message": "y" ]', ":2:40: invalid JSON near ']'"),
        ("a missing comma", "[" + good + "\n " + '{"id": "x2"}]', ":2:2: invalid JSON near '{\"id\": \"x2\"}'"),
        ("text after the array", "[" + good + "] x", ":1:43: invalid JSON: unexpected text after the value"),
        ("an array cut short", "[" + good + ",", ":1:41: invalid JSON near ','"),
        ("an unknown key late in the file", "[" + ",\n".join(
            '{"id": "x%d", "input": {"message": "m"}}' % i for i in range(500)) + ',\n{"id": "y", "input": {"mesage": "m"}}]',
         ":501:23: [500].input.mesage: unknown key \"mesage\" (did you mean \"message\"?)"),
        ("a duplicate id", "[" + good + ",\n  " + good + "]", ":2:10: [1].id: duplicate case id \"x1\""),
        # columns count characters (UTF-8 of 2 to 4 bytes is one each); quotes, backslashes and
        # brackets inside strings do not end a case
        ("an unknown key after strings of escapes and wide characters",
         '[{"id": "é✓😀 \\"]}\\\\", "input": {"message": "[{\\\\"}}, {"id": "y", "input": {"mesage": "m"}}]',
         ":1:%d: [1].input.mesage: unknown key \"mesage\" (did you mean \"message\"?)"
         % (len('[{"id": "é✓😀 \\"]}\\\\", "input": {"message": "[{\\\\"}}, {"id": "y", "input": {') + 1))]:
    path = write("bad.json", text)
    code, stdout, err = run("run", path, "--dry-run")
    check(f"eval file with {name}: exit 2, file:line:col", code == 2 and err.strip() == f"forge: {path}{want}",
          err.strip())
c1 = write("c1.json", [{"id": "same", "input": {"message": "m"}}])
c2 = write("c2.json", [{"id": "other", "input": {"message": "m"}}, {"id": "same", "input": {"message": "m"}}])
code, stdout, err = run("run", c1, c2, "--dry-run")
check("an id in two files: exit 2 naming both", code == 2 and f"{c2}: case id \"same\" is also used in {c1}" in err, err)
# a live run keeps no offsets: equal ids are told apart by reading the first one back from its file
dup = write("dup.json", "[" + ",\n".join('{"id": "d%d", "input": {"message": "weather 1"}}' % i for i in range(700))
            + ',\n  {"id": "d650", "input": {"message": "weather 1"}}]')
code, stdout, err = run("run", dup, "--model", "scripted:" + rules, "--tools", tools, "-q")
check("live: a duplicate id late in the file, exit 2 at its place",
      code == 2 and err.strip() == f'forge: {dup}:701:10: [700].id: duplicate case id "d650"', err.strip())
code, stdout, err = run("run", c1, c2, "--model", "scripted:" + rules, "--tools", tools, "-q")
check("live: an id in two files, exit 2 naming both",
      code == 2 and err.strip() == f'forge: {c2}: case id "same" is also used in {c1} (ids must be unique across the run)',
      err.strip())
code, stdout, err = run("run", big, "--dry-run")
check("--dry-run counts the cases read a case at a time", code == 0 and stdout == "3000 cases in 1 file: ok\n", stdout)

# peak memory does not grow with the number of cases (not measurable under AddressSanitizer, whose
# quarantine keeps freed memory)
with open(FORGE, "rb") as f:
    SANITIZED = b"__asan_init" in f.read()
rss = {}
for n in (4000, 40000):
    ev = write(f"m{n}.json", cases(n))
    tr = write(f"m{n}.jsonl", transcripts(n))
    code, rss[n] = peak_rss_kib("run", ev, "--transcripts", tr, "-q", "--report", "junit=" + os.path.join(WORK, "m.xml"),
                                "--report", "md=" + os.path.join(WORK, "m.md"))
    check(f"recorded run of {n} cases: exit 1", code == 1, str(code))
if SANITIZED:
    print("skip: peak RSS under AddressSanitizer (its quarantine holds freed memory)")
else:
    check("peak RSS of 40,000 cases is within 8 MiB of 4,000 cases'", rss[40000] - rss[4000] <= 8 * 1024,
          f"{rss[4000]} KiB -> {rss[40000]} KiB")

print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)

#!/usr/bin/env python3
"""CLI tests of `forge check`: exit codes, malformed and over-long lines, formats, streaming order.
usage: check_cli.py FORGE_BIN SRC_DIR"""
import json
import os
import subprocess
import sys
import tempfile

FORGE, SRC = sys.argv[1], sys.argv[2]
EXAMPLES = os.path.join(SRC, "evals", "trajectories")
failures = []


def run(*args, stdin=None):
    p = subprocess.run([FORGE, "check", *args], input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def expect(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")


def traj(tid, content="It is 18 degrees and cloudy.", name="get_weather", result=None, args=None):
    return json.dumps({"trajectory_id": tid, "turns": [
        {"turn_id": 1, "role": "user", "content": "Weather?"},
        {"turn_id": 1, "role": "agent", "content": content, "tool_calls": [
            {"name": name, "arguments": args if args is not None else {"city": "Paris"},
             "result": result if result is not None else {"temp_c": 18, "condition": "cloudy"}}]}]})


tmp = tempfile.mkdtemp(prefix="forge-check-")


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


tools = os.path.join(EXAMPLES, "tools.json")

# 1. malformed lines are reported with their line number and skipped; the rest is checked
f = write("mixed.jsonl", "\n".join([traj("a"), "{not json", "", "# a comment", '{"x": 1}',
                                    '[{"role":"tool","tool_call_id":"q","content":"x"}]', traj("b")]) + "\n")
code, out, err = run(f, "--tools", tools)
expect("malformed.exit", code == 0, f"exit {code}")
expect("malformed.stderr", err.splitlines() == [
    f"forge: check: {f}:2:3: invalid JSON near 'ot json' (line skipped)",
    f"forge: check: {f}:5: not a trajectory in a known format (forge, agent-eval-harness, turns, openai, "
    "openai-responses, anthropic, gemini); name it with --input-format (line skipped)",
    f"forge: check: {f}:6: openai: messages[0]: tool result for unknown call id 'q' (line skipped)",
], err)
expect("malformed.stdout", out.splitlines() == [
    f"PASS a  {f}:1  score 1  validation 1  results 1  calls 1  issues 0 critical, 0 high, 0 medium, 0 low",
    f"PASS b  {f}:7  score 1  validation 1  results 1  calls 1  issues 0 critical, 0 high, 0 medium, 0 low",
    "2 trajectories: 2 passed, 0 failed; 2 calls; mean score 1; issues 0 critical, 0 high, 0 medium, 0 low; "
    "3 skipped (unreadable)"], out)

# 2. nothing readable: exit 2
f = write("bad.jsonl", "{oops\n[1,\n")
code, out, err = run(f)
expect("nothing.exit", code == 2, f"exit {code}")
expect("nothing.stderr", err.splitlines()[-1] == "forge: check: no trajectory could be read", err)
code, out, err = run(os.path.join(tmp, "missing.jsonl"))
expect("missing.exit", code == 2, f"exit {code}")
expect("missing.stderr", "missing.jsonl" in err and "No such file" in err, err)
code, out, err = run()
expect("nofile.exit", code == 2, f"exit {code}")
code, out, err = run(f, "--format", "xml")
expect("badflag.exit", code == 2 and "--format must be text, json or jsonl (got 'xml')" in err, err)
code, out, err = run(f, "--min-score", "abc")
expect("badnum.exit", code == 2 and "--min-score needs a number, got 'abc'" in err, err)

# 3. an over-long line names the limit and the flag, and ends the reading of its file (the line
# may never end: /dev/zero); the lines before it are checked, and the run exits 2
f = write("long.jsonl", traj("short") + "\n" + traj("x" * 300) + "\n" + traj("after") + "\n")
code, out, err = run(f, "--max-line-bytes", "400", "--allow-unknown-tools")
expect("long.exit", code == 2, f"exit {code}")
expect("long.stderr", err.strip() == f"forge: check: {f}:2: line longer than 400 bytes (the limit; raise it "
       "with --max-line-bytes); the rest of the file is not read", err)
expect("long.stdout", out.startswith("PASS short  ") and "after" not in out and "1 trajectory: 1 passed" in out
       and out.endswith("; 1 skipped (unreadable)\n"), out)

# 4. exit 1 on a critical issue, and under --min-score
f = write("critical.jsonl", traj("c", name="") + "\n")
code, out, err = run(f)
expect("critical.exit", code == 1, f"exit {code}")
expect("critical.text", out.splitlines()[1] == "  turn 1: missing_tool_name (critical): Tool call is missing a name", out)
f = write("unknown.jsonl", traj("u") + "\n")
code, out, err = run(f)
expect("minscore.default", code == 0, f"exit {code}")  # 0.8: unknown_tool only
code, out, err = run(f, "--min-score", "0.9")
expect("minscore.fail", code == 1 and out.startswith("FAIL u  "), out)
code, out, err = run(f, "--min-score", "0.8")
expect("minscore.equal", code == 0, out)
code, out, err = run(f, "--strict")
expect("strict", "unknown_tool (high)" in out and "score 0.5  validation 0  results 1" in out, out)

# 5. json and jsonl carry upstream's result objects
code, out, err = run(f, "--format", "json", "--allow-unknown-tools")
doc = json.loads(out)
expect("json.shape", list(doc) == ["trajectories", "summary"], out)
t0 = doc["trajectories"][0]
expect("json.validation", t0["validation"] == [{"valid": True, "issues": [], "suggestions": [], "score": 1, "turn_id": 1}], t0)
expect("json.results", t0["results"] == [{"valid": True, "issues": [], "score": 1, "hallucinated": False,
                                          "integrated": True, "turn_id": 1, "tool": "get_weather"}], t0)
expect("json.summary", t0["summary"] == {"totalTools": 1, "validResults": 1, "hallucinatedResults": 0,
                                         "integratedResults": 1, "averageScore": 1, "issues": []}, t0)
expect("json.total", doc["summary"] == {"trajectories": 1, "passed": 1, "failed": 0, "skipped": 0, "calls": 1,
                                        "meanScore": 1, "issueCounts": {"critical": 0, "high": 0, "medium": 0, "low": 0}}, doc)
code, out, err = run(os.path.join(EXAMPLES, "support.jsonl"), "--tools", tools, "--format", "jsonl")
lines = [json.loads(l) for l in out.splitlines()]
expect("jsonl.count", len(lines) == 6 and "summary" in lines[-1], out)
expect("jsonl.exact", lines[1]["validation"][0]["score"] == 1 and lines[1]["summary"]["averageScore"] == 0.10000000000000009, lines[1])

# 6. agent-eval-harness one-turn-per-line JSONL is one trajectory
turns = [{"turn_id": 1, "role": "user", "content": "hi", "timestamp": "2026-04-17T12:00:00Z"},
         {"turn_id": 1, "role": "agent", "content": "The temperature is seventy two degrees.", "timestamp": "2026-04-17T12:00:01Z",
          "tool_calls": [{"name": "get_weather", "arguments": {"city": "NYC"}, "result": {"temperature": "seventy two degrees"}}]},
         {"turn_id": 2, "role": "user", "content": "thanks", "timestamp": "2026-04-17T12:00:02Z"},
         {"turn_id": 2, "role": "agent", "content": "Welcome", "timestamp": "2026-04-17T12:00:03Z", "tool_calls": []}]
f = write("turns.jsonl", "# exported\n" + "\n".join(json.dumps(t) for t in turns) + "\n")
code, out, err = run(f, "--format", "jsonl", "--allow-unknown-tools")
lines = [json.loads(l) for l in out.splitlines()]
expect("turns.one", len(lines) == 2 and len(lines[0]["validation"]) == 2 and lines[0]["summary"]["totalTools"] == 1, out)

# 7. imported formats from a whole JSON file (array of trajectories and a chat transcript)
f = write("many.json", "[" + traj("m1") + "," + traj("m2", name="nope") + "]")
code, out, err = run(f, "--tools", tools, "-q")
expect("array.quiet", code == 0 and out.splitlines() == [
    "2 trajectories: 2 passed, 0 failed; 2 calls; mean score 0.9; issues 0 critical, 0 high, 1 medium, 0 low"], out)
code, out, err = run(f, "--tools", tools)
expect("array.names", out.splitlines()[1] == f"PASS m2  {f}[1]  score 0.8  validation 0.6  results 1  calls 1  "
       "issues 0 critical, 0 high, 1 medium, 0 low", out)
f = write("chat.json", json.dumps({"messages": [
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"condition\": \"cloudy\"}"},
    {"role": "assistant", "content": "Cloudy."}]}))
code, out, err = run(f, "--tools", tools)
expect("chat", code == 0 and out.startswith("PASS " + f + "  score 1  "), out + err)

# 8. streamed with several workers, output keeps input order and matches one worker
f = write("big.jsonl", "\n".join(traj(f"t{i}", content=("Cloudy" if i % 3 else "No idea"),
                                      name=("get_weather" if i % 7 else "other")) for i in range(5000)) + "\n")
code1, out1, _ = run(f, "--tools", tools, "--format", "jsonl", "-j", "1")
code2, out2, _ = run(f, "--tools", tools, "--format", "jsonl", "-j", "4")
expect("order.same", out1 == out2 and code1 == code2, "outputs differ")
ids = [json.loads(l).get("trajectory_id") for l in out2.splitlines()[:-1]]
expect("order.ids", ids == [f"t{i}" for i in range(5000)], ids[:5])

# 8b. the mean score adds the trajectories' scores in input order, one by one: the same for any
# -j and chunking (this file spans many 64 KiB chunks), and for the same trajectories as a JSON array
lines = out1.splitlines()
total = 0.0
for l in lines[:-1]:
    total += json.loads(l)["score"]
mean = json.loads(lines[-1])["summary"]["meanScore"]
expect("mean.sequential", mean == total / 5000, f"{mean!r} != {total / 5000!r}")
code3, out3, _ = run(f, "--tools", tools, "--format", "jsonl", "-j", "3")
expect("mean.any-j", out3.splitlines()[-1] == lines[-1], out3.splitlines()[-1])
with open(f) as fh:
    arr = write("big.json", "[" + ",".join(fh.read().split("\n")[:-1]) + "]")
code4, out4, _ = run(arr, "--tools", tools, "--format", "json")
expect("mean.array", json.loads(out4)["summary"] == json.loads(lines[-1])["summary"], out4[-300:])

# 8c. with several threads, the diagnostics of bad lines keep input order among the results, and an
# over-long line deep in a file (past more 64 KiB chunks than threads keep in flight) ends its
# reading the same way: every line before it checked and printed, none after, exit 2
rows = ["{broken" if i % 97 == 5 else traj(f"e{i}") for i in range(12000)]
f = write("errs.jsonl", "\n".join(rows + [traj("y" * 600), traj("late")]) + "\n")
want_out = [f"PASS e{i}  {f}:{i + 1}  score 1  validation 1  results 1  calls 1  issues 0 critical, 0 high, "
            "0 medium, 0 low" for i in range(12000) if i % 97 != 5]
want_err = [f"forge: check: {f}:{i + 1}:3: invalid JSON near 'roken' (line skipped)"
            for i in range(12000) if i % 97 == 5]
want_err.append(f"forge: check: {f}:12001: line longer than 500 bytes (the limit; raise it with "
                "--max-line-bytes); the rest of the file is not read")
for j in ("1", "2", "4"):
    p = subprocess.run([FORGE, "check", f, "--max-line-bytes", "500", "--allow-unknown-tools", "-j", j],
                       capture_output=True, text=True, timeout=120)
    out = p.stdout.splitlines()
    expect(f"errors-in-order.-j{j}.exit", p.returncode == 2, p.returncode)
    expect(f"errors-in-order.-j{j}.stdout", out[:-1] == want_out, out[:3] + out[-3:])
    expect(f"errors-in-order.-j{j}.summary", out[-1] == f"{len(want_out)} trajectories: {len(want_out)} passed, "
           f"0 failed; {len(want_out)} calls; mean score 1; issues 0 critical, 0 high, 0 medium, 0 low; "
           f"{len(want_err)} skipped (unreadable)", out[-1])
    expect(f"errors-in-order.-j{j}.stderr", p.stderr.splitlines() == want_err, p.stderr[-500:])

# 8d. -j N runs N threads in all (they take turns at reading; there is no reader thread besides
# them): counted in /proc while forge waits for more of its standard input
if os.path.isdir("/proc/self/task"):
    import time
    for j in (1, 3):
        p = subprocess.Popen([FORGE, "check", "-", "--allow-unknown-tools", "-j", str(j)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # 500 lines, about 145 KB: several chunks' worth
        p.stdin.write("".join(traj(f"t{i}") + "\n" for i in range(500)))
        p.stdin.flush()
        tasks = 0
        for _ in range(400):  # until the threads have started (at most 20 s); the count only grows
            time.sleep(0.05)
            tasks = len(os.listdir(f"/proc/{p.pid}/task"))
            if tasks >= j:
                break
        time.sleep(0.2)
        tasks = len(os.listdir(f"/proc/{p.pid}/task"))
        out, err = p.communicate(traj("last") + "\n", timeout=60)
        expect(f"threads.-j{j}", tasks == j, f"{tasks} threads")
        expect(f"threads.-j{j}.out", p.returncode == 0 and out.splitlines()[-1].startswith("501 trajectories: 501 passed"),
               out + err)

# 9. stdin
code, out, err = run("-", "--allow-unknown-tools", stdin=traj("s") + "\n")
expect("stdin", code == 0 and out.startswith("PASS s  <stdin>:1  "), out + err)

# 9b. from a pipe, each line's result comes out when the line arrives, not when 64 KiB have (or
# the input has ended): a live log piped into forge check is reported as it grows
sys.path.insert(0, os.path.join(SRC, "tests", "support"))
from live import exchange  # noqa: E402
for j in (1, 2):
    p = subprocess.Popen([FORGE, "check", "-", "--allow-unknown-tools", "-j", str(j)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = [exchange(p, traj(f"live{i}")).decode() for i in range(3)]
    out, err = p.communicate(b"", timeout=60)
    expect(f"stdin-live.-j{j}", [x.split("  ")[0] for x in seen] == [f"PASS live{i}" for i in range(3)] and
           p.returncode == 0 and out.decode().splitlines()[-1].startswith("3 trajectories: 3 passed"),
           (seen, out, err))

# 10. a UTF-8 byte order mark before the first line is skipped; singular summary
f = os.path.join(tmp, "bom.jsonl")
with open(f, "wb") as fh:
    fh.write(b"\xef\xbb\xbf" + traj("bom").encode() + b"\n")
code, out, err = run(f, "--allow-unknown-tools")
expect("bom", code == 0 and out.splitlines()[-1] ==
       "1 trajectory: 1 passed, 0 failed; 1 call; mean score 1; issues 0 critical, 0 high, 0 medium, 0 low", out + err)

# 11. --deep adds forge's detectors (each one fires on the example file) and nothing else changes
def issue_types(out):
    types = {}
    for line in out.splitlines()[:-1]:
        d = json.loads(line)
        ts = [i["type"] for v in d["validation"] for i in v["issues"]] + [i["type"] for r in d["results"] for i in r["issues"]]
        types[d["trajectory_id"]] = ts
    return types
support = os.path.join(EXAMPLES, "support.jsonl")
code, out, err = run(support, "--tools", tools, "--format", "jsonl")
plain = issue_types(out)
code, out, err = run(support, "--tools", tools, "--format", "jsonl", "--deep")
deep = issue_types(out)
DEEP = {"tool_not_found", "tool_misuse", "result_unused", "hallucinated_result", "schema_violation",
        "incomplete_integration", "malformed_result"}
expect("deep.none-by-default", not any(t in DEEP for ts in plain.values() for t in ts), plain)
expect("deep.all-fire", {t for ts in deep.values() for t in ts} >= DEEP, deep)
expect("deep.adds-only", all([t for t in deep[k] if t not in DEEP] == plain[k] for k in plain), (plain, deep))
expect("deep.schema", "schema_violation" in deep["bad-arguments"], deep)

for fl in failures:
    print("FAIL", fl)
print(f"check CLI: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

#!/usr/bin/env python3
"""The offline HTML report.

usage: report_html_test.py FORGE_BIN structure
       report_html_test.py FORGE_BIN browser
       report_html_test.py FORGE_BIN screenshot PNG     (regenerates the picture in docs/reports.md)

structure (Python's standard library only, runs everywhere): a run with passing, failing, error
and skipped cases, a case whose arguments, answer and reason hold markup meant to run
(</script><img src=x onerror=alert(1)>), U+2028, quotes and ampersands, an oversized result, a
trajectory longer than the per-case bound and a baseline. Checks the page's structure (one
inline script whose SHA-256 the Content-Security-Policy names, two JSON data blocks, no element
or attribute that fetches anything, no URL), the exact escaping of the data blocks and of the
HTML text, the summary equal to the JSON report's, the bounds, the baseline diff, and that
`forge report html` on the run's JSONL and `forge report merge --report html` write the same
page as the run; then every refusal with its exit code and message.

browser: the same pages and a generated 20,000-case run in headless Chromium (Debian's
/usr/bin/chromium) driven by tests/integration/report_html_browser.js with playwright-core from
tests/npm: the counts shown equal the JSON report's, the filters and the search (clicked and
typed), pagination, each case's timeline, nothing fetched but the page itself, the markup in the
data shown as text and never run. Skipped (exit 77, naming the install command) when Chromium or
tests/npm/node_modules is missing, unless FORGE_REQUIRE_BROWSER=1 (Chromium) or
FORGE_REQUIRE_NPM=1 (playwright-core) makes that a failure.

Prints "N passed, N failed"; exits 1 when a check failed."""
import base64
import hashlib
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FORGE = os.path.abspath(sys.argv[1])
MODE = sys.argv[2] if len(sys.argv) > 2 else "structure"
WORK = tempfile.mkdtemp(prefix="forge-html-")
ENV = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
XSS = "</script><img src=x onerror=alert(1)>"
PASSED = FAILED = 0


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


def run(*args, cwd=None):
    p = subprocess.run([FORGE, *args], capture_output=True, text=True, env=ENV, timeout=600, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(data if isinstance(data, str) else json.dumps(data))
    return path


def call(name, args, result, rnd=1, **extra):
    c = {"id": f"c-{name}-{rnd}", "name": name, "arguments": args, "result": result, "error": None,
         "latency_ms": 3.5, "round": rnd}
    c.update(extra)
    return c


def traj(cid, answer, calls, latency, cost=0.0, tokens=(0, 0)):
    return {"trajectory_id": cid, "turns": [
        {"turn_id": 1, "role": "user", "content": f"question of {cid}"},
        {"turn_id": 1, "role": "agent", "content": answer, "latency_ms": latency, "tool_calls": calls}],
        "metadata": {"latency_ms": latency, "cost_usd": cost, "input_tokens": tokens[0], "output_tokens": tokens[1],
                     "rounds": 2, "stop_reason": "final", "model": "recorded"}}


def small_suite():
    """Cases with every status and hostile text; returns (eval file, transcripts, baseline)."""
    cases = [
        {"id": "ok-1", "description": "plain & \"quoted\" 'text'", "input": {"message": "weather?"},
         "expect": {"toolsCalled": ["get_weather"], "responseContains": ["sunny"]}},
        {"id": "parallel-2", "description": "two calls in one round", "input": {"message": "now and tomorrow"},
         "expect": {"toolsCalled": ["get_weather", "get_forecast"]}},
        {"id": "xss-3", "description": "markup " + XSS, "input": {"message": "x"},
         "expect": {"responseContains": ["never \"said\" & 'done' " + XSS]}},
        {"id": "fails-4", "description": "a tool error, a blocked verifier, a denied approval",
         "input": {"message": "send it"}, "expect": {"toolsNotCalled": ["send_email"]}},
        {"id": "big-5", "description": "an oversized result and a long trajectory", "input": {"message": "all"},
         "expect": {"responseNonEmpty": True}},
        {"id": "error-6", "description": "no transcript", "input": {"message": "lost"},
         "expect": {"responseNonEmpty": True}},
        {"id": "skip-7", "description": "no input message", "input": {},
         "expect": {"responseNonEmpty": True}},
        {"id": "fixed-8", "description": "failed in the baseline", "input": {"message": "fixed"},
         "expect": {"responseContains": ["sunny"]}},
    ]
    trajs = [
        traj("ok-1", "It is sunny.", [call("get_weather", {"city": "Paris"}, {"temp_c": 18},
                                           verifier={"outcome": "pass", "verifier": None, "message": None,
                                                     "checks": [{"verifier": "plausible", "outcome": "pass",
                                                                 "message": None}]})], 120, 0.001, (100, 20)),
        traj("parallel-2", "Sunny now, rain tomorrow.",
             [call("get_weather", {"city": "Oslo"}, {"temp_c": 9}), call("get_forecast", {"city": "Oslo"},
                                                                          {"rain": True})], 340, 0.002, (200, 40)),
        traj("xss-3", XSS + " \u2028 & done", [call("search", {"q": XSS}, {"html": XSS + "\u2029"})], 55),
        traj("fails-4", "I sent it.", [
            call("lookup", {"who": "bob"}, None, error="timeout after 30 s"),
            call("send_email", {"to": "bob"}, None, rnd=2, error="blocked by verifier",
                 verifier={"outcome": "block", "verifier": "no_mail", "message": "mail is off limits", "checks": []},
                 approval={"level": "standard", "decision": "denied", "by": "policy", "reason": "writes"})], 2100),
        traj("big-5", "done", [call("dump", {"n": i}, {"blob": "z" * 5000}, rnd=i + 1) for i in range(40)], 9000),
        traj("skip-7", "skipped anyway", [], 1),
        traj("fixed-8", "sunny again", [], 80),
    ]
    evals = write("suite.json", cases)
    trans = write("t.jsonl", "".join(json.dumps(t) + "\n" for t in trajs))
    baseline = {"runId": "run-base", "cases": [
        {"id": "ok-1", "passed": True}, {"id": "parallel-2", "passed": True}, {"id": "xss-3", "passed": True},
        {"id": "fails-4", "passed": True}, {"id": "fixed-8", "passed": False}]}
    return evals, trans, write("baseline.json", baseline)


class Page(html.parser.HTMLParser):
    """Tags, attributes, script blocks and the text of elements with an id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self.text, self.stack = [], [], {}, []
        self.script = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "script":
            self.script = [a, ""]
        if tag not in ("meta", "input", "br", "hr", "img", "link", "rect", "line", "col"):
            self.stack.append((tag, a.get("id")))

    def handle_endtag(self, tag):
        if tag == "script" and self.script is not None:
            self.scripts.append(tuple(self.script))
            self.script = None
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break

    def handle_data(self, data):
        if self.script is not None:
            self.script[1] += data
        for _, i in self.stack:
            if i:
                self.text[i] = self.text.get(i, "") + data


def parse(path):
    raw = open(path, "rb").read()
    p = Page()
    p.feed(raw.decode("utf-8"))
    return raw.decode("utf-8"), p


def structure():
    evals, trans, baseline = small_suite()
    out = {k: os.path.join(WORK, "r." + k) for k in ("html", "json", "jsonl")}
    code, so, se = run("run", evals, "--transcripts", trans, "--baseline", baseline, "--min-pass-rate", "0.5",
                       *[a for k in out for a in ("--report", f"{k}={out[k]}")])
    check("the run exits 1 (failures)", code == 1, se)
    rep = json.load(open(out["json"]))
    s = rep["summary"]
    check("the suite has every status", (s["passed"], s["failed"], s["errors"], s["skipped"]) == (4, 2, 1, 1), json.dumps(s))
    raw, page = parse(out["html"])

    # structure: one inline script, named by the CSP hash; two JSON blocks; nothing fetches
    scripts = page.scripts
    kinds = [(a.get("type"), a.get("id"), "src" in a) for a, _ in scripts]
    check("three scripts: the case data, the run data, the viewer",
          kinds == [("application/json", "forge-cases", False), ("application/json", "forge-run", False),
                    (None, None, False)], str(kinds))
    csp = [a.get("content") for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    viewer = scripts[-1][1]
    digest = base64.b64encode(hashlib.sha256(viewer.encode("utf-8")).digest()).decode()
    check("the CSP allows only the viewer's script (by its hash), inline style and data: images",
          csp == [f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:; "
                  "base-uri 'none'; form-action 'none'"], str(csp))
    check("the CSP comes before any script", raw.index("Content-Security-Policy") < raw.index("<script"))
    fetching = [(t, k) for t, a in page.tags for k in a if k in ("src", "href", "srcset", "action", "poster", "data",
                                                                   "background", "formaction", "xlink:href")]
    check("no element has an attribute that fetches", fetching == [], str(fetching))
    check("no img, link, iframe, object or embed element",
          [t for t, _ in page.tags if t in ("img", "link", "iframe", "object", "embed", "base", "form")] == [])
    check("no URL in the page", not re.search(r"(?i)https?:|//[a-z0-9]|url\(|@import", raw),
          str(re.findall(r"(?i).{20}(?:https?:|//[a-z0-9]|url\(|@import).{20}", raw)[:3]))

    # the data blocks: escaped exactly, and what they decode to is the original text
    cases_text = scripts[0][1]
    for ch, name in (("<", "<"), (">", ">"), ("&", "&"), ("\u2028", "U+2028"), ("\u2029", "U+2029")):
        check(f"the case data holds no raw {name}", ch not in cases_text)
        check(f"the run data holds no raw {name}", ch not in scripts[1][1])
    check("markup in the data is written \\u003c/script\\u003e", "\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e"
          in cases_text)
    check("U+2028 is written \\u2028", "\\u2028" in cases_text and "\\u2029" in cases_text)
    data = json.loads(cases_text)
    by = {c["id"]: c for c in data}
    check("a record per case", len(data) == s["totalCases"] and set(by) == {c["id"] for c in rep["cases"]})
    x = by["xss-3"]
    check("the hostile arguments decode exactly", x["traj"]["turns"][1]["calls"][0]["args"] == json.dumps({"q": XSS},
          separators=(",", ":")), x["traj"]["turns"][1]["calls"][0]["args"])
    check("the hostile answer decodes exactly", x["traj"]["turns"][1]["text"] == XSS + " \u2028 & done")
    check("the description decodes exactly", x["desc"] == "markup " + XSS)
    check("statuses as in the JSON report", all(by[c["id"]]["status"] == (
        "error" if "error" in c else "skipped" if c.get("skipped") else "passed" if c["passed"] else "failed")
        for c in rep["cases"]))
    f4 = by["fails-4"]["traj"]["turns"][1]["calls"]
    check("errors, verifier outcomes and approvals are kept", f4[0]["error"] == "timeout after 30 s" and
          f4[1]["verifier"]["outcome"] == "block" and f4[1]["approval"] == {
              "level": "standard", "decision": "denied", "by": "policy", "reason": "writes"} and f4[1]["round"] == 2,
          json.dumps(f4))
    p2 = by["parallel-2"]["traj"]["turns"][1]["calls"]
    check("parallel calls keep their round", [c["round"] for c in p2] == [1, 1] and p2[0]["ms"] == 3.5)
    check("failing assertions carry their reasons", [a for a in by["fails-4"]["asserts"] if not a["ok"]] and
          all(a.get("reason") for a in by["fails-4"]["asserts"] if not a["ok"]), json.dumps(by["fails-4"]["asserts"]))
    check("an error case has its message and no trajectory", by["error-6"]["reason"] == "no transcript for this case"
          and "traj" not in by["error-6"], json.dumps(by["error-6"]))
    # bounds
    big = by["big-5"]
    res = big["traj"]["turns"][1]["calls"][0]["result"]
    check("an oversized result is cut with a marker", re.search(r"… \[\+\d+ bytes\]$", res) and
          len(res.encode()) <= 1024, res[-40:])
    records = cases_text.strip().strip("[]").split(",\n")
    check("every case record stays within 16384 bytes", max(len(r.encode()) for r in records) <= 16384,
          str(max(len(r.encode()) for r in records)))
    shown = len(big["traj"]["turns"][1].get("calls", []))
    check("a long trajectory is cut with a count of what was left out", big["traj"].get("omitted") == 40 - shown and
          0 < shown < 40, f"{shown} shown, omitted {big['traj'].get('omitted')}")

    # the summary as HTML text, equal to the JSON report's
    t = page.text
    for key, member in (("total", "totalCases"), ("passed", "passed"), ("failed", "failed"), ("errors", "errors"),
                        ("skipped", "skipped")):
        check(f"summary {key} equals the JSON report", t.get("s-" + key) == str(s[member]), f"{t.get('s-' + key)} vs {s[member]}")
    check("pass rate", t.get("s-passrate") == f"{s['passRate'] * 100:.1f}%", t.get("s-passrate"))
    lo, hi = s["passRateInterval"]
    check("its Wilson interval", t.get("s-interval") == f"{lo * 100:.1f}% – {hi * 100:.1f}%", t.get("s-interval"))
    check("cost and tokens", t.get("s-cost") == f"${s['estimatedCostUsd']:.6f}" and t.get("s-tokens") == "300 in / 60 out",
          f"{t.get('s-cost')} {t.get('s-tokens')}")
    check("the gate", "passRate" in t.get("gates", "") and "pass" in t.get("gates", ""), t.get("gates"))
    check("new failures and fixes against the baseline", "xss-3" in t.get("new-failures", "") and
          "fails-4" in t.get("new-failures", "") and "fixed-8" in t.get("fixes", ""), t.get("baseline"))
    run_data = json.loads(scripts[1][1])
    check("the run data lists them", sorted(run_data["regressions"]) == sorted(rep["regressions"]) and
          run_data["newPasses"] == rep["newPasses"] and run_data["baseline"] is True)
    check("the latency chart is inline SVG with a bar per filled bucket",
          sum(1 for tg, a in page.tags if tg == "rect") >= 8 and "latency-chart" in raw)
    # HTML text escaping (the failing cases shown without JavaScript)
    reason = by["xss-3"]["reason"]
    check("the reason holds the markup", XSS in reason and "\"said\" & 'done'" in reason, reason)
    check("HTML text is escaped exactly (&lt; &gt; &amp; &quot; &#39;): the failing cases shown without JavaScript",
          "never &quot;said&quot; &amp; &#39;done&#39; &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in raw.split("<noscript>")[1],
          raw[raw.find("<noscript>"):][:600])
    check("no raw markup from the data anywhere outside the data blocks",
          raw.count("<img") == 0 and raw.count("onerror=alert(1)>") == 0)

    # the same page from the JSONL results, and from merged shards
    again = os.path.join(WORK, "again.html")
    code, so, se = run("report", "html", out["jsonl"], "-o", again, "--baseline", baseline, "--min-pass-rate", "0.5")
    check("report html exits 0 and says what it wrote", code == 0 and so == f"{again}: 8 cases\n", so + se)
    # the run's page lists its cases in case order; the JSONL file holds them in the order they
    # finished (here the error case, which has no transcript, last), and report html follows the
    # file: the same page byte for byte, but for the order of its rows
    def rows_apart(path):
        raw = open(path, "rb").read()
        head = raw.index(b'id="forge-cases">[') + len(b'id="forge-cases">[')
        end = raw.index(b"</script>", head)
        body = raw[head:end].rstrip(b"]").strip(b"\n")
        return raw[:head] + raw[end:], body.split(b",\n")
    run_rest, run_rows = rows_apart(out["html"])
    again_rest, again_rows = rows_apart(again)
    row_ids = lambda rows: [json.loads(r)["id"] for r in rows]
    check("report html writes the run's page byte for byte, rows in the file's order",
          again_rest == run_rest and sorted(again_rows) == sorted(run_rows) and
          row_ids(again_rows) == [json.loads(l)["id"] for l in open(out["jsonl"])], str(row_ids(again_rows)))
    check("the run's page lists the cases in case order", row_ids(run_rows) == [c["id"] for c in json.load(open(evals))],
          str(row_ids(run_rows)))
    again_bytes = open(again, "rb").read()
    # transcripts in reverse (the cases finish backwards) and no JSONL report (the records go to
    # a temporary file): the page is the run's, its rows still in case order, trajectories kept
    rev_t = os.path.join(WORK, "rev.jsonl")
    with open(rev_t, "w") as f:
        f.writelines(reversed([l for l in open(trans) if l.strip()]))
    rh, rj = os.path.join(WORK, "rev.html"), os.path.join(WORK, "rev.json")
    code, so, se = run("run", evals, "--transcripts", rev_t, "--baseline", baseline, "--min-pass-rate", "0.5",
                       "--report", "html=" + rh, "--report", "json=" + rj)
    check("cases finished backwards, no jsonl report: the same page byte for byte, rows in case order",
          code == 1 and open(rh, "rb").read() == open(out["html"], "rb").read(), se)
    check("... and the same JSON report, without trajectories", open(rj, "rb").read() == open(out["json"], "rb").read())
    jl = [json.loads(l) for l in open(out["jsonl"])]
    check("JSONL case records carry their trajectory", all(("trajectory" in r) == (r["id"] != "error-6") for r in jl) and
          jl[0]["trajectory"]["trajectory_id"] == jl[0]["id"])
    check("the JSON report carries none", all("trajectory" not in c for c in rep["cases"]))
    shards = []
    for i in (1, 2):
        p = os.path.join(WORK, f"s{i}.jsonl")
        run("run", evals, "--transcripts", trans, "--shard", f"{i}/2", "--report", "jsonl=" + p)
        shards.append(p)
    mh, mj = os.path.join(WORK, "merged.html"), os.path.join(WORK, "merged.json")
    code, so, se = run("report", "merge", *shards, "--report", "html=" + mh, "--report", "json=" + mj,
                       "--baseline", baseline, "--min-pass-rate", "0.5")
    mraw, mpage = parse(mh)
    merged = json.loads(mpage.scripts[0][1])
    check("merge --report html: the cases of the single run, in the suite's order",
          [c["id"] for c in merged] == [c["id"] for c in json.load(open(evals))] and
          sorted(merged, key=lambda c: c["id"]) == sorted(data, key=lambda c: c["id"]), se)
    check("merge --report html: the summary of the single run", {k: v for k, v in mpage.text.items() if k.startswith("s-")}
          == {k: v for k, v in t.items() if k.startswith("s-")})
    check("the merged JSON report still equals the single run's", json.load(open(mj)) == rep)

    # the demo, through forge script
    demo = os.path.join(WORK, "demo.html")
    code, so, se = run("script", os.path.join(ROOT, "scripts", "demo.lua"), "--report", "html=" + demo, cwd=ROOT)
    _, dpage = parse(demo)
    dd = json.loads(dpage.scripts[0][1])
    check("forge script --report html", code == 1 and len(dd) == 8 and dpage.text.get("s-failed") == "1" and
          any(c["name"] == "get_forecast" for c in dd[2]["traj"]["turns"][1]["calls"]), se)

    # from stdin
    p = subprocess.run([FORGE, "report", "html", "-", "-o", again, "--baseline", baseline, "--min-pass-rate", "0.5"],
                       input=open(out["jsonl"], "rb").read(), capture_output=True, env=ENV, timeout=60)
    check("report html - reads stdin: the page it writes from the file, byte for byte",
          p.returncode == 0 and open(again, "rb").read() == again_bytes, p.stderr)

    # results of any shape (a JSONL file may hold anything): a page, never a crash
    import random
    rnd = random.Random(15)
    values = [None, True, False, 0, -1.5, 1e308, -1e308, 2.5e15, "</script><!--", [], {}, [1, [2, [3]]], "\u2028\u2029",
              "é" * 3000, "\x01\x7f", "a" * 20000]

    def anything(d=0):
        if d < 4 and rnd.random() < 0.3:
            return {k: anything(d + 1) for k in rnd.sample(
                ["role", "content", "tool_calls", "name", "arguments", "result", "error", "verifier", "approval",
                 "latency_ms", "round", "turns", "metadata", "checks", "input_tokens", "type", "passed", "reason"], 5)}
        if d < 4 and rnd.random() < 0.2:
            return [anything(d + 1) for _ in range(rnd.randint(0, 4))]
        return rnd.choice(values)
    lines = []
    for i in range(200):
        r = {"id": rnd.choice([f"c{i}", "</script>" * 50, "\u2028", "x" * 5000])}
        for k in ("description", "passed", "skipped", "error", "score", "weight", "latencyMs", "costUsd", "reason",
                  "assertions", "warnings", "suite", "label", "trajectory", "skippedAssertions", "durationMs"):
            if rnd.random() < 0.5:
                r[k] = anything()
        if rnd.random() < 0.5:
            r["trajectory"] = {"turns": [anything(1) for _ in range(rnd.randint(0, 30))], "metadata": anything(1)}
        lines.append(json.dumps(r))
    odd = write("odd.jsonl", "\n".join(lines) + "\n")
    oh = os.path.join(WORK, "odd.html")
    code, so, se = run("report", "html", odd, "-o", oh, "--baseline", baseline)
    _, opage = parse(oh) if code == 0 else ("", None)
    otext = opage.scripts[0][1] if opage else ""
    check("results of any shape make a page", code == 0 and len(json.loads(otext or "[]")) == 200 and "<" not in otext, se)
    check("... whose records stay within the bound",
          otext and max(len(r.encode()) for r in otext.strip().strip("[]").split(",\n")) <= 16384)

    # refusals
    def refused(name, args, want_code, want):
        code, so, se = run(*args)
        check(name, code == want_code and want in se and not so, f"{code} {se!r}")
    refused("html without -o", ["report", "html", out["jsonl"]], 2, "give the results file and -o PATH")
    refused("html without a file", ["report", "html", "-o", again], 2, "give the results file and -o PATH")
    refused("html of two files", ["report", "html", out["jsonl"], out["jsonl"], "-o", again], 2, "one results file")
    refused("html of a missing file", ["report", "html", os.path.join(WORK, "nope.jsonl"), "-o", again], 2,
            "nope.jsonl: cannot read")
    refused("html of a folder", ["report", "html", WORK, "-o", again], 2, "is a directory")
    bad = write("bad.jsonl", open(out["jsonl"]).readline() + "{\"id\": \n")
    refused("html of a cut line", ["report", "html", bad, "-o", again], 2, "bad.jsonl:2:")
    notcase = write("notcase.jsonl", "[1,2]\n")
    refused("html of a line that is no case", ["report", "html", notcase, "-o", again], 2, "notcase.jsonl:1: not a case result")
    empty = write("empty.jsonl", "\n")
    refused("html of no cases", ["report", "html", empty, "-o", again], 2, "empty.jsonl: no case results")
    refused("html into a missing folder", ["report", "html", out["jsonl"], "-o", os.path.join(WORK, "no", "r.html")], 3,
            "cannot write the report")
    refused("html with an unknown option", ["report", "html", out["jsonl"], "-o", again, "--bogus", "1"], 2,
            "unknown option '--bogus'")
    refused("html with a bad gate", ["report", "html", out["jsonl"], "-o", again, "--min-pass-rate", "2"], 2,
            "--min-pass-rate takes a number from 0 to 1, not '2'")
    refused("two html reports in a run", ["run", evals, "--transcripts", trans, "--report", "html=" + again,
                                          "--report", "html=" + again + "2"], 2, "only one html report per run")
    refused("an unknown report format names html", ["run", evals, "--transcripts", trans, "--report", "pdf=x"], 2,
            "(json, jsonl, junit, md, html)")
    check("a refused report leaves no file behind", not [f for f in os.listdir(WORK) if ".tmp." in f],
          str(os.listdir(WORK)))


def large_suite(n):
    """n cases: every 10th fails, every 97th has no transcript; returns (eval file, transcripts)."""
    cases, lines = [], []
    for i in range(n):
        cid = f"case-{i:06d}"
        cases.append({"id": cid, "input": {"message": f"q {i}"},
                      "expect": {"responseContains": ["rain" if i % 10 == 0 else "sunny"]}})
        if i % 97:
            lines.append(json.dumps(traj(cid, "It is sunny.", [call("get_weather", {"city": f"city {i}"}, {"t": i})],
                                         10 + i % 500)))
    return write(f"large{n}.json", cases), write(f"large{n}.jsonl", "\n".join(lines) + "\n")


def need_browser():
    """The node script's command, or exits 77 (skipped) / 1 (required) naming the install command."""
    chromium = "/usr/bin/chromium"
    modules = os.path.join(ROOT, "tests", "npm", "node_modules", "playwright-core")
    if not os.path.exists(chromium):
        msg = "Chromium is not installed: apt-get install -y chromium"
        shutil.rmtree(WORK, ignore_errors=True)
        if os.environ.get("FORGE_REQUIRE_BROWSER") == "1":
            print("FAIL " + msg)
            sys.exit(1)
        print("SKIPPED: " + msg)
        sys.exit(77)
    if not os.path.isdir(modules) or not shutil.which("node"):
        msg = "playwright-core is not installed in tests/npm/node_modules: run tests/npm/install.sh"
        shutil.rmtree(WORK, ignore_errors=True)
        if os.environ.get("FORGE_REQUIRE_NPM") == "1":
            print("FAIL " + msg)
            sys.exit(1)
        print("SKIPPED: " + msg)
        sys.exit(77)
    return ["node", os.path.join(HERE, "report_html_browser.js")]


def node(cmd, spec):
    p = subprocess.run(cmd + [write("spec.json", spec)], capture_output=True, text=True, timeout=600)
    for line in p.stdout.splitlines():
        if line.startswith("ok "):
            check(line[3:], True)
        elif line.startswith("FAIL "):
            check(line[5:], False)
    check("the browser script ran to its end", p.returncode == 0 and "done" in p.stdout, p.stderr[-2000:])


def browser():
    cmd = need_browser()
    evals, trans, baseline = small_suite()
    small, sj = os.path.join(WORK, "small.html"), os.path.join(WORK, "small.json")
    run("run", evals, "--transcripts", trans, "--baseline", baseline, "--report", "html=" + small, "--report", "json=" + sj)
    n = 20000
    le, lt = large_suite(n)
    large, lj = os.path.join(WORK, "large.html"), os.path.join(WORK, "large.json")
    code, so, se = run("run", le, "--transcripts", lt, "-q", "--report", "html=" + large, "--report", "json=" + lj)
    check("the large run is reported", code == 1 and os.path.exists(large), se[-500:])
    node(cmd, {"small": small, "smallJson": sj, "large": large, "largeJson": lj, "xss": XSS,
               "profile": os.path.join(WORK, "chromium-profile")})


def screenshot(png):
    cmd = need_browser()
    demo = os.path.join(WORK, "demo.html")
    run("script", os.path.join(ROOT, "scripts", "demo.lua"), "--report", "html=" + demo, cwd=ROOT)
    node(cmd, {"screenshot": demo, "png": os.path.abspath(png), "open": "gs-weather-004",
               "profile": os.path.join(WORK, "chromium-profile")})


if MODE == "structure":
    structure()
elif MODE == "browser":
    browser()
elif MODE == "screenshot":
    screenshot(sys.argv[3])
else:
    print(__doc__)
    sys.exit(2)
print(f"{PASSED} passed, {FAILED} failed")
shutil.rmtree(WORK, ignore_errors=True)
sys.exit(1 if FAILED else 0)

#!/usr/bin/env python3
"""forge probe end to end.

usage: probe_test.py FORGE_BIN

The built-in probes cross each dialect's real wire against forge serve with two scripted
models: one that behaves well (every probe passes, but those Ollama's wire cannot express) and
one that fails each probe in its own way (the reasons are checked). User probes (--probes)
against the fake provider give the blocked (429), truncated, error and fail outcomes per
dialect, and a preflight that catches a request whose forced tool choice is lost on the wire.
JSON (big-AGI's sweep and forge's record), Markdown, --repeat with its Wilson interval,
--require, --probe and bad usage. Prints "N passed, N failed"; exits 1 when a check failed."""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FORGE = sys.argv[1]
FAKE = os.path.join(ROOT, "tests", "support", "fake_provider.py")
KEYS = {"OPENAI_API_KEY": "sk-test-openai-0123456789", "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
        "GEMINI_API_KEY": "gm-test-key-0123456789"}
DIALECTS = ["openai", "openai-responses", "anthropic", "gemini", "ollama"]
PROBES = ["auto", "required", "roundtrip", "parallel", "named", "none", "irrelevance", "strict", "nested", "stream"]
WORK = tempfile.mkdtemp(prefix="forge-probe-")
PASSED = FAILED = 0


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


def start(cmd, port_file):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return proc, int(open(port_file).read())
        time.sleep(0.01)
    raise RuntimeError("server did not start")


def probe(*args):
    p = subprocess.run([FORGE, "probe", *args], capture_output=True, text=True, env=dict(os.environ, **KEYS), timeout=300)
    return p.returncode, p.stdout, p.stderr


def serve(rules):
    pf = os.path.join(WORK, os.path.basename(rules) + ".port")
    return start([FORGE, "serve", "--listen", "127.0.0.1:0", "--port-file", pf, "--model",
                  "scripted:" + os.path.join(HERE, "probe", rules)], pf)


def main():
    models = [d + ":m" for d in DIALECTS]
    good, gport = serve("good.lua")
    try:
        js = os.path.join(WORK, "good.json")
        md = os.path.join(WORK, "good.md")
        code, out, err = probe(*models, "--base-url", f"http://127.0.0.1:{gport}", "--no-cache", "--json", js,
                               "--md", md, "-j", "5")
        check("good: exit 0", code == 0, err)
        rep = json.load(open(js))
        outcomes = {m["model"]: {p: r["outcome"] for p, r in m["probes"].items()} for m in rep["models"]}
        for d in DIALECTS:
            want = {p: "pass" for p in PROBES}
            if d == "ollama":  # Ollama's chat API cannot force a call, nor name one
                want.update(required="fail", named="fail")
            check(f"good: {d}", outcomes.get(d + ":m") == want, json.dumps(outcomes.get(d + ":m")))
        check("good: big-AGI's sweep", rep["sweep"] == {
            m: {"fn": ["auto", "roundtrip"] if m.startswith("ollama") else ["auto", "required", "roundtrip"]}
            for m in models}, json.dumps(rep["sweep"]))
        o = rep["models"][4]["probes"]["required"]
        check("ollama required: why", o["reason"].startswith("request: tool_choice: ollama's chat API cannot force"),
              o["reason"])
        check("ollama named: caught by the preflight", rep["models"][4]["probes"]["named"]["reason"] ==
              "coerced on wire: the request does not force get_current_time in ollama's terms",
              rep["models"][4]["probes"]["named"]["reason"])
        a = rep["models"][2]["probes"]["required"]
        check("the request body is kept", a["request"]["tool_choice"] == {"type": "any"} and
              a["request"]["model"] == "m", json.dumps(a["request"])[:300])
        g = rep["models"][3]["probes"]["stream"]["request"]
        check("the stream probe asks for a stream", g is not None and "contents" in g, json.dumps(g)[:200])
        check("record fields", set(a) == {"outcome", "runs", "passed", "pass_rate", "pass_rate_interval", "outcomes",
                                          "latency_ms_median", "reason", "request"} and a["runs"] == 1 and
              a["outcomes"] == {"pass": 1}, json.dumps(a)[:400])
        lines = out.splitlines()
        check("table: header and one row per model", lines[0].split() == ["model"] + PROBES and len(lines) >= 6 and
              all(lines[i + 1].startswith(models[i]) for i in range(5)), out)
        check("table: ollama's failures explained", "ollama:m required: fail: request: tool_choice" in out, out)
        mdt = open(md).read().splitlines()
        check("markdown", mdt[0] == "| model | " + " | ".join(PROBES) + " |" and mdt[1] == "|---|" + "---|" * 10 and
              mdt[2].startswith("| openai:m | ✓ "), "\n".join(mdt[:3]))
        # --repeat, --probe, --require
        code, out, err = probe("openai:m", "--base-url", f"http://127.0.0.1:{gport}/v1", "--no-cache", "--probe", "auto",
                               "--probe", "roundtrip", "--repeat", "3", "--format", "json")
        r = json.loads(out)["models"][0]["probes"]
        check("--repeat 3: runs, rate, Wilson interval", list(r) == ["auto", "roundtrip"] and r["auto"]["runs"] == 3 and
              r["auto"]["pass_rate"] == 1 and abs(r["auto"]["pass_rate_interval"][0] - 0.4385) < 1e-3 and
              r["auto"]["pass_rate_interval"][1] == 1, json.dumps(r["auto"]))
        code, out, err = probe("ollama:m", "--base-url", f"http://127.0.0.1:{gport}", "--no-cache", "--probe", "required",
                               "--require", "required")
        check("--require: exit 1 when it does not pass", code == 1 and "ollama:m did not pass required" in err, err)
        code, out, err = probe("openai:m", "--base-url", f"http://127.0.0.1:{gport}/v1", "--no-cache", "--require", "auto",
                               "--probe", "auto")
        check("--require: exit 0 when it passes", code == 0, err)
    finally:
        good.terminate()
        good.wait()
    bad, bport = serve("bad.lua")
    try:
        code, out, err = probe("anthropic:m", "gemini:m", "--base-url", f"http://127.0.0.1:{bport}", "--no-cache",
                               "--format", "json")
        rep = json.loads(out)
        for m in rep["models"]:
            reasons = {p: (r["outcome"], r["reason"]) for p, r in m["probes"].items()}
            want = {
                "auto": ("fail", "no location argument"), "required": ("fail", "no function call emitted"),
                "roundtrip": ("fail", "no location argument"),
                "parallel": ("fail", "1 call(s) in the first response, not 2"),
                "named": ("fail", "called get_current_weather, not the named get_current_time"),
                "none": ("fail", "called get_current_weather where no call should be made"),
                "irrelevance": ("fail", "called get_current_time where no call should be made"),
                "strict": ("fail", None), "nested": ("fail", None), "stream": ("fail", "no location argument")}
            for p, (o, why) in want.items():
                got = reasons.get(p)
                check(f"bad {m['model']} {p}", got and got[0] == o and (why is None or got[1] == why), str(got))
            check(f"bad {m['model']} strict: the enum", reasons["strict"][1].startswith("arguments break the schema:") and
                  "/unit" in reasons["strict"][1], reasons["strict"][1])
            check(f"bad {m['model']} nested: the array", reasons["nested"][1].startswith("arguments break the schema:") and
                  "/items" in reasons["nested"][1], reasons["nested"][1])
            check(f"bad {m['model']}: sweep empty", rep["sweep"][m["model"]] == {"fn": []}, json.dumps(rep["sweep"]))
        check("bad: exit 0 (outcomes are data)", code == 0, err)
    finally:
        bad.terminate()
        bad.wait()
    # user probes against the fake provider: the other outcome classes, per dialect
    pf = os.path.join(WORK, "fake.port")
    fake, fport = start([sys.executable, FAKE, "--port-file", pf], pf)
    user = os.path.join(WORK, "mine.lua")
    with open(user, "w") as f:
        f.write('''
local weather = { name = "get_weather", parameters = { type = "object", properties = { city = { type = "string" } } } }
local function any(resp) return true end
return {
  { name = "busy", prompt = "[ratelimit-always] weather?", tools = { weather }, check = any },
  { name = "cut", prompt = "[length] weather?", tools = { weather }, check = any },
  { name = "garbage", prompt = "[malformed] weather?", tools = { weather }, check = any },
  { name = "refused", prompt = "[error400] weather?", tools = { weather }, check = any },
  { name = "ok", prompt = "[single] weather?", tools = { weather },
    check = function(resp) return resp.message.tool_calls ~= nil, "no call" end },
  { name = "lost", prompt = "[single] weather?", tools = { weather }, tool_choice = "required",
    preflight = function(body, dialect)
      if body.tool_choice ~= "none" then return "coerced on wire (" .. dialect .. ")" end
    end,
    check = any },
  { name = "raises", prompt = "hello", tools = { weather }, check = function() error("boom") end },
}
''')
    try:
        for d in DIALECTS:
            base = f"http://127.0.0.1:{fport}" + ("/v1" if d.startswith("openai") else "")
            code, out, err = probe(d + ":m1", "--base-url", base, "--no-cache", "--retries", "1", "--probes", user,
                                   "--probe", "busy", "--probe", "cut", "--probe", "garbage", "--probe", "refused",
                                   "--probe", "ok", "--probe", "raises", "--format", "json",
                                   *(["--probe", "lost"] if d != "ollama" else []))
            r = json.loads(out)["models"][0]["probes"] if code == 0 else {}
            got = {p: v["outcome"] for p, v in r.items()}
            want = {"busy": "blocked", "cut": "truncated", "garbage": "error", "refused": "fail", "ok": "pass",
                    "raises": "error"}
            if d != "ollama":
                want["lost"] = "fail"
            check(f"outcome classes {d}", got == want, f"{got} {err}")
            if r:
                check(f"preflight reason {d}", d == "ollama" or r["lost"]["reason"] == f"coerced on wire ({d})",
                      r.get("lost", {}).get("reason"))
                check(f"a raising check {d}", "boom" in r["raises"]["reason"], r["raises"]["reason"])
    finally:
        fake.terminate()
        fake.wait()
    # bad usage
    code, out, err = probe("openai:m", "--probe", "nope")
    check("unknown probe: exit 2 with the list", code == 2 and "--probe nope: no such probe (auto, required" in err, err)
    code, out, err = probe()
    check("no model: exit 2", code == 2 and "no model" in err, err)
    with open(user, "w") as f:
        f.write('return { { name = "auto", prompt = "x", check = function() return true end } }')
    code, out, err = probe("openai:m", "--probes", user)
    check("a user probe may not take a built-in name", code == 2 and "a probe named 'auto' is built in" in err, err)
    with open(user, "w") as f:
        f.write('return { { name = "x", promt = "x", check = function() return true end } }')
    code, out, err = probe("openai:m", "--probes", user)
    check("unknown probe key", code == 2 and "probes[1]: unknown key 'promt'" in err, err)


main()
print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)

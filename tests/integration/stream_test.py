#!/usr/bin/env python3
"""Streamed answers end to end, per dialect.

usage: stream_test.py FORGE_BIN DIALECT   (openai, openai-responses, anthropic, gemini, ollama)

Against tests/support/fake_provider.py, which streams each provider's own event sequence: every
answer kind (text, one call with a thought signature, parallel calls, cut by length, filtered)
normalizes exactly as without --stream, with timings; a stream cut in the middle is retried and
a stream always cut fails saying so; a stalled stream hits --idle-timeout-ms; an error event,
an event that is not JSON and (Anthropic) tool input that does not add up to JSON fail with a
clear message; interleaved deltas of two calls assemble. Against forge serve: the same
responses streamed and whole, pairwise. A cassette recorded with --stream replays with and
without it. Prints "N passed, N failed"; exits 1 when a check failed."""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FAKE = os.path.join(ROOT, "tests", "support", "fake_provider.py")
FORGE = sys.argv[1]
D = sys.argv[2]
KEYS = {"OPENAI_API_KEY": "sk-test-openai-0123456789", "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
        "GEMINI_API_KEY": "gm-test-key-0123456789"}
PASSED = FAILED = 0


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {D} {name}" + (f": {detail}" if detail else ""), flush=True)


def start(cmd, port_file):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return proc, int(open(port_file).read())
        time.sleep(0.01)
    raise RuntimeError("server did not start: " + " ".join(cmd))


def base_url(port):
    return f"http://127.0.0.1:{port}" + ("/v1" if D.startswith("openai") else "")


WORK = tempfile.mkdtemp(prefix="forge-stream-")
TOOLS = [{"name": "get_weather", "description": "Weather.", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}, "required": ["city"]}}]


def complete(port, text, *flags, history=None):
    req = {"messages": history or [{"role": "user", "content": text}], "tools": TOOLS, "params": {"max_tokens": 200}}
    path = os.path.join(WORK, "req.json")
    with open(path, "w") as f:
        json.dump(req, f)
    p = subprocess.run([FORGE, "model", "complete", "--model", D + ":m1", "--base-url", base_url(port), "--no-cache",
                        "--retries", "1", *flags, path], capture_output=True, text=True, env=dict(os.environ, **KEYS),
                       timeout=120)
    try:
        return p.returncode, json.loads(p.stdout) if p.stdout else None, p.stderr
    except ValueError:
        return p.returncode, None, p.stderr + p.stdout


def core(r):
    return {k: r[k] for k in ("message", "finish_reason", "usage")} if r else None


def main():
    pf = os.path.join(WORK, "fake.port")
    fake, port = start([sys.executable, FAKE, "--port-file", pf, "--log", os.path.join(WORK, "fake.log")], pf)
    try:
        for scen in ("text", "single", "parallel", "length", "filter"):
            prompt = f"[{scen}] weather?"
            c1, whole, e1 = complete(port, prompt)
            c2, streamed, e2 = complete(port, prompt, "--stream")
            check(f"{scen}: streamed = whole", c1 == 0 and c2 == 0 and core(whole) == core(streamed),
                  f"{e1}{e2}\n{json.dumps(core(whole))}\n{json.dumps(core(streamed))}")
            t = (streamed or {}).get("timing", {})
            calls = (whole or {}).get("message", {}).get("tool_calls")
            check(f"{scen}: timing", set(t) == {"ttfb_ms", "first_token_ms", "first_tool_call_ms", "last_byte_ms"} and
                  t["ttfb_ms"] is not None and t["last_byte_ms"] >= t["ttfb_ms"] and
                  (t["first_tool_call_ms"] is not None) == bool(calls), json.dumps(t))
        # the request really asked for a stream
        log = [json.loads(line) for line in open(os.path.join(WORK, "fake.log"))]
        last = log[-1]
        if D == "gemini":
            check("asks by URL", last["path"].endswith(":streamGenerateContent?alt=sse"), last["path"])
        else:
            check("asks with stream: true", last["body"].get("stream") is True, json.dumps(last["body"])[:300])
        if D == "openai":
            check("asks for usage", last["body"].get("stream_options") == {"include_usage": True}, "")
        # a round trip: results sent back, the answer streamed
        c, r, e = complete(port, "", "--stream", history=[
            {"role": "user", "content": "[single] weather?"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "get_weather",
                                                                   "arguments": {"city": "Paris"}}]},
            {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": "{\"temp_c\":18}"}])
        sent = '{"output":{"temp_c":18}}' if D == "gemini" else '{"temp_c":18}'  # Gemini sends results as objects
        check("round trip streamed", c == 0 and r["message"]["content"] == "Results: " + sent, e + json.dumps(r))
        c1, whole, _ = complete(port, "[parallel] weather?")
        c, r, e = complete(port, "[stream-interleave] weather?", "--stream")
        check("interleaved deltas of two calls", c == 0 and core(r)["message"]["tool_calls"] ==
              core(whole)["message"]["tool_calls"], e + json.dumps(core(r)))
        c, r, e = complete(port, "[stream-cut] weather?", "--stream")
        check("a stream cut once is retried", c == 0 and r["message"]["content"].startswith("Hello from"), e)
        c, r, e = complete(port, "[stream-cut-always] weather?", "--stream")
        check("a stream always cut fails saying so", c == 3 and ("ended before its end" in e or "middle of the stream" in e)
              and "after 2 attempts" in e, e)
        t0 = time.time()
        c, r, e = complete(port, "[stream-stall] weather?", "--stream", "--idle-timeout-ms", "1000", "--retries", "0")
        check("a stalled stream hits the idle limit", c == 3 and "idle limit" in e and "--idle-timeout-ms" in e and
              time.time() - t0 < 10, e)
        c, r, e = complete(port, "[stream-error] weather?", "--stream")
        want = {"anthropic": "overloaded_error: Overloaded", "openai": "The server had an error while processing",
                "openai-responses": "The server had an error", "gemini": "Internal error encountered",
                "ollama": "model runner has unexpectedly stopped"}[D]
        check("an error event fails with the provider's message", c == 3 and "stream failed" in e and want in e, e)
        c, r, e = complete(port, "[stream-badjson] weather?", "--stream")
        check("an event that is not JSON fails clearly", c == 3 and "not JSON" in e, e)
        if D == "anthropic":
            c, r, e = complete(port, "[stream-badargs] weather?", "--stream")
            check("tool input that is not JSON fails clearly", c == 3 and "is not a JSON object" in e, e)
        if D == "openai":
            c, r, e = complete(port, "[stream-badargs] weather?", "--stream")
            calls = (r or {}).get("message", {}).get("tool_calls", [])
            check("arguments that are not JSON stay visible, as whole", c == 0 and calls and
                  calls[0].get("arguments_text") == '{"ci' and "arguments_error" in calls[0], e + json.dumps(r))
        c, r, e = complete(port, "[ratelimit] weather?", "--stream")
        check("429 before the stream is retried", c == 0 and r["message"]["content"] == "Served after the rate limit.", e)
        # record streamed, replay with and without --stream
        tape = os.path.join(WORK, "tape.jsonl")
        c, rec, e = complete(port, "[parallel] weather?", "--stream", "--record", tape)
        c2, rep, e2 = complete(port, "[parallel] weather?", "--replay", tape)
        c3, rep2, e3 = complete(port, "[parallel] weather?", "--stream", "--replay", tape)
        check("a streamed recording replays whole and streamed", c == c2 == c3 == 0 and core(rec) == core(rep) ==
              core(rep2) and rep2["timing"]["ttfb_ms"] == 0,
              f"{e}{e2}{e3}\n{json.dumps(core(rec))}\n{json.dumps(core(rep))}\n{json.dumps(core(rep2))}")
        # a suite with stream = true: its requests stream, its turns record the timings
        suite = os.path.join(WORK, "suite.lua")
        with open(suite, "w") as f:
            f.write('local forge = require "forge"\n'
                    'return forge.suite { name = "s", model = "%s:m1", stream = true,\n'
                    '  tools = { forge.tool { name = "get_weather", mock = { temp_c = 18 } } },\n'
                    '  cases = { { id = "c1", input = { message = "[single] weather?" },\n'
                    '              expect = { toolsCalled = { "get_weather" } } } } }\n' % D)
        trans = os.path.join(WORK, "suite.jsonl")
        p = subprocess.run([FORGE, "script", suite, "--base-url", base_url(port), "--no-cache", "--save-transcripts",
                            trans], capture_output=True, text=True, env=dict(os.environ, **KEYS), timeout=120)
        t = json.loads(open(trans).readline()) if os.path.exists(trans) else {}
        mt = (t.get("turns") or [{}, {}])[1].get("model_timings")
        check("suite stream = true", p.returncode == 0 and mt and [m["round"] for m in mt] == [1, 2] and
              all(m["ttfb_ms"] is not None for m in mt) and mt[0]["first_tool_call_ms"] is not None,
              p.stdout + p.stderr + json.dumps(t)[:500])
        tape_line = json.loads(open(tape).readline())
        check("the cassette holds the assembled answer", isinstance(tape_line["response"], dict) and
              tape_line["request"].get("stream") is not True, json.dumps(tape_line)[:300])
    finally:
        fake.terminate()
        fake.wait()
    # forge serve streams, forge reads: the same answers streamed and whole
    rules = os.path.join(HERE, "serve", "rules.lua")
    spf = os.path.join(WORK, "serve.port")
    serve, sport = start([FORGE, "serve", "--listen", "127.0.0.1:0", "--port-file", spf, "--model", "scripted:" + rules],
                         spf)
    try:
        for prompt in ("Tell me the weather now and the forecast for tomorrow in Oslo", "What is the weather in Rome?",
                       "Tell me a joke"):
            c1, whole, e1 = complete(sport, prompt)
            c2, streamed, e2 = complete(sport, prompt, "--stream")
            check(f"forge serve: {prompt[:20]}", c1 == c2 == 0 and core(whole) == core(streamed), f"{e1}{e2}")
    finally:
        serve.terminate()
        serve.wait()


main()
print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)

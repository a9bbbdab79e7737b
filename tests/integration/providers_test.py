#!/usr/bin/env python3
"""End-to-end tests of forge's model providers against tests/support/fake_provider.py.

usage: providers_test.py FORGE_BIN GROUP
GROUP is a dialect (openai, openai-responses, anthropic, gemini, ollama): a two-turn suite with
parallel calls and a tool error, a round trip with thought signatures, every tool_choice form,
finish reasons, provider errors and 429 handling, with the exact request bodies checked; or
"transport" (retries, timeouts, caps, malformed answers), "hygiene" (keys), "cache",
"replay", "batch".
Prints "N passed, N failed" and exits 1 when a check failed."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "..", "support", "fake_provider.py")
FORGE = sys.argv[1]
GROUP = sys.argv[2]

KEYS = {"OPENAI_API_KEY": "sk-test-openai-0123456789", "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
        "GEMINI_API_KEY": "gm-test-key-0123456789"}
PASSED = 0
FAILED = 0

SYSTEM = "You are a weather assistant."
WEATHER_TOOL = {"name": "get_weather", "description": "Current weather for a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                               "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                               "required": ["city"]}}
TIME_TOOL = {"name": "get_time", "description": "Local time in a city.",
             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
RESULT_OK = '{"temp_c":18,"condition":"cloudy"}'


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print("FAIL: %s %s" % (name, detail), file=sys.stderr)


def check_eq(name, got, want):
    check(name, got == want, "\n  got:      %s\n  expected: %s" % (json.dumps(got, sort_keys=True),
                                                              json.dumps(want, sort_keys=True)))


class Fake:
    def __init__(self, tmp, delay_ms=0):
        self.tmp = tmp
        self.log = os.path.join(tmp, "requests.jsonl")
        port_file = os.path.join(tmp, "port")
        self.proc = subprocess.Popen([sys.executable, FAKE, "--port-file", port_file, "--log", self.log,
                                      "--delay-ms", str(delay_ms), "--max-seconds", "280"])
        for _ in range(200):
            if os.path.exists(port_file):
                break
            time.sleep(0.02)
        with open(port_file) as f:
            self.port = int(f.read())
        self.seen = 0

    def base(self, provider):
        root = "http://127.0.0.1:%d" % self.port
        return root + "/v1" if provider.startswith("openai") else root

    def requests(self):
        """The requests logged since the last call."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            lines = f.read().splitlines()
        new = [json.loads(l) for l in lines[self.seen:]]
        self.seen = len(lines)
        return new

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def run(args, env_extra=None, drop=(), request=None, tmp=None):
    env = {k: v for k, v in os.environ.items() if k not in KEYS and k not in ("GOOGLE_API_KEY", "OPENAI_BASE_URL",
                                                                                  "ANTHROPIC_BASE_URL", "GEMINI_BASE_URL",
                                                                                  "OLLAMA_HOST", "OLLAMA_API_KEY")}
    env.update(KEYS)
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "xdg")
    for k in drop:
        env.pop(k, None)
    env.update(env_extra or {})
    argv = [FORGE, "model"] + args
    if request is not None:
        path = os.path.join(tmp, "req-%d.json" % time.monotonic_ns())
        with open(path, "w") as f:
            json.dump(request, f)
        argv.append(path)
    t0 = time.monotonic()
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    out = None
    if p.returncode == 0 and args[0] == "complete":
        out = json.loads(p.stdout)
        out.pop("latency_ms", None)
    return p.returncode, out, p.stderr, time.monotonic() - t0, p.stdout


def complete(fake, provider, request, extra=(), **kw):
    return run(["complete", "--model", provider + ":m1", "--base-url", fake.base(provider), "--no-cache"] + list(extra),
               request=request, tmp=fake.tmp, **kw)


def req(text, tools=(WEATHER_TOOL,), **more):
    r = {"system": SYSTEM, "messages": [{"role": "user", "content": text}], "tools": list(tools)}
    r.update(more)
    return r


def response(content, calls, finish, provider_data=None):
    msg = {"role": "assistant", "content": content}
    if calls is not None:
        msg["tool_calls"] = calls
    if provider_data is not None:
        msg["provider_data"] = provider_data
    return {"message": msg, "finish_reason": finish, "usage": {"input_tokens": 11, "output_tokens": 7},
            "cost_usd": 0, "cached": False}


PARIS = {"city": "Paris"}
LONDON = {"city": "London", "unit": "celsius"}
IDS = {"openai": ("call_a1", "call_a2"), "openai-responses": ("call_r1", "call_r2"),
       "anthropic": ("toolu_01", "toolu_02"), "gemini": ("call_1", "call_2"), "ollama": ("call_1", "call_2")}


def calls_for(provider):
    a, b = IDS[provider]
    return [{"id": a, "name": "get_weather", "arguments": PARIS}, {"id": b, "name": "get_weather", "arguments": LONDON}]


def args_text(a):
    return json.dumps(a, separators=(",", ":"))


def wire_tools(provider, tools):
    if provider in ("openai", "ollama"):
        return [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                                  "parameters": t["parameters"]}} for t in tools]
    if provider == "openai-responses":
        return [{"type": "function", "name": t["name"], "description": t["description"],
                 "parameters": t["parameters"], "strict": False} for t in tools]
    if provider == "anthropic":
        return [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]} for t in tools]
    return [{"functionDeclarations": [{"name": t["name"], "description": t["description"],
                                       "parametersJsonSchema": t["parameters"]} for t in tools]}]


def expected_turn2(provider):
    """The exact body forge must send for the second turn of the parallel suite."""
    a, b = IDS[provider]
    user = "[parallel] Weather in Paris and London?"
    tools = wire_tools(provider, [WEATHER_TOOL])
    if provider == "openai":
        return {"model": "m1", "messages": [
            {"role": "system", "content": SYSTEM}, {"role": "user", "content": user},
            {"role": "assistant", "content": "Checking both cities.", "tool_calls": [
                {"id": a, "type": "function", "function": {"name": "get_weather", "arguments": args_text(PARIS)}},
                {"id": b, "type": "function", "function": {"name": "get_weather", "arguments": args_text(LONDON)}}]},
            {"role": "tool", "tool_call_id": a, "content": RESULT_OK},
            {"role": "tool", "tool_call_id": b, "content": "Error: city not found"}],
            "tools": tools, "tool_choice": "auto", "parallel_tool_calls": True, "temperature": 0, "max_tokens": 256}
    if provider == "openai-responses":
        return {"model": "m1", "instructions": SYSTEM, "input": [
            {"role": "user", "content": user}, {"role": "assistant", "content": "Checking both cities."},
            {"type": "function_call", "call_id": a, "name": "get_weather", "arguments": args_text(PARIS)},
            {"type": "function_call", "call_id": b, "name": "get_weather", "arguments": args_text(LONDON)},
            {"type": "function_call_output", "call_id": a, "output": RESULT_OK},
            {"type": "function_call_output", "call_id": b, "output": "Error: city not found"}],
            "tools": tools, "tool_choice": "auto", "parallel_tool_calls": True, "max_output_tokens": 256,
            "temperature": 0}
    if provider == "anthropic":
        return {"model": "m1", "max_tokens": 256, "system": SYSTEM, "messages": [
            {"role": "user", "content": [{"type": "text", "text": user}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Checking both cities."},
                                              {"type": "tool_use", "id": a, "name": "get_weather", "input": PARIS},
                                              {"type": "tool_use", "id": b, "name": "get_weather", "input": LONDON}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": a, "content": RESULT_OK},
                                         {"type": "tool_result", "tool_use_id": b, "content": "city not found",
                                          "is_error": True}]}],
            "tools": tools, "tool_choice": {"type": "auto"}, "temperature": 0}
    if provider == "gemini":
        return {"systemInstruction": {"parts": [{"text": SYSTEM}]}, "contents": [
            {"role": "user", "parts": [{"text": user}]},
            {"role": "model", "parts": [{"text": "Checking both cities."},
                                        {"functionCall": {"name": "get_weather", "args": PARIS}},
                                        {"functionCall": {"name": "get_weather", "args": LONDON}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": json.loads(RESULT_OK)}}},
                {"functionResponse": {"name": "get_weather", "response": {"error": "city not found"}}}]}],
            "tools": tools, "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
            "generationConfig": {"temperature": 0, "maxOutputTokens": 256}}
    return {"model": "m1", "messages": [
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": user},
        {"role": "assistant", "content": "Checking both cities.", "tool_calls": [
            {"function": {"name": "get_weather", "arguments": PARIS}},
            {"function": {"name": "get_weather", "arguments": LONDON}}]},
        {"role": "tool", "tool_name": "get_weather", "content": RESULT_OK},
        {"role": "tool", "tool_name": "get_weather", "content": "Error: city not found"}],
        "tools": tools, "stream": False, "options": {"temperature": 0, "num_predict": 256}}


def final_text(provider):
    if provider == "gemini":
        return 'Results: {"output":{"temp_c":18,"condition":"cloudy"}} | {"error":"city not found"}'
    if provider == "anthropic":
        return "Results: " + RESULT_OK + " | city not found"
    return "Results: " + RESULT_OK + " | Error: city not found"


def dialect_suite(fake, provider):
    # Turn 1: two calls in parallel.
    r1 = req("[parallel] Weather in Paris and London?", tool_choice="auto", parallel_tool_calls=True,
             params={"temperature": 0, "max_tokens": 256})
    rc, out, err, _, _ = complete(fake, provider, r1)
    check(provider + " turn 1 exit", rc == 0, err)
    pd = None
    if provider == "gemini":
        pd = {"gemini": {"parts": [{"text": "Checking both cities."},
                                   {"functionCall": {"name": "get_weather", "args": PARIS}},
                                   {"functionCall": {"name": "get_weather", "args": LONDON}}]}}
    check_eq(provider + " turn 1 response", out, response("Checking both cities.", calls_for(provider), "tool_calls", pd))
    body1 = fake.requests()
    want1 = expected_turn2(provider)
    # Turn 1's body is turn 2's minus the model's message and the results.
    want1 = copy.deepcopy(want1)
    if provider in ("openai", "ollama"):
        want1["messages"] = want1["messages"][:2]
    elif provider == "openai-responses":
        want1["input"] = want1["input"][:1]
    elif provider == "anthropic":
        want1["messages"] = want1["messages"][:1]
    else:
        want1["contents"] = want1["contents"][:1]
    check_eq(provider + " turn 1 body", [r["body"] for r in body1], [want1])
    if out is None:
        return
    # Turn 2: the history with both results, one of them an error.
    a, b = IDS[provider]
    r2 = copy.deepcopy(r1)
    r2["messages"] += [out["message"],
                       {"role": "tool", "tool_call_id": a, "name": "get_weather", "content": RESULT_OK},
                       {"role": "tool", "tool_call_id": b, "name": "get_weather", "content": "city not found",
                        "is_error": True}]
    rc, out2, err, _, _ = complete(fake, provider, r2)
    check(provider + " turn 2 exit", rc == 0, err)
    check_eq(provider + " turn 2 response", out2 and {k: v for k, v in out2.items() if k != "message"} | {
        "message": {k: v for k, v in out2["message"].items() if k != "provider_data"}},
        response(final_text(provider), None, "stop"))
    check_eq(provider + " turn 2 body", [r["body"] for r in fake.requests()], [expected_turn2(provider)])

    # Results out of order in the history are sent right after their calls.
    r3 = copy.deepcopy(r2)
    r3["messages"][2], r3["messages"][3] = r3["messages"][3], r3["messages"][2]
    rc, _, err, _, _ = complete(fake, provider, r3)
    check(provider + " reordered results exit", rc == 0, err)
    check_eq(provider + " reordered results body", [r["body"] for r in fake.requests()], [expected_turn2(provider)])

    # A call without a result is refused before any request.
    r4 = copy.deepcopy(r2)
    del r4["messages"][3]
    rc, _, err, _, _ = complete(fake, provider, r4)
    check(provider + " unanswered call exit 2", rc == 2, err)
    check(provider + " unanswered call message", "has no tool message" in err and IDS[provider][1] in err, err)
    check_eq(provider + " unanswered call sends nothing", fake.requests(), [])


def round_trip(fake, provider):
    """A single call whose thought signature / thinking / reasoning must be sent back."""
    r1 = req("[single] Weather in Paris?")
    rc, out, err, _, _ = complete(fake, provider, r1)
    check(provider + " single exit", rc == 0, err)
    fake.requests()
    if out is None:
        return
    call = out["message"]["tool_calls"][0]
    want_call = {"openai": "call_a1", "openai-responses": "call_r1", "anthropic": "toolu_01", "gemini": "call_1",
                 "ollama": "call_1"}[provider]
    check_eq(provider + " single call", call, {"id": want_call, "name": "get_weather", "arguments": PARIS})
    r2 = copy.deepcopy(r1)
    r2["messages"] += [out["message"], {"role": "tool", "tool_call_id": call["id"], "name": "get_weather",
                                        "content": RESULT_OK}]
    rc, out2, err, _, _ = complete(fake, provider, r2)
    check(provider + " round trip exit", rc == 0, err)
    body = fake.requests()[0]["body"]
    if provider == "openai":
        got = body["messages"][2]
        want = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a1", "type": "function", "function": {"name": "get_weather", "arguments": args_text(PARIS)}}]}
    elif provider == "openai-responses":
        got = body["input"][1:3]
        want = [{"type": "reasoning", "id": "rs_fake1", "summary": [], "encrypted_content": "enc-r1"},
                {"type": "function_call", "call_id": "call_r1", "name": "get_weather", "arguments": args_text(PARIS)}]
    elif provider == "anthropic":
        got = body["messages"][1]
        want = {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "The user wants the weather.", "signature": "sig-a1"},
            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": PARIS}]}
    elif provider == "gemini":
        got = body["contents"][1:]
        want = [{"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": PARIS},
                                             "thoughtSignature": "sig-g1"}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
                                                                 "response": {"output": json.loads(RESULT_OK)}}}]}]
    else:
        got = body["messages"][2]
        want = {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather",
                                                                                 "arguments": PARIS}}]}
    check_eq(provider + " round trip echoes the model's turn", got, want)


def choices(fake, provider):
    tools = [WEATHER_TOOL, TIME_TOOL]
    forms = [("required", "required"), ("none", "none"), ("named", {"name": "get_time"}), ("auto", "auto")]
    for label, choice in forms:
        r = req("Hello", tools=tools, tool_choice=choice)
        if label == "auto":
            r["parallel_tool_calls"] = False
        rc, out, err, _, _ = complete(fake, provider, r)
        bodies = [x["body"] for x in fake.requests()]
        name = "%s tool_choice %s" % (provider, label)
        if provider == "ollama" and label == "required":
            check(name + " refused", rc == 2 and "cannot force" in err and bodies == [], err)
            continue
        check(name + " exit", rc == 0 and len(bodies) == 1, err)
        if not bodies:
            continue
        body = bodies[0]
        if provider == "openai":
            want = {"required": "required", "none": "none",
                    "named": {"type": "function", "function": {"name": "get_time"}}, "auto": "auto"}[label]
            check_eq(name, body.get("tool_choice"), want)
            check_eq(name + " parallel", body.get("parallel_tool_calls"), False if label == "auto" else None)
        elif provider == "openai-responses":
            want = {"required": "required", "none": "none", "named": {"type": "function", "name": "get_time"},
                    "auto": "auto"}[label]
            check_eq(name, body.get("tool_choice"), want)
            check_eq(name + " parallel", body.get("parallel_tool_calls"), False if label == "auto" else None)
        elif provider == "anthropic":
            want = {"required": {"type": "any"}, "none": {"type": "none"}, "named": {"type": "tool", "name": "get_time"},
                    "auto": {"type": "auto", "disable_parallel_tool_use": True}}[label]
            check_eq(name, body.get("tool_choice"), want)
            check_eq(name + " tools", len(body.get("tools", [])), 2)
        elif provider == "gemini":
            want = {"required": {"mode": "ANY"}, "none": {"mode": "NONE"},
                    "named": {"mode": "ANY", "allowedFunctionNames": ["get_time"]}, "auto": {"mode": "AUTO"}}[label]
            check_eq(name, body.get("toolConfig"), {"functionCallingConfig": want})
        else:
            names = [t["function"]["name"] for t in body.get("tools", [])]
            want = {"none": [], "named": ["get_time"], "auto": ["get_weather", "get_time"]}[label]
            check_eq(name + " tools sent", names, want)
            check(name + " no tool_choice on the wire", "tool_choice" not in body)


def outcomes(fake, provider):
    rc, out, err, _, _ = complete(fake, provider, req("[length] Weather?"))
    check_eq(provider + " length", (rc, out and out["finish_reason"], out and out["message"]["content"]),
             (0, "length", "The weather in Par"))
    rc, out, err, _, _ = complete(fake, provider, req("[filter] Weather?"))
    check_eq(provider + " filter", (rc, out and out["finish_reason"]), (0, "content_filter" if provider != "ollama" else "stop"))
    rc, out, err, _, _ = complete(fake, provider, req("Hi"))
    check_eq(provider + " text", out, response("Hello from the fake %s provider." % {
        "openai-responses": "responses"}.get(provider, provider), None, "stop"))
    fake.requests()
    rc, out, err, _, _ = complete(fake, provider, req("[error400] Weather?"))
    check(provider + " 400 exit 3", rc == 3, err)
    check(provider + " 400 message", "HTTP 400: Invalid request: the fake provider rejects this request" in err, err)
    check_eq(provider + " 400 not retried", len(fake.requests()), 1)
    rc, out, err, took, _ = complete(fake, provider, req("[ratelimit] Weather?"))
    check_eq(provider + " 429 then ok", (rc, out and out["message"]["content"]), (0, "Served after the rate limit."))
    check(provider + " 429 honours Retry-After", took >= 0.95, "took %.2fs" % took)
    check_eq(provider + " 429 retried once", len(fake.requests()), 2)


def headers(fake, provider):
    rc, _, err, _, _ = complete(fake, provider, req("Hi"), extra=["--header", "X-Trace: abc123"])
    h = fake.requests()[0]["headers"]
    check(provider + " extra header", h.get("x-trace") == "abc123", str(h))
    if provider.startswith("openai"):
        check_eq(provider + " auth header", h.get("authorization"), "Bearer " + KEYS["OPENAI_API_KEY"])
    elif provider == "anthropic":
        check_eq(provider + " auth header", (h.get("x-api-key"), h.get("anthropic-version")),
                 (KEYS["ANTHROPIC_API_KEY"], "2023-06-01"))
    elif provider == "gemini":
        check_eq(provider + " auth header", h.get("x-goog-api-key"), KEYS["GEMINI_API_KEY"])
    else:
        check(provider + " no auth header", "authorization" not in h)


def group_dialect(fake, provider):
    dialect_suite(fake, provider)
    round_trip(fake, provider)
    choices(fake, provider)
    outcomes(fake, provider)
    headers(fake, provider)
    # The path each dialect posts to.
    complete(fake, provider, req("Hi"))
    path = fake.requests()[0]["path"]
    want = {"openai": "/v1/chat/completions", "openai-responses": "/v1/responses", "anthropic": "/v1/messages",
            "gemini": "/v1beta/models/m1:generateContent", "ollama": "/api/chat"}[provider]
    check_eq(provider + " path", path, want)


def group_transport(fake):
    p = "openai"
    rc, out, err, _, _ = complete(fake, p, req("[flaky] Hi"))
    check_eq("500 then ok", (rc, out and out["message"]["content"], len(fake.requests())), (0, "Served after a 500.", 2))
    rc, out, err, _, _ = complete(fake, p, req("[e500] Hi"), extra=["--retries", "1"])
    check_eq("500 always", (rc, len(fake.requests())), (3, 2))
    check("500 message", "HTTP 500 (after retries): The server had an error" in err, err)
    rc, out, err, took, _ = complete(fake, p, req("[ratelimit-ms] Hi"))
    check_eq("retry-after-ms wins over Retry-After", (rc, len(fake.requests())), (0, 2))
    check("retry-after-ms honoured", 0.55 <= took < 5, "took %.2fs" % took)
    rc, out, err, _, _ = complete(fake, p, req("[ratelimit-always] Hi"), extra=["--retries", "2"])
    check_eq("429 always", (rc, len(fake.requests())), (3, 3))
    check("429 message", "HTTP 429 (after retries): Rate limit reached" in err, err)
    rc, out, err, _, _ = complete(fake, p, req("[malformed] Hi"))
    check_eq("malformed body not retried", (rc, len(fake.requests())), (3, 1))
    check("malformed message", "not valid JSON" in err, err)
    rc, out, err, _, _ = complete(fake, p, req("[truncated] Hi"))
    check_eq("truncated body", (rc, len(fake.requests())), (3, 1))
    check("truncated message", "not valid JSON" in err, err)
    rc, out, err, _, _ = complete(fake, p, req("[cutoff] Hi"), extra=["--retries", "1"])
    check_eq("connection cut mid-body is retried", (rc, len(fake.requests())), (3, 2))
    check("cutoff message", "after 2 attempts" in err, err)
    rc, out, err, _, _ = complete(fake, p, req("[badshape] Hi"))
    check_eq("unexpected shape", rc, 3)
    check("unexpected shape message", "no choices[0].message" in err, err)
    rc, out, err, took, _ = complete(fake, p, req("[slow] Hi"), extra=["--timeout-ms", "300", "--retries", "0"])
    check_eq("slow answer times out", rc, 3)
    check("timeout message", "Timeout" in err or "timed out" in err, err)
    check("timeout is prompt", took < 2.5, "took %.2fs" % took)
    fake.requests()
    rc, out, err, _, _ = complete(fake, p, req("[slow] Hi"))
    check_eq("slow answer within the timeout", (rc, out and out["message"]["content"]), (0, "Slow but here."))
    rc, out, err, took, _ = complete(fake, p, req("[stall] Hi"), extra=["--timeout-ms", "700", "--retries", "0"])
    check_eq("stalled connection", rc, 3)
    check("stalled connection ends at the timeout", took < 3, "took %.2fs" % took)
    rc, out, err, took, _ = complete(fake, p, req("[slow] Hi"), extra=["--deadline-ms", "400", "--retries", "3"])
    check_eq("deadline", rc, 3)
    check("deadline bounds retries", took < 2.5, "took %.2fs" % took)
    fake.requests()
    rc, out, err, _, _ = complete(fake, p, req("[bigbody] Hi"), extra=["--max-response-bytes", "100000"])
    check_eq("body cap", rc, 2)
    check("body cap message", "limit of 100000 bytes" in err and "--max-response-bytes" in err, err)
    rc, out, err, _, _ = complete(fake, p, req("[bigbody] Hi"))
    check("big body under the default cap", rc == 0 and len(out["message"]["content"]) == 2 << 20, err)
    # Nothing listens on a closed port.
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    rc, out, err, _, _ = run(["complete", "--model", "openai:m1", "--base-url", "http://127.0.0.1:%d/v1" % closed,
                              "--no-cache", "--retries", "1"], request=req("Hi"), tmp=fake.tmp)
    check_eq("connection refused", rc, 3)
    check("connection refused message", "after 2 attempts" in err and "127.0.0.1" in err, err)
    fake.requests()
    # A request that is not normalized is refused before sending.
    rc, out, err, _, _ = complete(fake, p, {"messages": [{"role": "system", "content": "x"}]})
    check("bad request exit 2", rc == 2 and "messages[0].role" in err, err)
    rc, out, err, _, _ = complete(fake, p, req("Hi", tool_choice={"name": "nope"}))
    check("unknown named tool", rc == 2 and "'nope'" in err, err)
    check_eq("bad requests send nothing", fake.requests(), [])
    # Cost from the built-in table and from --prices.
    rc, out, err, _, _ = run(["complete", "--model", "openai:gpt-4o-mini", "--base-url", fake.base(p), "--no-cache"],
                             request=req("Hi"), tmp=fake.tmp)
    check("built-in price", rc == 0 and abs(out["cost_usd"] - (11 * 0.15 + 7 * 0.60) / 1e6) < 1e-15, str(out))
    prices = os.path.join(fake.tmp, "prices.json")
    with open(prices, "w") as f:
        json.dump({"openai:m1": {"input": 1, "output": 2}}, f)
    rc, out, err, _, _ = complete(fake, p, req("Hi"), extra=["--prices", prices])
    check("--prices", rc == 0 and abs(out["cost_usd"] - 25e-6) < 1e-15, str(out) + err)


def group_hygiene(fake):
    for provider, var in (("openai", "OPENAI_API_KEY"), ("openai-responses", "OPENAI_API_KEY"),
                          ("anthropic", "ANTHROPIC_API_KEY"), ("gemini", "GEMINI_API_KEY")):
        rc, out, err, _, _ = complete(fake, provider, req("Hi"), drop=[var])
        check(provider + " missing key exit 2", rc == 2, err)
        check(provider + " missing key names the variable", var in err, err)
        check_eq(provider + " missing key sends nothing", fake.requests(), [])
    rc, out, err, _, _ = complete(fake, "gemini", req("Hi"), drop=["GEMINI_API_KEY"],
                                  env_extra={"GOOGLE_API_KEY": "google-key-0123456789"})
    check("GOOGLE_API_KEY", rc == 0, err)
    check_eq("GOOGLE_API_KEY header", fake.requests()[0]["headers"].get("x-goog-api-key"), "google-key-0123456789")
    for provider in ("openai", "openai-responses", "anthropic", "gemini"):
        key = KEYS[{"anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY"}.get(provider, "OPENAI_API_KEY")]
        rc, out, err, _, stdout = complete(fake, provider, req("[echo-key] Hi"))
        check(provider + " echoed key exit 3", rc == 3, err)
        check(provider + " echoed key is redacted", key not in err + stdout and "[REDACTED]" in err, err)
    # A server that echoes keys in a successful answer: the key in use and every other key variable
    # forge knows are redacted from the output, the cassette and the cache, which only the user
    # may read.
    tape = os.path.join(fake.tmp, "echo.jsonl")
    for f in (tape,):
        if os.path.exists(f):
            os.remove(f)
    rc, out, err, _, stdout = run(["complete", "--model", "openai:m1", "--base-url", fake.base("openai"),
                                   "--record", tape], request=req("[echo-ok] other " + KEYS["ANTHROPIC_API_KEY"]),
                                  tmp=fake.tmp, env_extra={"OLLAMA_API_KEY": "olk-echo-0123456789"})
    check_eq("echo-ok answered", rc, 0)
    text = out and out["message"]["content"]
    check_eq("echoed keys redacted in the answer", text, "You sent [REDACTED] and: [echo-ok] other [REDACTED]")
    written = open(tape).read() if os.path.exists(tape) else ""
    check("echoed keys absent from the cassette", written and all(k not in written for k in KEYS.values()), written)
    cached = []
    for root, dirs, names in os.walk(os.path.join(fake.tmp, "xdg", "forge", "models")):
        for n in names:
            path = os.path.join(root, n)
            cached.append((path, open(path).read(), os.stat(path).st_mode & 0o777, os.stat(root).st_mode & 0o777))
    hit = [c for c in cached if "You sent" in c[1]]
    check_eq("echo-ok cached once", len(hit), 1)
    check("echoed keys absent from the cache", hit and all(k not in hit[0][1] for k in KEYS.values()), hit)
    check_eq("cache files are 0600 in 0700 folders", sorted({(c[2], c[3]) for c in cached}), [(0o600, 0o700)])
    # A header value given with --header is redacted too.
    rc, out, err, _, _ = complete(fake, "ollama", req("[echo-key] Hi"),
                                  extra=["--header", "Authorization: Bearer ollama-secret-99"])
    check("header secret redacted", rc == 3 and "ollama-secret-99" not in err and "[REDACTED]" in err, err)
    # Credentials in the base URL are redacted from messages.
    rc, out, err, _, _ = run(["complete", "--model", "ollama:m1", "--no-cache", "--retries", "0", "--base-url",
                              "http://bob:hunter2-password@127.0.0.1:9"], request=req("Hi"), tmp=fake.tmp)
    check("URL credentials redacted", rc == 3 and "hunter2-password" not in err and "[REDACTED]@127.0.0.1" in err, err)
    rc, out, err, _, _ = complete(fake, "openai", req("Hi"), env_extra={"OPENAI_API_KEY": "sk-abc\nX-Evil: 1"})
    check("key with a line break refused", rc == 2 and "control character" in err and "sk-abc" not in err, err)
    # OLLAMA_API_KEY is optional and sent as a bearer token.
    fake.requests()
    rc, out, err, _, _ = complete(fake, "ollama", req("Hi"), env_extra={"OLLAMA_API_KEY": "olk-0123456789"})
    check_eq("OLLAMA_API_KEY", fake.requests()[0]["headers"].get("authorization"), "Bearer olk-0123456789")
    # Bad specs and flags.
    for args, words in ((["--model", "nope:m"], "unknown provider 'nope'"), (["--model", "openai"], "PROVIDER:MODEL"),
                        (["--model", "openai:m", "--header", "novalue"], "--header"),
                        (["--model", "openai:m", "--retries", "x"], "--retries"),
                        (["--model", "openai:m", "--record", "a", "--replay", "b"], "cannot be used together")):
        rc, _, err, _, _ = run(["complete"] + args, request=req("Hi"), tmp=fake.tmp)
        check("usage error " + " ".join(args), rc == 2 and words in err, err)


def group_cache(fake):
    p = "openai"
    base = ["complete", "--model", "openai:m1", "--base-url", fake.base(p)]
    r = req("Hi")
    rc1, out1, err, _, _ = run(base, request=r, tmp=fake.tmp)
    rc2, out2, err2, _, _ = run(base, request=r, tmp=fake.tmp)
    check_eq("cache: first call answered by the server", (rc1, out1 and out1["cached"]), (0, False))
    check_eq("cache: second call served from the cache", (rc2, out2 and out2["cached"]), (0, True))
    check_eq("cache: same answer", out2 and dict(out2, cached=False), out1)
    check_eq("cache: one request sent", len(fake.requests()), 1)
    files = []
    for root, _, names in os.walk(os.path.join(fake.tmp, "xdg", "forge", "models")):
        files += [os.path.join(root, n) for n in names]
    check_eq("cache: one entry under XDG_CACHE_HOME/forge/models", len(files), 1)
    text = open(files[0]).read() if files else ""
    check("cache: no key in the entry", KEYS["OPENAI_API_KEY"] not in text and "Hello from the fake" in text, text)
    rc, out, err, _, _ = run(base + ["--no-cache"], request=r, tmp=fake.tmp)
    check_eq("--no-cache sends", (rc, out and out["cached"], len(fake.requests())), (0, False, 1))
    other = req("Hi", params={"temperature": 0.5})
    rc, out, err, _, _ = run(base, request=other, tmp=fake.tmp)
    check_eq("cache: other params are another entry", (rc, out and out["cached"], len(fake.requests())), (0, False, 1))
    rc, out, err, _, _ = run(["complete", "--model", "openai:m1", "--base-url", fake.base(p) + "/"], request=r, tmp=fake.tmp)
    check_eq("cache: the key ignores a trailing slash of the base URL", (rc, out and out["cached"]), (0, True))
    anth = ["complete", "--model", "anthropic:m1", "--base-url", fake.base("anthropic")]
    rc, out, err, _, _ = run(anth, request=r, tmp=fake.tmp)
    check_eq("cache: the provider is part of the key", (rc, out and out["cached"], len(fake.requests())), (0, False, 1))
    bad = req("[error400] Hi")
    run(base, request=bad, tmp=fake.tmp)
    rc, out, err, _, _ = run(base, request=bad, tmp=fake.tmp)
    check_eq("cache: errors are not cached", (rc, len(fake.requests())), (3, 2))
    cdir = os.path.join(fake.tmp, "mycache")
    run(base + ["--cache-dir", cdir], request=r, tmp=fake.tmp)
    check("--cache-dir", os.path.isdir(cdir) and len(os.listdir(cdir)) == 1)


def group_replay(fake):
    cas = os.path.join(fake.tmp, "cassette.jsonl")
    rec = ["complete", "--model", "anthropic:m1", "--base-url", fake.base("anthropic"), "--record", cas]
    r1 = req("[parallel] Weather in Paris and London?")
    rc, out1, err, _, _ = run(rec, request=r1, tmp=fake.tmp)
    check("record turn 1", rc == 0, err)
    r2 = copy.deepcopy(r1)
    r2["messages"] += [out1["message"], {"role": "tool", "tool_call_id": "toolu_01", "content": RESULT_OK},
                       {"role": "tool", "tool_call_id": "toolu_02", "content": "{}"}]
    # Recording appends within one run only: the second turn goes to a second file.
    cas2 = os.path.join(fake.tmp, "cassette2.jsonl")
    rc, out2, err, _, _ = run(rec[:-1] + [cas2], request=r2, tmp=fake.tmp)
    check("record turn 2", rc == 0, err)
    check_eq("recorded exchanges sent", len(fake.requests()), 2)
    lines = open(cas).read().splitlines() + open(cas2).read().splitlines()
    check_eq("cassette lines", len(lines), 2)
    check("cassette has no key", all(KEYS["ANTHROPIC_API_KEY"] not in l for l in lines))
    x = json.loads(lines[0])
    check_eq("cassette exchange fields", sorted(x), ["key", "model", "provider", "request", "response", "status"])
    check_eq("cassette request is the wire body", x["request"]["messages"][0]["content"][0]["text"], r1["messages"][0]["content"])
    with open(cas, "a") as f:
        f.write(lines[1] + "\n")
    # Replay: no key, and nothing listening.
    rep = ["complete", "--model", "anthropic:m1", "--base-url", "http://127.0.0.1:9/", "--replay", cas]
    rc, o1, err, _, _ = run(rep, request=r1, tmp=fake.tmp, drop=["ANTHROPIC_API_KEY"])
    check_eq("replay turn 1", (rc, o1), (0, out1))
    rc, o2, err, _, _ = run(rep, request=r2, tmp=fake.tmp, drop=["ANTHROPIC_API_KEY"])
    check_eq("replay turn 2", (rc, o2), (0, out2))
    rc, o3, err, _, _ = run(rep, request=req("Something else"), tmp=fake.tmp, drop=["ANTHROPIC_API_KEY"])
    check("replay miss exit 3", rc == 3 and "no recorded answer" in err, err)
    check_eq("replay sends nothing", fake.requests(), [])
    # Errors are recorded and replayed as errors.
    cas3 = os.path.join(fake.tmp, "cassette3.jsonl")
    rc, _, err, _, _ = run(rec[:-1] + [cas3], request=req("[error400] Hi"), tmp=fake.tmp)
    rc2, _, err2, _, _ = run(rep[:-1] + [cas3], request=req("[error400] Hi"), tmp=fake.tmp)
    check_eq("replayed error", (rc, rc2, err2 == err), (3, 3, True))
    bad = os.path.join(fake.tmp, "bad.jsonl")
    with open(bad, "w") as f:
        f.write('{"key": "x"}\n{oops\n')
    rc, _, err, _, _ = run(rep[:-1] + [bad], request=r1, tmp=fake.tmp)
    check("malformed cassette", rc == 2 and "bad.jsonl:1" in err, err)


def group_batch(fake):
    rc, _, err, _, stdout = run(["batch", "--model", "ollama:m1", "--base-url", fake.base("ollama"), "--no-cache",
                                 "-n", "20", "-j", "5"], request=req("Hi"), tmp=fake.tmp)
    check("batch exit", rc == 0, err)
    summary = json.loads(stdout) if stdout.strip() else {}
    check_eq("batch summary", {k: summary.get(k) for k in ("calls", "ok", "errors", "jobs")},
             {"calls": 20, "ok": 20, "errors": 0, "jobs": 5})
    check_eq("batch requests", len(fake.requests()), 20)
    rc, _, err, _, stdout = run(["batch", "--model", "ollama:m1", "--base-url", fake.base("ollama"), "--no-cache",
                                 "--retries", "0", "-n", "4", "-j", "2"], request=req("[e500] Hi"), tmp=fake.tmp)
    summary = json.loads(stdout) if stdout.strip() else {}
    check_eq("batch with failures", (rc, summary.get("ok"), summary.get("errors")), (3, 0, 4))
    check("batch reports the failures", err.count("HTTP 500 (after retries)") == 4, err)
    # On a terminal, batch shows a progress line on stderr.
    import pty
    master, slave = pty.openpty()
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(fake.tmp, "xdg"))
    path = os.path.join(fake.tmp, "tty-req.json")
    with open(path, "w") as f:
        json.dump(req("Hi"), f)
    p = subprocess.Popen([FORGE, "model", "batch", "--model", "ollama:m1", "--base-url", fake.base("ollama"),
                          "--no-cache", "-n", "6", "-j", "2", path], env=env, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    out, _ = p.communicate(timeout=60)
    screen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    os.close(master)
    text = screen.decode(errors="replace")
    check("progress line", p.returncode == 0 and "6/6  ok 6  failed 0" in text and "ETA" in text, text)
    check("no progress line without a terminal", "ETA" not in err, err)


def main():
    tmp = tempfile.mkdtemp(prefix="forge-providers-")
    fake = Fake(tmp)
    try:
        if GROUP in IDS:
            group_dialect(fake, GROUP)
        else:
            {"transport": group_transport, "hygiene": group_hygiene, "cache": group_cache,
             "replay": group_replay, "batch": group_batch}[GROUP](fake)
    finally:
        fake.stop()
    print("%d passed, %d failed" % (PASSED, FAILED))
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""MCP end to end.

usage: mcp_test.py FORGE_BIN GROUP
  protocol  forge mcp serve over stdio and Streamable HTTP, by hand: the handshake and version
            negotiation, tools/list with annotations and pagination, tools/call of every executor
            with verifiers (block, warn), the sandbox's limits, and hostile JSON-RPC (batches, bad
            ids, unknown methods, calls before initialize, huge messages); HTTP sessions, the
            protocol-version header, Origin, tokens (fail closed), DELETE, 64 concurrent sessions.
            forge's client against forge, and against servers that never answer, answer garbage,
            die mid-call, flood, or speak an unknown version: an error naming the server within
            the timeout, and no child left behind.
  sdk       the official TypeScript SDK as a client of forge mcp serve (stdio and HTTP): every tool
            of the demo listed and called; forge's client against the reference servers
            (server-everything over stdio and HTTP, server-filesystem on a temporary folder).
            Skipped (exit 77) without tests/npm/node_modules unless FORGE_REQUIRE_NPM=1.
  conformance  the official conformance suite (@modelcontextprotocol/conformance): its server
            scenarios against forge mcp serve, its client scenarios with forge's client; the
            scenarios that pass are exactly those listed (the others need resources, prompts,
            completions, sampling, elicitation, progress or OAuth, which forge does not serve).
Prints "N passed, N failed"; exits 1 when a check failed."""
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MCP = os.path.join(HERE, "mcp")
FORGE = sys.argv[1]
GROUP = sys.argv[2]
TOOLS = os.path.join(MCP, "tools.lua")
DEMO_TOOLS = os.path.join(ROOT, "scripts", "weather", "tools.lua")
NPM = os.path.join(ROOT, "tests", "npm", "node_modules")
WORK = tempfile.mkdtemp(prefix="forge-mcp-")
PASSED = FAILED = 0
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


def stdio_session(lines, tools=TOOLS, *extra):
    """Sends raw lines to forge mcp serve over stdio; returns the reply objects in order."""
    text = "\n".join(l if isinstance(l, str) else json.dumps(l) for l in lines) + "\n"
    p = subprocess.run([FORGE, "mcp", "serve", tools, *extra], input=text, capture_output=True, text=True, timeout=120)
    return p.returncode, [json.loads(l) for l in p.stdout.splitlines() if l.strip()], p.stderr


def req(i, method, params=None):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return m


def start_http(*args, env=None):
    pf = os.path.join(WORK, "port%d" % time.time_ns())
    p = subprocess.Popen([FORGE, "mcp", "serve", *args, "--listen", "127.0.0.1:0", "--port-file", pf],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env or os.environ)
    for _ in range(500):
        if os.path.exists(pf) and open(pf).read().strip():
            return p, int(open(pf).read())
        if p.poll() is not None:
            return p, None
        time.sleep(0.01)
    return p, None


def post(port, body, headers=None, method="POST"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers or {})
    c.request(method, "/mcp", body=json.dumps(body) if body is not None else None,
              headers={k: v for k, v in h.items() if v is not None})
    r = c.getresponse()
    text = r.read().decode()
    c.close()
    try:
        return r.status, json.loads(text) if text else None, r
    except ValueError:
        return r.status, text, r


def group_protocol():
    init = dict(INIT)
    code, out, err = stdio_session([
        req(1, "tools/list"),                                  # before initialize
        init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
        req(2, "ping"),
        req(3, "tools/list"),
        req(4, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
        req(5, "tools/call", {"name": "lookup", "arguments": {"key": "secret"}}),
        req(6, "tools/call", {"name": "lookup", "arguments": {"key": "stale"}}),
        req(7, "tools/call", {"name": "greet", "arguments": {"name": "Ada"}}),
        req(8, "tools/call", {"name": "explode"}),
        req(9, "tools/call", {"name": "add", "arguments": {"a": "two"}}),
        req(10, "tools/call", {"name": "nope"}),
        req(11, "tools/call", {"arguments": {}}),
        req(12, "nope/method"),
        [req(13, "ping")],
        {"id": 14, "method": "ping"},
        {"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        "{not json",
        req(15, "tools/call", {"name": "spin"}),
        req(16, "tools/call", {"name": "delete_account", "arguments": {"id": "u1"}}),
        req(17, "ping", [1, 2]),
        req(18, "tools/call", {"name": "typed", "arguments": {}}),
        req(19, "tools/call", {"name": "typed", "arguments": {"bad": True}}),
    ], TOOLS, "--lua-timeout", "300")
    by = {}
    for o in out:
        by.setdefault(json.dumps(o.get("id")), []).append(o)
    check("stdio: one reply per request, none for the notification", len(out) == 23, json.dumps(out)[:600])
    check("before initialize: -32600", out[0]["error"]["code"] == -32600 and "not initialized" in out[0]["error"]["message"],
          json.dumps(out[0]))
    check("initialize: the client's version, capabilities, serverInfo",
          out[1]["result"]["protocolVersion"] == "2025-06-18" and out[1]["result"]["capabilities"] == {"tools": {"listChanged": False}, "logging": {}}
          and out[1]["result"]["serverInfo"]["name"] == "forge", json.dumps(out[1]))
    check("ping", out[2] == {"jsonrpc": "2.0", "id": 2, "result": {}}, json.dumps(out[2]))
    tools = {t["name"]: t for t in out[3]["result"]["tools"]}
    check("tools/list: every tool, no cursor", sorted(tools) == ["add", "chatty", "delete_account", "explode", "greet", "lookup", "spin", "typed"]
          and "nextCursor" not in out[3]["result"], json.dumps(out[3])[:400])
    check("annotations: write + high + confirmation", tools["delete_account"].get("annotations") == {
        "readOnlyHint": False, "destructiveHint": True, "idempotentHint": False}, json.dumps(tools["delete_account"]))
    check("annotations: read", tools["lookup"].get("annotations") == {"readOnlyHint": True, "idempotentHint": True},
          json.dumps(tools["lookup"]))
    check("inputSchema", tools["add"]["inputSchema"]["required"] == ["a", "b"], json.dumps(tools["add"]))
    r = out[4]["result"]
    check("call: structuredContent and text", r["structuredContent"] == {"sum": 5} and r["isError"] is False and
          json.loads(r["content"][0]["text"]) == {"sum": 5}, json.dumps(r))
    r = out[5]["result"]
    check("a verifier blocks: isError with its message", r["isError"] is True and "structuredContent" not in r and
          r["content"] == [{"type": "text", "text": "Error: result blocked by verifier no_secrets: the result holds a secret"}],
          json.dumps(r))
    r = out[6]["result"]
    check("a verifier warns: an extra text block", r["isError"] is False and len(r["content"]) == 2 and
          r["content"][1]["text"] == "Warning from verifier no_secrets: the data is stale", json.dumps(r))
    check("a template's text (non-JSON output is wrapped as {result})",
          out[7]["result"]["structuredContent"] == {"result": "Hello, Ada!"}, json.dumps(out[7]))
    r = out[8]["result"]
    check("a tool that raises: isError", r["isError"] is True and "kaboom" in r["content"][0]["text"], json.dumps(r))
    r = out[9]["result"]
    check("arguments against the schema: isError", r["isError"] is True and "invalid arguments for tool 'add'" in
          r["content"][0]["text"], json.dumps(r))
    check("unknown tool: -32602", out[10]["error"]["code"] == -32602 and "unknown tool 'nope'" in out[10]["error"]["message"],
          json.dumps(out[10]))
    check("no tool name: -32602", out[11]["error"]["code"] == -32602, json.dumps(out[11]))
    check("unknown method: -32601", out[12]["error"]["code"] == -32601, json.dumps(out[12]))
    check("batch: -32600", out[13]["error"]["code"] == -32600 and "batches" in out[13]["error"]["message"] and
          out[13]["id"] is None, json.dumps(out[13]))
    check("no jsonrpc: -32600 with its id", out[14]["error"]["code"] == -32600 and out[14]["id"] == 14, json.dumps(out[14]))
    check("object id: -32600", out[15]["error"]["code"] == -32600 and out[15]["id"] is None, json.dumps(out[15]))
    check("fractional id: -32600", out[16]["error"]["code"] == -32600, json.dumps(out[16]))
    check("not JSON: -32700", out[17]["error"]["code"] == -32700, json.dumps(out[17]))
    r = out[18]["result"]
    check("a runaway tool is stopped by the sandbox", r["isError"] is True and "--lua-timeout" in r["content"][0]["text"],
          json.dumps(r))
    check("a mock", out[19]["result"]["structuredContent"] == {"deleted": True}, json.dumps(out[19]))
    check("params not an object: -32602", out[20]["error"]["code"] == -32602, json.dumps(out[20]))
    check("outputSchema listed", tools["typed"]["outputSchema"]["required"] == ["n"], json.dumps(tools["typed"]))
    check("a result that matches its output_schema", out[21]["result"]["structuredContent"] == {"n": 7}, json.dumps(out[21]))
    r = out[22]["result"]
    check("a result that breaks its output_schema: isError naming the place", r["isError"] is True and
          r["content"][0]["text"].startswith("Error: result of tool 'typed' does not match its output_schema:") and
          "at '/n'" in r["content"][0]["text"], json.dumps(r))
    # huge message, unknown protocol version offered, pagination
    code, out, err = stdio_session([dict(INIT, params=dict(INIT["params"], protocolVersion="1999-01-01")),
                                    req(2, "ping", {"pad": "x" * (2 << 20)})], TOOLS, "--max-message-mb", "1")
    check("an unknown version gets forge's newest", out[0]["result"]["protocolVersion"] == "2025-11-25", json.dumps(out[0]))
    check("a message over the limit: -32600 naming the flag", out[1]["error"]["code"] == -32600 and
          "--max-message-mb" in out[1]["error"]["message"], json.dumps(out[1])[:300])
    many = os.path.join(WORK, "many.json")
    with open(many, "w") as f:
        json.dump([{"name": "t%03d" % i, "description": "tool %d" % i, "mock": {"i": i}} for i in range(150)], f)
    code, out, err = stdio_session([INIT, req(2, "tools/list"), req(3, "tools/list", {"cursor": "100"}),
                                    req(4, "tools/list", {"cursor": "zz"})], many)
    check("pagination", len(out[1]["result"]["tools"]) == 100 and out[1]["result"]["nextCursor"] == "100" and
          len(out[2]["result"]["tools"]) == 50 and "nextCursor" not in out[2]["result"] and
          out[3]["error"]["code"] == -32602, json.dumps(out[1]["result"].get("nextCursor")))
    # forge's client against forge, stdio; and its listing of 150 tools over two pages
    p = subprocess.run([FORGE, "mcp", "list", "--json", "--", FORGE, "mcp", "serve", many], capture_output=True,
                       text=True, timeout=60)
    check("client: every page", p.returncode == 0 and len(json.loads(p.stdout)) == 150, p.stderr)
    p = subprocess.run([FORGE, "mcp", "call", "add", '{"a": 1, "b": 41}', "--", FORGE, "mcp", "serve", TOOLS],
                       capture_output=True, text=True, timeout=60)
    check("client: call over stdio", p.returncode == 0 and json.loads(p.stdout)["structuredContent"] == {"sum": 42}, p.stderr)
    p = subprocess.run([FORGE, "mcp", "call", "explode", "--", FORGE, "mcp", "serve", TOOLS], capture_output=True,
                       text=True, timeout=60)
    check("client: isError exits 1", p.returncode == 1 and json.loads(p.stdout)["isError"] is True, p.stderr)
    group_notes()
    group_http()
    group_bad_servers()
    group_runs()
    group_check()


def group_notes():
    # a tool's forge.log and forge.progress reach the client as notifications, before the reply
    call = lambda i, args, meta=None: req(i, "tools/call", dict({"name": "chatty", "arguments": args},
                                                                 **({"_meta": meta} if meta else {})))
    code, out, err = stdio_session([INIT, call(2, {}, {"progressToken": "t1"}), req(3, "logging/setLevel", {"level": "warning"}),
                                    call(4, {}), call(5, {}, {"progressToken": 7})])
    methods = [(m.get("method"), m.get("id")) for m in out]
    check("notes over stdio: in order, before their reply", methods == [
        (None, 1),
        ("notifications/message", None), ("notifications/message", None), ("notifications/message", None),
        ("notifications/message", None), ("notifications/progress", None), ("notifications/progress", None), (None, 2),
        (None, 3),
        ("notifications/message", None), ("notifications/message", None), (None, 4),
        ("notifications/message", None), ("notifications/message", None), ("notifications/progress", None),
        ("notifications/progress", None), (None, 5)], json.dumps(methods))
    if len(out) == 17:
        check("notes: log params", [m["params"] for m in out[1:5]] == [
            {"level": "debug", "logger": "chatty", "data": "d"}, {"level": "info", "logger": "chatty", "data": "i"},
            {"level": "warning", "logger": "chatty", "data": "w"}, {"level": "error", "logger": "chatty", "data": "e"}],
            json.dumps(out[1:5]))
        check("notes: progress params", [m["params"] for m in out[5:7]] == [
            {"progressToken": "t1", "progress": 1, "total": 2, "message": "half way"},
            {"progressToken": "t1", "progress": 2, "total": 2}], json.dumps(out[5:7]))
        check("notes: the level set filters", [m["params"]["level"] for m in out[9:11]] == ["warning", "error"],
              json.dumps(out[9:11]))
        check("notes: a numeric token", out[14]["params"]["progressToken"] == 7, json.dumps(out[14]))
    # hostile arguments: an error result naming the argument, nothing sent
    for bad, want in (("nan", "bad argument #1 to 'progress' (a finite number >= 0)"),
                      ("negative", "bad argument #1 to 'progress' (a finite number >= 0)"),
                      ("total", "bad argument #2 to 'progress' (a finite number > 0)"),
                      ("nul", "bad argument #3 to 'progress' (the message contains a NUL byte)"),
                      ("type", "bad argument #1 to 'progress' (number expected, got string)")):
        code, out, err = stdio_session([INIT, call(2, {"bad": bad}, {"progressToken": "t"})])
        r = out[-1].get("result", {})
        check(f"progress({bad}): an error result", len(out) == 2 and r.get("isError") is True and
              want in r["content"][0]["text"], json.dumps(out[-1]))
    code, out, err = stdio_session([INIT, call(2, {"bad": "flood"})])
    check("notes: at most 1000 a call", len(out) == 1002 and out[-1]["id"] == 2 and
          out[-2]["params"]["data"] == "1000", str(len(out)))
    code, out, err = stdio_session([INIT, call(2, {"bad": "long"})])
    check("notes: a long message cut at 8192 bytes on a character", len(out[1]["params"]["data"].encode()) == 8192 and
          out[1]["params"]["data"] == "é" * 4096, str(len(out[1]["params"]["data"])))
    # HTTP: the notifications and the reply as one event stream; a JSON-only client gets the reply alone
    srv, port = start_http(TOOLS)
    try:
        st, body, r = post(port, INIT)
        sid = r.getheader("Mcp-Session-Id")
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("POST", "/mcp", body=json.dumps(call(2, {}, {"progressToken": "h"})), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Mcp-Session-Id": sid})
        resp = c.getresponse()
        text = resp.read().decode()
        events = [json.loads(l[6:]) for l in text.splitlines() if l.startswith("data: ")]
        check("notes over HTTP: an event stream, the reply last",
              resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream" and len(events) == 7 and
              events[-1]["id"] == 2 and events[-1]["result"]["content"][0]["text"] == "done" and
              events[4]["params"]["progressToken"] == "h", text[:400])
        st, body, r = post(port, call(3, {}, {"progressToken": "h"}), {"Mcp-Session-Id": sid, "Accept": "application/json"})
        check("notes over HTTP: a JSON-only client gets the reply alone", st == 200 and body["id"] == 3, str(body)[:200])
    finally:
        srv.terminate()
        srv.wait()


def group_check():
    """forge mcp check on a sloppy server and on forge's own."""
    calls = os.path.join(WORK, "smoke.json")
    with open(calls, "w") as f:
        json.dump([{"tool": "promises", "arguments": {}}, {"tool": "promises", "arguments": {"mode": "none"}},
                   {"tool": "promises", "arguments": {"mode": "wrong"}}, {"tool": "nope"}], f)
    p = subprocess.run([FORGE, "mcp", "check", "--calls", calls, "--format", "json", "--", sys.executable,
                        os.path.join(MCP, "sloppy.py")], capture_output=True, text=True, timeout=60)
    rep = json.loads(p.stdout) if p.stdout.startswith("{") else {"checks": []}
    fails = [(c["check"], c["detail"]) for c in rep["checks"] if c["status"] == "fail"]
    warns = [(c["check"], c["detail"]) for c in rep["checks"] if c["status"] == "warn"]
    check("mcp check: exit 1 on a sloppy server", p.returncode == 1, p.stderr)
    want = [("tool bad name!", "the name is not 1 to 128 of A-Z a-z 0-9 _ - . (MCP 2025-11-25)"),
            ("tool twice", "the name is used by 2 tools"), ("tool twice", "the name is used by 2 tools"),
            ("tool mute", "no description: a model cannot tell when to use it"),
            ("tool contradiction", "annotations: readOnlyHint and destructiveHint are both true"),
            ("call 1 promises", "the tool declares an outputSchema but the result has no structuredContent"),
            ("call 3 nope", "no tool of that name")]
    check("mcp check: the failures, each named", all(w in fails for w in want) and len(fails) == len(want) + 2,
          json.dumps(fails, indent=0))
    check("mcp check: a schema that does not compile", any(c == "tool broken_schema" and d.startswith(
        "inputSchema does not compile") for c, d in fails), json.dumps(fails))
    check("mcp check: structuredContent against outputSchema", any(c == "call 2 promises" and d.startswith(
        "structuredContent does not match outputSchema") and "'/n'" in d for c, d in fails), json.dumps(fails))
    check("mcp check: a name the providers refuse is a warning", ("tool dotted.name", "the name has a '.' or more than "
          "64 characters: OpenAI and Anthropic refuse it") in warns, json.dumps(warns))
    p = subprocess.run([FORGE, "mcp", "check", "--format", "junit", "--", sys.executable, os.path.join(MCP, "sloppy.py")],
                       capture_output=True, text=True, timeout=60)
    import xml.etree.ElementTree as ET
    root = ET.fromstring(p.stdout)
    check("mcp check: JUnit", root.tag == "testsuite" and int(root.get("failures")) == 6 and
          len(root.findall("testcase/failure")) == 6, p.stdout[:300])
    calls2 = os.path.join(WORK, "smoke2.json")
    with open(calls2, "w") as f:
        json.dump([{"tool": "typed", "arguments": {}}, {"tool": "explode", "expect_error": True},
                   {"tool": "add", "arguments": {"a": 1, "b": 2}}], f)
    p = subprocess.run([FORGE, "mcp", "check", "--calls", calls2, "--", FORGE, "mcp", "serve", TOOLS],
                       capture_output=True, text=True, timeout=60)
    check("mcp check: forge's own server passes, with smoke calls", p.returncode == 0 and "0 checks failed" in p.stdout and
          "✓ call 0 typed                         structuredContent matches outputSchema" in p.stdout, p.stdout)


def group_runs():
    """MCP tools in runs: --mcp on forge run, forge.mcp in a suite (the example), stubs over them."""
    rules = os.path.join(WORK, "rules.lua")
    with open(rules, "w") as f:
        f.write('return { { match = "add (\\\\d+) and (\\\\d+)", calls = { { name = "add", arguments = { a = 1, b = 2 } } },'
                ' reply = "Sum: {{result.structuredContent.sum}}" } }\n')
    evals = os.path.join(WORK, "evals.json")
    with open(evals, "w") as f:
        json.dump([{"id": "m1", "input": {"message": "please add 1 and 2"},
                    "expect": {"toolsCalled": ["add"], "responseContains": ["Sum: 3"]}}], f)
    trans = os.path.join(WORK, "t.jsonl")
    p = subprocess.run([FORGE, "run", evals, "--model", "scripted:" + rules, "--mcp", f"calc={FORGE} mcp serve {TOOLS}",
                        "--save-transcripts", trans], capture_output=True, text=True, timeout=120)
    t = json.loads(open(trans).readline()) if os.path.exists(trans) else {}
    call = (t.get("turns") or [{}, {"tool_calls": [{}]}])[1]["tool_calls"][0]
    check("forge run --mcp: the case passes", p.returncode == 0, p.stdout + p.stderr)
    check("forge run --mcp: the trajectory names the server and keeps the MCP result", call.get("mcp_server") == "calc"
          and call.get("result") == {"content": [{"type": "text", "text": "{\n  \"sum\": 3\n}"}],
                                      "structuredContent": {"sum": 3}, "isError": False}, json.dumps(call))
    p = subprocess.run([FORGE, "run", evals, "--transcripts", trans, "--mcp", "x=y"], capture_output=True, text=True)
    check("--mcp outside a live run: exit 2", p.returncode == 2 and "only in live runs" in p.stderr, p.stderr)
    example = os.path.join(ROOT, "scripts", "mcp", "suite.lua")
    trans2 = os.path.join(WORK, "t2.jsonl")
    p = subprocess.run([FORGE, "script", example, "--allow-exec", "--save-transcripts", trans2], capture_output=True,
                       text=True, timeout=120)
    check("the example: 3 cases pass", p.returncode == 0 and "3/3 passed" in p.stdout, p.stdout + p.stderr)
    by = {json.loads(l)["trajectory_id"]: json.loads(l) for l in open(trans2)} if os.path.exists(trans2) else {}
    venus = by.get("mcp-venus", {"turns": [{}, {"tool_calls": [{}]}]})["turns"][1]["tool_calls"][0]
    check("the server's verifier blocks: the call's error says so", (venus.get("error") or "").startswith(
        "mcp weather: get_weather: Error: result blocked by verifier plausible_temperature"), json.dumps(venus))
    pinned = by.get("mcp-pinned", {"turns": [{}, {"tool_calls": [{}]}]})["turns"][1]["tool_calls"][0]
    check("a stub pins an MCP tool", pinned.get("result") == {"structuredContent": {"temp_c": -3, "condition": "snowy"}},
          json.dumps(pinned))
    p = subprocess.run([FORGE, "script", example], capture_output=True, text=True, timeout=60)
    check("forge.mcp with a command needs --allow-exec", p.returncode == 2 and
          "starting a server needs --allow-exec" in p.stderr, p.stderr)
    left = subprocess.run(["pgrep", "-f", "mcp/../weather/tools.lua"], capture_output=True, text=True).stdout
    check("no MCP server outlives its run", left.strip() == "", left)


def group_http():
    token = "mcp-test-token-0123"
    env = dict(os.environ, MCP_TEST_TOKEN=token)
    srv, port = start_http(TOOLS, "--token-env", "MCP_TEST_TOKEN", env=env)
    auth = {"Authorization": "Bearer " + token}
    try:
        st, body, r = post(port, INIT)
        check("HTTP: no token: 401 with WWW-Authenticate", st == 401 and r.getheader("WWW-Authenticate") == "Bearer", str(body))
        st, body, r = post(port, INIT, dict(auth, Authorization="Bearer wrong"))
        check("HTTP: wrong token: 401", st == 401, str(body))
        st, body, r = post(port, INIT, auth)
        sid = r.getheader("Mcp-Session-Id")
        check("HTTP: initialize gives a session", st == 200 and sid and len(sid) == 32 and
              body["result"]["protocolVersion"] == "2025-06-18", f"{st} {body}")
        h = dict(auth, **{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"})
        st, body, r = post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, h)
        check("HTTP: a notification: 202", st == 202, f"{st} {body}")
        st, body, r = post(port, req(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}), h)
        check("HTTP: call", st == 200 and body["result"]["structuredContent"] == {"sum": 3}, f"{st} {body}")
        st, body, r = post(port, req(3, "ping"), dict(auth))
        check("HTTP: no session id: 400", st == 400 and "Mcp-Session-Id" in body["error"]["message"], f"{st} {body}")
        st, body, r = post(port, req(3, "ping"), dict(auth, **{"Mcp-Session-Id": "f" * 32}))
        check("HTTP: unknown session: 404", st == 404, f"{st} {body}")
        st, body, r = post(port, req(3, "ping"), dict(h, **{"MCP-Protocol-Version": "2020-01-01"}))
        check("HTTP: unsupported protocol version header: 400", st == 400, f"{st} {body}")
        st, body, r = post(port, req(3, "ping"), dict(h, Origin="http://evil.example"))
        check("HTTP: another origin: 403", st == 403, f"{st} {body}")
        st, body, r = post(port, req(3, "ping"), dict(h, Origin="http://localhost:5173"))
        check("HTTP: a local origin is fine", st == 200, f"{st} {body}")
        st, body, r = post(port, req(3, "ping"), dict(h, Accept="text/html"))
        check("HTTP: not accepting JSON: 406", st == 406, f"{st} {body}")
        st, body, r = post(port, None, h, method="GET")
        check("HTTP: GET: 405", st == 405, f"{st} {body}")
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("POST", "/mcp", body="{oops", headers=dict(h, **{"Content-Type": "application/json"}))
        r = c.getresponse()
        body = json.loads(r.read())
        check("HTTP: not JSON: 400 with -32700", r.status == 400 and body["error"]["code"] == -32700, str(body))
        st, body, r = post(port, None, h, method="DELETE")
        check("HTTP: DELETE ends the session", st == 200, f"{st} {body}")
        st, body, r = post(port, req(4, "ping"), h)
        check("HTTP: the ended session: 404", st == 404, f"{st} {body}")
        # 64 concurrent sessions
        errors = []

        def session(k):
            try:
                st, b, r = post(port, INIT, auth)
                s = r.getheader("Mcp-Session-Id")
                hh = dict(auth, **{"Mcp-Session-Id": s})
                post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, hh)
                for j in range(5):
                    st, b, r = post(port, req(j + 2, "tools/call", {"name": "add", "arguments": {"a": k, "b": j}}), hh)
                    if st != 200 or b["result"]["structuredContent"] != {"sum": k + j}:
                        errors.append((k, j, st, b))
            except Exception as e:  # noqa: BLE001 (any failure is the test's finding)
                errors.append((k, repr(e)))
        ts = [threading.Thread(target=session, args=(k,)) for k in range(64)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        check("HTTP: 64 concurrent sessions, 320 calls, no error", not errors, str(errors[:3]))
        # forge's client over HTTP, with the token
        p = subprocess.run([FORGE, "mcp", "call", "greet", '{"name": "Bo"}', f"http://127.0.0.1:{port}/mcp",
                            "--token-env", "MCP_TEST_TOKEN"], capture_output=True, text=True, env=env, timeout=60)
        check("client: call over HTTP with a token", p.returncode == 0 and
              json.loads(p.stdout)["structuredContent"] == {"result": "Hello, Bo!"}, p.stderr + p.stdout)
        p = subprocess.run([FORGE, "mcp", "list", f"http://127.0.0.1:{port}/mcp"], capture_output=True, text=True,
                           timeout=60)
        check("client: no token: a clear error, exit 3", p.returncode == 3 and "HTTP 401" in p.stderr, p.stderr)
    finally:
        srv.terminate()
        srv.wait()
    # fail closed
    srv, port = start_http(TOOLS, "--token-env", "MCP_UNSET_VAR_X")
    check("a token variable that is not set: exit 2", port is None and srv.wait() == 2 and
          "MCP_UNSET_VAR_X" in srv.stderr.read(), "")
    srv, port = start_http(TOOLS, "--token-env", "MCP_UNSET_VAR_X", "--require-auth")
    try:
        st, body, r = post(port, INIT, {"Authorization": "Bearer anything"})
        check("--require-auth with no token: 401 for everyone", st == 401, f"{st} {body}")
    finally:
        srv.terminate()
        srv.wait()


def children_of(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def group_bad_servers():
    bad = os.path.join(MCP, "silent.py")
    cases = [("mute", ["list"], "no answer within 1000 ms"), ("garbage", ["list"], "not JSON-RPC"),
             ("die", ["call", "x"], "exited or closed its output"), ("oldver", ["list"], "protocol version 1999-01-01"),
             ("flood", ["call", "x"], "longer than")]
    for mode, cmd, want in cases:
        t0 = time.time()
        # the flood's 20 MB line takes the server a while to write on a loaded machine: its limit
        # is the line's length, which the call's timeout must not beat
        limit = "20000" if mode == "flood" else "1000"
        p = subprocess.run([FORGE, "mcp", *cmd, "--timeout-ms", limit, "--", sys.executable, bad, mode],
                           capture_output=True, text=True, timeout=60)
        check(f"bad server {mode}: a clear error, exit 3", p.returncode == 3 and want in p.stderr and
              "mcp " + sys.executable in p.stderr and time.time() - t0 < 30, p.stderr[-400:])
        if mode == "die":
            check("bad server die: its stderr in the message", "a line on stderr before dying" in p.stderr, p.stderr)
    # no child outlives the client
    before = subprocess.run(["pgrep", "-f", "silent.py mute"], capture_output=True, text=True).stdout
    check("no child left behind", before.strip() == "", before)


def group_sdk():
    if not os.path.isdir(os.path.join(NPM, "@modelcontextprotocol", "sdk")):
        msg = "the MCP SDK and reference servers are not installed in tests/npm/node_modules: run tests/npm/install.sh"
        if os.environ.get("FORGE_REQUIRE_NPM") == "1":
            print("FAIL " + msg)
            sys.exit(1)
        print("SKIPPED: " + msg)
        sys.exit(77)
    script = os.path.join(WORK, "sdk_client.mjs")
    os.symlink(NPM, os.path.join(WORK, "node_modules"))
    with open(os.path.join(MCP, "sdk_client.mjs")) as f, open(script, "w") as g:
        g.write(f.read())
    calls = os.path.join(WORK, "calls.json")
    with open(calls, "w") as f:
        json.dump([{"name": "get_weather", "arguments": {"city": "Paris"}},
                   {"name": "get_weather", "arguments": {"city": "Venus"}},
                   {"name": "get_forecast", "arguments": {"city": "Oslo", "days": 2}}], f)
    want_calls = [
        {"content": [{"type": "text", "text": json.dumps({"city": "Paris", "condition": "cloudy", "temp_c": 18}, indent=2)}],
         "structuredContent": {"city": "Paris", "condition": "cloudy", "temp_c": 18}, "isError": False},
        {"content": [{"type": "text", "text": "Error: result blocked by verifier plausible_temperature: implausible "
                                              "temperature 464°C"}], "isError": True},
        {"content": [{"type": "text", "text": json.dumps({"city": "Oslo", "days": [{"day": 1, "high_c": 15, "rain": False},
                                                                                    {"day": 2, "high_c": 16, "rain": True}]},
                                                        indent=2)}],
         "structuredContent": {"city": "Oslo", "days": [{"day": 1, "high_c": 15, "rain": False},
                                                        {"day": 2, "high_c": 16, "rain": True}]}, "isError": False}]
    for mode in ("stdio", "http"):
        srv = None
        if mode == "stdio":
            args = ["stdio", FORGE, DEMO_TOOLS, calls]
        else:
            srv, port = start_http(DEMO_TOOLS)
            args = ["http", f"http://127.0.0.1:{port}/mcp", calls]
        try:
            p = subprocess.run(["node", script, *args], capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, NODE_PATH=NPM))
            out = json.loads(p.stdout) if p.returncode == 0 else {}
            check(f"SDK client ({mode}): connects", p.returncode == 0 and out["server"]["name"] == "forge", p.stderr[-1500:])
            if out:
                check(f"SDK client ({mode}): lists the demo's tools", [t["name"] for t in out["tools"]] ==
                      ["get_weather", "get_forecast"] and out["tools"][0]["annotations"] ==
                      {"readOnlyHint": True, "idempotentHint": True}, json.dumps(out["tools"])[:400])
                got = [c["result"] for c in out["calls"]]
                check(f"SDK client ({mode}): calls", got == want_calls, json.dumps(got)[:800])
        finally:
            if srv:
                srv.terminate()
                srv.wait()
    everything = [os.path.join(NPM, ".bin", "mcp-server-everything")]
    p = subprocess.run([FORGE, "mcp", "call", "get-sum", '{"a": 2, "b": 40}', "--", *everything], capture_output=True,
                       text=True, timeout=120)
    r = json.loads(p.stdout) if p.returncode == 0 else {}
    check("forge client vs server-everything (stdio): get-sum", p.returncode == 0 and "42" in r["content"][0]["text"],
          p.stderr[-800:])
    p = subprocess.run([FORGE, "mcp", "call", "get-structured-content", '{"location": "New York"}', "--", *everything],
                       capture_output=True, text=True, timeout=120)
    r = json.loads(p.stdout) if p.returncode == 0 else {}
    check("server-everything: structuredContent", p.returncode == 0 and isinstance(r.get("structuredContent"), dict),
          p.stderr[-800:] + p.stdout[:300])
    port = 30000 + os.getpid() % 20000
    ev = subprocess.Popen([*everything, "streamableHttp"], env=dict(os.environ, PORT=str(port)),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # node takes a while to load the server on a busy machine: up to a minute, while it lives
        for _ in range(1200):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
                break
            except OSError:
                if ev.poll() is not None:
                    break
                time.sleep(0.05)
        p = subprocess.run([FORGE, "mcp", "call", "echo", '{"message": "over HTTP"}', f"http://127.0.0.1:{port}/mcp"],
                           capture_output=True, text=True, timeout=120)
        r = json.loads(p.stdout) if p.returncode == 0 else {}
        check("forge client vs server-everything (Streamable HTTP, SSE answers): echo", p.returncode == 0 and
              "over HTTP" in r["content"][0]["text"], p.stderr[-800:])
    finally:
        ev.terminate()
        ev.wait()
    folder = tempfile.mkdtemp(prefix="forge-mcp-fs-")
    with open(os.path.join(folder, "note.txt"), "w") as f:
        f.write("forge was here\n")
    fs = [os.path.join(NPM, ".bin", "mcp-server-filesystem"), folder]
    p = subprocess.run([FORGE, "mcp", "call", "read_text_file", json.dumps({"path": os.path.join(folder, "note.txt")}),
                        "--", *fs], capture_output=True, text=True, timeout=120)
    r = json.loads(p.stdout) if p.returncode == 0 else {}
    check("forge client vs server-filesystem: read_text_file", p.returncode == 0 and
          r["content"][0]["text"] == "forge was here\n", p.stderr[-800:] + p.stdout[:300])
    p = subprocess.run([FORGE, "mcp", "list", "--json", "--", *fs], capture_output=True, text=True, timeout=120)
    names = [t["name"] for t in json.loads(p.stdout)] if p.returncode == 0 else []
    check("server-filesystem: its tools", "list_directory" in names and "read_text_file" in names, p.stderr[-500:])


# Scenarios of @modelcontextprotocol/conformance forge passes; each other one needs what a
# tools-only server or forge's client does not do (docs/mcp.md, "Conformance").
SERVER_PASSES = {"server-initialize", "logging-set-level", "ping", "tools-list", "tools-call-simple-text",
                 "tools-call-image", "tools-call-audio", "tools-call-embedded-resource", "tools-call-mixed-content",
                 "tools-call-error", "tools-call-with-logging", "tools-call-with-progress",
                 "server-sse-multiple-streams", "dns-rebinding-protection"}
CLIENT_PASSES = {"initialize", "tools_call"}


def group_conformance():
    conf = os.path.join(NPM, ".bin", "conformance")
    if not os.path.exists(conf):
        msg = "the MCP conformance suite is not installed in tests/npm/node_modules: run tests/npm/install.sh"
        if os.environ.get("FORGE_REQUIRE_NPM") == "1":
            print("FAIL " + msg)
            sys.exit(1)
        print("SKIPPED: " + msg)
        sys.exit(77)
    import re
    srv, port = start_http(os.path.join(MCP, "conformance_tools.lua"))
    path = os.path.join(WORK, "server.out")
    try:
        with open(path, "w") as f:
            p = subprocess.run(["node", conf, "server", "--url", f"http://localhost:{port}/mcp"], stdout=f,
                               stderr=subprocess.PIPE, text=True, timeout=600)
    finally:
        srv.terminate()
        srv.wait()
    text = re.sub(r"\x1b\[[0-9;]*m", "", open(path).read() + p.stderr)
    results = {name: mark == "✓" for mark, name in re.findall(r"^([✓✗]) (\S+): \d+ passed", text, re.M)}
    passed = {k for k, v in results.items() if v}
    check("conformance: the server scenarios ran", len(results) >= 30, text[-1500:])
    check("conformance: the server passes exactly these scenarios", passed == SERVER_PASSES,
          f"unexpected passes {sorted(passed - SERVER_PASSES)}, unexpected failures {sorted(SERVER_PASSES - passed)}")
    print(f"conformance server: {len(passed)} of {len(results)} scenarios pass: {' '.join(sorted(passed))}")
    srv, port = start_http(os.path.join(MCP, "conformance_tools.lua"))
    try:
        p = subprocess.run(["node", conf, "server", "--url", f"http://localhost:{port}/mcp", "--scenario",
                            "json-schema-2020-12"], capture_output=True, text=True, timeout=120)
    finally:
        srv.terminate()
        srv.wait()
    check("conformance: json-schema-2020-12 (a pending scenario) passes", p.returncode == 0 and
          "Passed: 4/4, 0 failed" in re.sub(r"\x1b\[[0-9;]*m", "", p.stdout + p.stderr), p.stdout[-800:] + p.stderr[-800:])
    client = os.path.join(MCP, "conformance_client.sh")
    for sc in sorted(CLIENT_PASSES):
        # node may exit before a pipe is drained: the report goes to a file
        path = os.path.join(WORK, f"client-{sc}.out")
        with open(path, "w") as f:
            p = subprocess.run(["node", conf, "client", "--command", client, "--scenario", sc], stdout=f,
                               stderr=subprocess.PIPE, text=True, timeout=120, env=dict(os.environ, FORGE=os.path.abspath(FORGE)))
        # the report goes to stdout or stderr, depending on what they are
        out = re.sub(r"\x1b\[[0-9;]*m", "", open(path).read() + p.stderr)
        check(f"conformance: client scenario {sc}", p.returncode == 0 and "Passed: 1/1, 0 failed" in out,
              f"rc={p.returncode} " + out[-600:])

if GROUP == "protocol":
    group_protocol()
elif GROUP == "sdk":
    group_sdk()
elif GROUP == "conformance":
    group_conformance()
else:
    print("unknown group " + GROUP)
    sys.exit(2)
print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)

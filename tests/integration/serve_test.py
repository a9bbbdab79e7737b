#!/usr/bin/env python3
"""End-to-end tests of forge serve.

usage: serve_test.py FORGE_BIN GROUP
  sdk    small agents on the official SDKs (tests/npm: openai, @anthropic-ai/sdk, @google/genai)
         talk to forge serve in every dialect, streamed and not; the trajectories forge saved
         must equal what the agents did, and the scoring at the end must give the exact report.
         Skipped (exit 77) when tests/npm/node_modules is missing, unless FORGE_REQUIRE_NPM=1.
  http   the wire by hand: listings, auth (fail closed), provider-shaped errors for malformed
         JSON, wrong content type, unknown model, oversized body, bad histories; clients that
         disconnect mid-stream; 1,000 idle connections; concurrent sessions kept apart;
         recording a provider and replaying the cassette.
Prints "N passed, N failed" and exits 1 when a check failed."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import http.client

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SERVE = os.path.join(HERE, "serve")
FAKE = os.path.join(ROOT, "tests", "support", "fake_provider.py")
NPM = os.path.join(ROOT, "tests", "npm")
FORGE = sys.argv[1]
GROUP = sys.argv[2]
TOKEN = "forge-test-token-123"
PASSED = 0
FAILED = 0


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


class Server:
    def __init__(self, *args, env_token=True, expect_start=True):
        self.dir = tempfile.mkdtemp(prefix="forge-serve-")
        self.port_file = os.path.join(self.dir, "port")
        self.err_path = os.path.join(self.dir, "stderr")
        env = dict(os.environ)
        if env_token:
            env["FORGE_TEST_TOKEN"] = TOKEN
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen([FORGE, "serve", "--listen", "127.0.0.1:0", "--port-file", self.port_file, *args],
                                     stdout=subprocess.PIPE, stderr=self.err, env=env, text=True)
        self.port = None
        if not expect_start:
            return
        for _ in range(500):
            if os.path.exists(self.port_file):
                self.port = int(open(self.port_file).read())
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.01)
        if self.port is None:
            raise RuntimeError("forge serve did not start: " + open(self.err_path).read())

    def stop(self, sig=signal.SIGINT):
        if self.proc.poll() is None and self.port is not None:
            self.proc.send_signal(sig)
        out, _ = self.proc.communicate(timeout=60)
        self.err.close()
        return self.proc.returncode, out, open(self.err_path).read()

    def request(self, method, path, body=None, headers=None, raw=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        h = {"Content-Type": "application/json", "Authorization": "Bearer " + TOKEN}
        h.update(headers or {})
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        c.request(method, path, body=data, headers={k: v for k, v in h.items() if v is not None})
        r = c.getresponse()
        text = r.read().decode()
        c.close()
        try:
            return r.status, json.loads(text), r
        except ValueError:
            return r.status, text, r


def rules_args(*extra):
    return ["--model", "scripted:" + os.path.join(SERVE, "rules.lua"), *extra]


# ---------------------------------------------------------------- sdk

def trajectory_matches(rec, traj):
    """The agent's record and forge's trajectory tell the same conversation."""
    agent = [t for t in traj["turns"] if t["role"] == "agent"]
    if len(agent) != 1:
        return f"expected one agent turn, got {len(agent)}"
    calls = agent[0]["tool_calls"]
    got = [{"name": c["name"], "arguments": c["arguments"], "result": c["result"]} for c in calls]
    if got != rec["calls"]:
        return f"calls differ: forge {got} agent {rec['calls']}"
    if agent[0]["content"] != rec["final"]:
        return f"final text differs: forge {agent[0]['content']!r} agent {rec['final']!r}"
    rounds = max([c["round"] for c in calls], default=0) + 1
    if rounds != rec["rounds"]:
        return f"rounds differ: forge {rounds} agent {rec['rounds']}"
    if traj["metadata"]["requests"] != rec["rounds"]:
        return f"requests {traj['metadata']['requests']} for {rec['rounds']} rounds"
    if any(c["error"] is not None or "latency_ms" not in c for c in calls):
        return "a call has an error or no latency"
    return None


EXPECTED_FINAL = {
    "openai-chat": "It is 21°C and sunny in Paris.",
    "openai-chat-parallel": "Oslo: 21°C now; tomorrow up to 23°C.",
    "matched-by-message": "It is 21°C and sunny in Lisbon.",
    "openai-chat-fails": "Why did the cloud break up with the fog? It needed more space. ☁️",
}


def group_sdk():
    modules = os.path.join(NPM, "node_modules")
    if not os.path.isdir(os.path.join(modules, "openai")):
        msg = "the SDKs are not installed in tests/npm/node_modules: run tests/npm/install.sh"
        if os.environ.get("FORGE_REQUIRE_NPM") == "1":
            print("FAIL " + msg)
            sys.exit(1)
        print("SKIPPED: " + msg)
        sys.exit(77)
    sdks = os.environ.get("FORGE_SERVE_SDKS", "openai-chat openai-responses anthropic gemini ollama").split()
    work = tempfile.mkdtemp(prefix="forge-serve-sdk-")
    trans = os.path.join(work, "t.jsonl")
    report = os.path.join(work, "report.json")
    s = Server(*rules_args("--token-env", "FORGE_TEST_TOKEN", "--save-transcripts", trans,
                           "--evals", os.path.join(SERVE, "evals.json"), "--report", "json=" + report))
    out = os.path.join(work, "agents.json")
    env = dict(os.environ, FORGE_TEST_TOKEN=TOKEN, NODE_PATH=modules)
    # the agents script imports the SDKs from tests/npm/node_modules: run it from there
    script = os.path.join(work, "agents.mjs")
    with open(os.path.join(SERVE, "agents.mjs")) as f:
        text = f.read()
    os.symlink(modules, os.path.join(work, "node_modules"))
    with open(script, "w") as f:
        f.write(text)
    p = subprocess.run(["node", script, f"http://127.0.0.1:{s.port}", out, *sdks], capture_output=True, text=True,
                       env=env, timeout=300)
    check("agents ran", p.returncode == 0, p.stderr[-3000:])
    code, stdout, stderr = s.stop()
    if p.returncode != 0:
        print(stderr[-2000:])
        return
    records = json.load(open(out))
    trajs = {}
    for line in open(trans):
        t = json.loads(line)
        trajs[t["trajectory_id"]] = t
    check("one trajectory per conversation", sorted(trajs) == sorted(r["case"] for r in records),
          f"{sorted(trajs)} vs {sorted(r['case'] for r in records)}")
    for rec in records:
        t = trajs.get(rec["case"])
        why = trajectory_matches(rec, t) if t else "no trajectory"
        check(f"trajectory {rec['case']} ({rec['sdk']})", why is None, why or "")
        if rec["case"] in EXPECTED_FINAL:
            check(f"final {rec['case']}", rec["final"] == EXPECTED_FINAL[rec["case"]], rec["final"])
        if rec["case"].endswith("parallel") or rec["case"] in ("anthropic", "gemini", "ollama", "responses-stream",
                                                                "openai-chat-stream", "anthropic-stream"):
            if rec["calls"] and len(rec["calls"]) == 2:
                rounds = [c["round"] for c in t["turns"][1]["tool_calls"]] if t else []
                check(f"parallel calls in one round {rec['case']}", rounds == [1, 1], str(rounds))
    # scoring at the end: 4 cases in evals.json, one fails on purpose
    check("exit code 1 (a case failed on purpose)", code == 1, f"{code} {stderr[-2000:]}")
    rep = json.load(open(report))
    summ = rep["summary"]
    check("report counts", (summ["totalCases"], summ["passed"], summ["failed"], summ["errors"]) == (4, 3, 1, 0), str(summ))
    failed = [c["id"] for c in rep["cases"] if not c["passed"]]
    check("the failing case", failed == ["openai-chat-fails"], str(failed))
    check("stderr summary", f"{len(records)} conversations complete" in stderr, stderr[-500:])
    # the saved trajectories score the same later
    later = os.path.join(work, "later.json")
    p = subprocess.run([FORGE, "run", os.path.join(SERVE, "evals.json"), "--transcripts", trans, "--report",
                        "json=" + later], capture_output=True, text=True)
    rep2 = json.load(open(later))
    check("forge run --transcripts scores the saved file alike", p.returncode == 1 and
          [(c["id"], c["passed"]) for c in rep2["cases"]] == [(c["id"], c["passed"]) for c in rep["cases"]],
          p.stderr[-1000:])
    if "anthropic" in sdks:
        example(env, modules)


def example(env, modules):
    """scripts/serve: the TypeScript agent of docs/serve.md, scored by its evals."""
    ex = os.path.join(ROOT, "scripts", "serve")
    work = tempfile.mkdtemp(prefix="forge-serve-example-")
    os.symlink(modules, os.path.join(work, "node_modules"))
    with open(os.path.join(ex, "agent.mjs")) as f, open(os.path.join(work, "agent.mjs"), "w") as g:
        g.write(f.read())
    s = Server("--model", "scripted:" + os.path.join(ex, "rules.lua"), "--evals", os.path.join(ex, "evals.json"),
               "--max-sessions", "2")
    p = subprocess.run(["node", os.path.join(work, "agent.mjs")], capture_output=True, text=True, timeout=120,
                       env=dict(env, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{s.port}", ANTHROPIC_API_KEY="test"))
    check("example agent ran", p.returncode == 0 and p.stdout == (
        "What is the weather in Paris? -> It is 18°C and cloudy in Paris.\n"
        "Do I need an umbrella in Oslo? -> Now cloudy; tomorrow rain in Oslo.\n"), p.stdout + p.stderr[-2000:])
    code = s.proc.wait(timeout=60)
    out = s.proc.stdout.read()
    check("example: stops after 2 sessions, both cases pass", code == 0 and "2 passed" in out, f"{code} {out}")


# ---------------------------------------------------------------- http

def group_http():
    trans = os.path.join(tempfile.mkdtemp(prefix="forge-serve-http-"), "t.jsonl")
    s = Server(*rules_args("--token-env", "FORGE_TEST_TOKEN", "--max-body-mb", "1", "--save-transcripts", trans))
    chat = {"model": "m", "messages": [{"role": "user", "content": "Tell me a joke"}]}
    st, body, _ = s.request("GET", "/health", headers={"Authorization": None})
    check("health is open", st == 200 and body == {"status": "ok"}, f"{st} {body}")
    st, body, _ = s.request("GET", "/v1/models")
    check("models list", st == 200 and body == {"data": [{"id": "scripted", "object": "model", "created": 0,
                                                          "owned_by": "forge"}], "object": "list"}, f"{st} {body}")
    # auth fails closed, in each provider's error shape
    st, body, _ = s.request("POST", "/v1/chat/completions", chat, headers={"Authorization": None})
    check("no token: 401", st == 401 and body["error"]["code"] == "invalid_api_key", f"{st} {body}")
    st, body, _ = s.request("POST", "/v1/chat/completions", chat, headers={"Authorization": "Bearer " + TOKEN + "x"})
    check("wrong token: 401", st == 401, f"{st} {body}")
    st, body, _ = s.request("POST", "/v1/chat/completions", chat, headers={"Authorization": "Basic " + TOKEN})
    check("another scheme: 401", st == 401, f"{st} {body}")
    st, body, _ = s.request("POST", "/v1/chat/completions", chat, headers={"Authorization": None, "x-api-key": TOKEN})
    check("x-api-key accepted", st == 200, f"{st} {body}")
    st, body, _ = s.request("GET", "/v1/models", headers={"Authorization": None})
    check("listing needs the token", st == 401, f"{st} {body}")
    st, body, _ = s.request("POST", "/v1/messages", {"model": "m"}, headers={"Authorization": None})
    check("anthropic-shaped 401", st == 401 and body.get("type") == "error" and
          body["error"]["type"] == "authentication_error", f"{st} {body}")
    st, body, _ = s.request("POST", "/v1beta/models/m:generateContent", {}, headers={"Authorization": None})
    check("gemini-shaped 401", st == 401 and body.get("error", {}).get("status") == "UNAUTHENTICATED", f"{st} {body}")
    st, body, _ = s.request("POST", "/api/chat", {}, headers={"Authorization": None})
    check("ollama-shaped 401", st == 401 and isinstance(body.get("error"), str), f"{st} {body}")
    # malformed input
    st, body, _ = s.request("POST", "/v1/chat/completions", raw=b'{"model": "m", "messages": [}')
    check("malformed JSON: 400 naming the place", st == 400 and "request body:1:" in body["error"]["message"] and
          body["error"]["type"] == "invalid_request_error", f"{st} {body}")
    st, body, _ = s.request("POST", "/v1/chat/completions", chat, headers={"Content-Type": "text/plain"})
    check("wrong content type: 400", st == 400 and "Content-Type" in body["error"]["message"], f"{st} {body}")
    st, body, _ = s.request("POST", "/v1/chat/completions", {"model": "m", "messages": "hi"})
    check("bad messages: 400", st == 400 and body["error"]["message"] == "messages: must be an array", f"{st} {body}")
    st, body, _ = s.request("POST", "/v1/chat/completions", {"model": "m", "messages": [
        {"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "zz", "content": "r"}]})
    check("a result without its call: 400", st == 400 and "answers no earlier call" in body["error"]["message"],
          f"{st} {body}")
    st, body, _ = s.request("POST", "/v1/chat/completions", {"messages": [{"role": "user", "content": "x"}]})
    check("no model: 400", st == 400 and body["error"]["message"] == "model: required", f"{st} {body}")
    big = {"model": "m", "messages": [{"role": "user", "content": "x" * (2 << 20)}]}
    st, body, _ = s.request("POST", "/v1/chat/completions", big)
    check("oversized body: 413 naming the flag", st == 413 and "--max-body-mb" in body["error"]["message"],
          f"{st} {str(body)[:300]}")
    st, body, _ = s.request("POST", "/v1/nothing", chat)
    check("unknown path: 404", st == 404, f"{st} {body}")
    st, body, _ = s.request("GET", "/v1/chat/completions")
    check("GET on a POST endpoint: 404", st == 404, f"{st} {body}")
    # a client that goes away mid-stream, and 1,000 idle connections: the server keeps serving
    for _ in range(20):
        c = socket.create_connection(("127.0.0.1", s.port))
        data = json.dumps(dict(chat, stream=True)).encode()
        c.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Authorization: Bearer " + TOKEN.encode() + b"\r\nContent-Length: " + str(len(data)).encode() +
                  b"\r\n\r\n" + data)
        c.recv(10)
        c.close()
    idle = []
    for _ in range(1000):
        idle.append(socket.create_connection(("127.0.0.1", s.port)))
    st, body, _ = s.request("POST", "/v1/chat/completions", chat)
    check("serving beside 1,000 idle connections", st == 200 and
          body["choices"][0]["message"]["content"].startswith("Why did the cloud"), f"{st} {body}")
    for c in idle:
        c.close()
    # concurrent sessions of one case, told apart by X-Forge-Session
    results = {}

    def converse(tag):
        msgs = [{"role": "user", "content": "What is the weather in Rome?"}]
        h = {"X-Forge-Case": "rome", "X-Forge-Session": tag}
        st1, b1, _ = s.request("POST", "/v1/chat/completions", {"model": "m", "messages": msgs}, headers=h)
        call = b1["choices"][0]["message"]["tool_calls"][0]
        msgs += [{"role": "assistant", "content": None, "tool_calls": [call]},
                 {"role": "tool", "tool_call_id": call["id"], "content": json.dumps({"temp_c": int(tag), "condition": "fog"})}]
        st2, b2, _ = s.request("POST", "/v1/chat/completions", {"model": "m", "messages": msgs}, headers=h)
        results[tag] = (st1, st2, b2["choices"][0]["message"]["content"])

    threads = [threading.Thread(target=converse, args=(str(10 + i),)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("16 concurrent sessions answered", all(r[:2] == (200, 200) for r in results.values()) and
          all(results[str(10 + i)][2] == f"It is {10 + i}°C and fog in Rome." for i in range(16)), str(results))
    code, _, err = s.stop(signal.SIGTERM)
    check("SIGTERM stops with 0", code == 0, err[-500:])
    rome = [json.loads(line) for line in open(trans) if '"rome"' in line]
    by_tag = {t["metadata"]["session"]: t for t in rome}
    check("16 trajectories of one case, one per session", len(rome) == 16 and sorted(by_tag) ==
          sorted(str(10 + i) for i in range(16)), str(sorted(by_tag)))
    check("no session mixed with another", all(
        t["turns"][1]["tool_calls"][0]["result"] == {"temp_c": int(tag), "condition": "fog"} and
        t["turns"][1]["content"] == f"It is {tag}°C and fog in Rome." and t["metadata"]["requests"] == 2
        for tag, t in by_tag.items()), json.dumps(rome)[:1500])
    check("refusals are reported", "401 missing or wrong API key" in err and "413 the request body" in err, err[-1500:])
    check("stop summary", "17 conversations complete" in err, err[-300:])

    # token asked for but not set: refuse to start (fail closed)
    s2 = Server(*rules_args("--token-env", "FORGE_NO_SUCH_VAR_X"), env_token=False, expect_start=False)
    code, _, err = s2.stop()
    check("unset token variable: exit 2", code == 2 and "FORGE_NO_SUCH_VAR_X" in err, f"{code} {err}")
    # named models: an unknown one is a provider-shaped 404
    s3 = Server("--model", "alpha=scripted:" + os.path.join(SERVE, "rules.lua"),
                "--model", "beta=scripted:" + os.path.join(SERVE, "rules.lua"))
    st, body, _ = s3.request("POST", "/v1/chat/completions", dict(chat, model="gamma"))
    check("unknown model: 404", st == 404 and body["error"]["code"] == "model_not_found" and
          "'gamma'" in body["error"]["message"], f"{st} {body}")
    st, body, _ = s3.request("POST", "/v1/chat/completions", dict(chat, model="beta"))
    check("a named model answers", st == 200 and body["model"] == "beta", f"{st} {body}")
    st, body, _ = s3.request("GET", "/v1/models")
    check("named models listed", [m["id"] for m in body["data"]] == ["alpha", "beta"], str(body))
    s3.stop()
    group_record_replay()


def group_record_replay():
    """forge serve as a recording proxy in front of a provider, then the cassette replayed."""
    work = tempfile.mkdtemp(prefix="forge-serve-rec-")
    pf = os.path.join(work, "fake.port")
    fake = subprocess.Popen([sys.executable, FAKE, "--port-file", pf, "--log", os.path.join(work, "fake.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(pf) and open(pf).read().strip():
            break
        time.sleep(0.01)
    base = f"http://127.0.0.1:{int(open(pf).read())}/v1"
    cassette = os.path.join(work, "c.jsonl")
    env_key = {"OPENAI_API_KEY": "sk-test-openai-0123456789"}
    os.environ.update(env_key)
    req = {"model": "client-name", "messages": [{"role": "user", "content": "[parallel] weather?"}],
           "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]}
    s = Server("--model", "openai:gpt-rec", "--base-url", base, "--record", cassette, "--no-cache")
    st, live, _ = s.request("POST", "/v1/chat/completions", req)
    check("proxy answers", st == 200 and len(live["choices"][0]["message"]["tool_calls"]) == 2, f"{st} {live}")
    s.stop()
    fake.terminate()
    fake.wait()
    lines = open(cassette).read().splitlines()
    check("one exchange recorded, no key", len(lines) == 1 and "sk-test" not in lines[0], str(lines)[:300])
    r = Server("--replay", cassette)
    st, replayed, _ = r.request("POST", "/v1/chat/completions", req)
    check("replay answers as recorded", st == 200 and replayed["choices"] == live["choices"],
          f"{st} {replayed} vs {live}")
    st, miss, _ = r.request("POST", "/v1/chat/completions", dict(req, messages=[{"role": "user", "content": "new"}]))
    check("a request the cassette lacks: 400 saying so", st == 400 and "no recorded answer for this request" in miss["error"]["message"],
          f"{st} {miss}")
    code, _, err = r.stop()
    check("replay miss reported", "400" in err and code == 0, err[-500:])


if GROUP == "sdk":
    group_sdk()
elif GROUP == "http":
    group_http()
else:
    print("unknown group " + GROUP)
    sys.exit(2)
print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)

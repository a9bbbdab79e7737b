#!/usr/bin/env python3
"""End-to-end tests of the agent service (forge serve --agent).

usage: service_test.py FORGE_BIN GROUP
  api    the sidecar API on SQLite with --auth none: chat-sync, chat over SSE (read by curl -N,
         a real SSE client, and by http.client), tools, agents, conversations, preferences,
         health, /agent-api/v1 aliases; human approval (409 + resume token; approved call
         executed once, declined told to the model, 410 for unknown/used/expired, 64 concurrent
         resumes of one token: exactly one wins); the audit trail; hostile clients (oversized
         and malformed bodies, unknown agents and keys, wrong methods, disconnects mid-stream,
         deadlines, busy conversations, a locked database) and limits (rate, history).
  auth   the user tier with JWTs minted by the openssl command line: HS256 and RS256 accepted;
         alg none, HS/RS confusion, wrong key, tampered, expired, not yet valid, no exp, wrong
         claim: 401 and logged without the token; own conversations only (403); trust mode;
         the admin tier (503 without a token, 401 wrong, constant-time compare).
  provider  an agent on a provider model (tests/support/fake_provider.py, OpenAI dialect): a client
         that disconnects while the model is thinking cancels the model's HTTP request in flight
         (the provider sees the connection closed within seconds, the audit row says
         disconnected); the request deadline cancels it the same way (504, audit timeout).
         With --stream, in each of the five dialects, the answer's text goes out as text_delta
         events piece by piece as the provider sends it (read by curl -N as they arrive), then
         text with the whole; a stream that stalls has its first pieces delivered, and is
         cancelled when the client leaves.
  hitl   the user's hitlLevel preference: it sets the approval level of an agent with
         allow_user_hitl = true (paranoid pauses a harmless call, autonomous runs one that needs
         confirmation, none: the agent's level) and of every agent with --allow-user-hitl, and of
         no other; unknown levels are 400; a non-boolean allow_user_hitl is exit 2.
  pg     two forge processes on one PostgreSQL (Debian's, started on a temporary data
         directory on 127.0.0.1; skipped with the install command where it is absent): a
         pause taken on one is resumed on the other, concurrent resumes across both (one
         wins), shared conversations, preferences and audit; the database going away (503).
Prints "N passed, N failed" and exits 1 when a check failed."""
import base64
import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import http.client

HERE = os.path.dirname(os.path.abspath(__file__))
AGENTS = os.path.join(HERE, "service", "agents.lua")
REMOTE = os.path.join(HERE, "service", "remote.lua")
HITL = os.path.join(HERE, "service", "hitl.lua")
FAKE = os.path.join(HERE, "..", "support", "fake_provider.py")
FORGE = sys.argv[1]
GROUP = sys.argv[2]
PASSED = 0
FAILED = 0
ADMIN = "admin-token-0123456789abcdef"


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


class Server:
    def __init__(self, *args, env=None, store=None, expect_start=True, agents=AGENTS):
        self.dir = tempfile.mkdtemp(prefix="forge-service-")
        self.port_file = os.path.join(self.dir, "port")
        self.err_path = os.path.join(self.dir, "stderr")
        self.store = store or os.path.join(self.dir, "service.db")
        e = dict(os.environ)
        e["FORGE_ADMIN"] = ADMIN
        e.update(env or {})
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen([FORGE, "serve", "--agent", agents, "--listen", "127.0.0.1:0",
                                      "--port-file", self.port_file, "--store", self.store, *args],
                                     stdout=subprocess.PIPE, stderr=self.err, env=e, text=True)
        self.port = None
        if not expect_start:
            return
        for _ in range(1000):
            if os.path.exists(self.port_file):
                self.port = int(open(self.port_file).read())
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.01)
        if self.port is None:
            raise RuntimeError("forge serve --agent did not start: " + open(self.err_path).read())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=60)
        self.err.close()
        err = open(self.err_path).read()
        shutil.rmtree(self.dir, ignore_errors=True)
        return self.proc.returncode, err

    def request(self, method, path, body=None, headers=None, raw=None, token=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        h = {"Content-Type": "application/json"}
        if token:
            h["Authorization"] = "Bearer " + token
        h.update(headers or {})
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        text = r.read().decode()
        c.close()
        try:
            j = json.loads(text)
        except ValueError:
            j = None
        return r.status, j, text, r

    def admin(self, path):
        return self.request("GET", path, headers={"Authorization": "Bearer " + ADMIN})


def sse_events(text):
    """Parses an SSE body into [(event, data)], skipping comments."""
    out = []
    for block in text.split("\n\n"):
        ev, data = None, None
        for line in block.split("\n"):
            if line.startswith("event: "):
                ev = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        if ev:
            out.append((ev, data))
    return out


def curl_sse(port, path, body, token=None):
    cmd = ["curl", "-sS", "-N", "-X", "POST", f"http://127.0.0.1:{port}{path}", "-H", "Content-Type: application/json",
           "-H", "Accept: text/event-stream", "-d", json.dumps(body)]
    if token:
        cmd += ["-H", "Authorization: Bearer " + token]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout


def api():
    s = Server("--auth", "none", "--admin-token-env", "FORGE_ADMIN", "--history-limit", "12",
               "--request-timeout-ms", "2500", "--max-body-mb", "1", "--hitl-ttl", "2")
    try:
        st, j, _, _ = s.request("GET", "/health")
        check("health", st == 200 and j == {"status": "ok"}, str(j))
        # chat-sync
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Paris"})
        check("chat-sync 200", st == 200, str(j))
        check("chat-sync answer", j["message"] == "It is 18°C in Paris." and j["agentId"] == "weather"
              and j["stopReason"] == "final", str(j))
        check("chat-sync tool calls", j["toolCalls"] == [{"id": "call_1_1", "name": "get_weather",
              "args": {"city": "Paris"}, "result": {"city": "Paris", "temp_c": 18, "condition": "cloudy"},
              "error": None}], str(j["toolCalls"]))
        check("chat-sync ids", len(j["conversationId"]) == 32 and j["sessionId"] == j["conversationId"], str(j))
        sid = j["sessionId"]
        # the same conversation goes on; history kept
        st, j, _, _ = s.request("POST", "/agent-api/v1/chat-sync", {"message": "what did I say", "sessionId": sid})
        check("v1 alias and second turn", st == 200 and j["message"] == "turn 2 of 2 user messages", str(j))
        st, j, _, _ = s.request("GET", "/agent-api/conversations/" + sid)
        check("conversation history", st == 200 and [m["role"] for m in j["messages"]] ==
              ["user", "assistant", "tool", "assistant", "user", "assistant"], str(j))
        # verifier warn and block
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Mars"})
        check("verifier warn", j["warnings"] == [{"tool": "get_weather", "message": "very cold", "verifier": "cold"}]
              and j["flags"] == [], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Venus"})
        check("verifier block is the tool's error", j["toolCalls"][0]["error"] ==
              "result blocked by verifier cold: implausible temperature" and j["flags"] == [j["toolCalls"][0]["error"]],
              str(j))
        # SSE with curl -N
        rc, out = curl_sse(s.port, "/agent-api/chat", {"message": "weather in Mars"})
        ev = sse_events(out)
        check("sse event order", [e for e, _ in ev] == ["session", "tool_call", "tool_result", "tool_warning",
                                                         "text_delta", "text", "done"], out)
        check("sse data carries type", all(d["type"] == e for e, d in ev), out)
        check("sse tool_call", ev[1][1] == {"id": "call_1_1", "tool": "get_weather", "args": {"city": "Mars"},
                                            "type": "tool_call"}, str(ev[1]))
        check("sse done", ev[-1][1]["usage"] == {"inputTokens": 0, "outputTokens": 0}
              and ev[-1][1]["conversationId"] == ev[0][1]["sessionId"], str(ev[-1]))
        st, _, text, r = s.request("POST", "/agent-api/chat", {"message": "hello", "agentId": "weather"})
        check("sse content type", r.getheader("Content-Type") == "text/event-stream"
              and r.getheader("Cache-Control") == "no-cache", str(r.getheaders()))
        check("sse hello", [e for e, _ in sse_events(text)] == ["session", "text_delta", "text", "done"], text)
        # tools and agents
        st, j, _, _ = s.request("GET", "/agent-api/tools")
        check("tools", st == 200 and [t["name"] for t in j["tools"]] == ["get_weather", "send_email"]
              and j["tools"][1]["requiresApproval"] is True and j["tools"][0]["requiresApproval"] is False
              and j["tools"][0]["schema"]["required"] == ["city"], str(j))
        st, j, _, _ = s.request("GET", "/agent-api/tools?agent=slow")
        check("tools of an agent", [t["name"] for t in j["tools"]] == ["slow"], str(j))
        st, j, _, _ = s.request("GET", "/agent-api/tools?agent=nope")
        check("tools of an unknown agent", st == 404 and "unknown agent 'nope'" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("GET", "/agent-api/agents")
        check("agents", j == {"agents": [{"id": "weather", "description": "weather and e-mail", "default": True},
                                         {"id": "slow", "default": False}, {"id": "hooked", "default": False}]}, str(j))
        # hooks
        H = {"agentId": "hooked"}
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "say forbidden things", **H})
        check("on_request refuses", st == 403 and j["error"]["message"] ==
              "refused by the agent's on_request hook: no forbidden words", str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "shout hello", **H})
        check("on_request rewrites", st == 200 and j["message"] == "echo: HELLO", str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "boom", **H})
        check("on_request error fails closed", st == 500 and "on_request hook failed" in j["error"]["message"]
              and "hook exploded" in j["error"]["message"], str(j))
        t0 = time.time()
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "loop", **H})
        check("on_request runaway stopped by the limits", st == 500 and ("--lua-instructions" in j["error"]["message"]
              or "--lua-timeout" in j["error"]["message"]) and time.time() - t0 < 10, str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Atlantis", **H})
        check("on_tool_call refuses", st == 200 and j["toolCalls"][0]["error"] == "call refused by on_tool_call: no such place"
              and j["message"] == "no: call refused by on_tool_call: no such place", str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Error", **H})
        check("on_tool_call error refuses the call", j["toolCalls"][0]["error"].startswith(
              "on_tool_call failed, so the call was not made:") and j["toolCalls"][0]["result"] is None, str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Lima", **H})
        check("on_tool_call lets calls through", j["message"] == "ok Lima", str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "stats", **H})
        stats = json.loads(j["message"])
        check("on_done sees every turn", stats["turns"] == 4 and stats["last"] == {"status": "final", "user": "anonymous",
              "toolCount": 1, "message": "ok Lima"}, str(stats))
        # approval: pause, approve, exactly once
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "email bob@example.org hello"})
        check("pause 409", st == 409 and j["tool"] == "send_email" and j["args"] == {"to": "bob@example.org",
              "body": "hello"} and len(j["resumeToken"]) == 32 and j["stopReason"] == "paused", str(j))
        tok, psid = j["resumeToken"], j["sessionId"]
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": tok, "confirmed": True})
        check("resume approved executes the call", st == 200 and j["message"] == "Sent to bob@example.org (#1)."
              and j["toolCalls"][0]["result"]["sent"] is True and j["sessionId"] == psid, str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": tok, "confirmed": True})
        check("resume twice 410", st == 410 and j["error"]["type"] == "gone", str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": "f" * 32, "confirmed": True})
        check("unknown token 410", st == 410, str(j))
        # declined: the model is told
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "email eve@example.org x"})
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": j["resumeToken"], "confirmed": False})
        check("declined", st == 200 and j["message"] == "Not sent: the user declined the call to send_email"
              and j["toolCalls"][0]["error"] == "the user declined the call to send_email", str(j))
        # a pause among parallel calls: the first ran, the rest wait, and run after approval
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "both ann@example.org"})
        check("pause mid-response", st == 409 and [c["name"] for c in j["toolCalls"]] == ["get_weather"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": j["resumeToken"], "confirmed": True})
        check("resume runs the rest", st == 200 and j["message"] == "get_weather=ok,send_email=ok,get_weather=ok"
              and [c["name"] for c in j["toolCalls"]] == ["send_email", "get_weather"], str(j))
        # SSE pause and SSE resume
        rc, out = curl_sse(s.port, "/agent-api/chat", {"message": "email sse@example.org y"})
        ev = sse_events(out)
        check("sse hitl", [e for e, _ in ev] == ["session", "tool_call", "hitl"] and ev[2][1]["tool"] == "send_email"
              and len(ev[2][1]["resumeToken"]) == 32, out)
        rc, out = curl_sse(s.port, "/agent-api/chat/resume", {"resumeToken": ev[2][1]["resumeToken"], "confirmed": True})
        ev2 = sse_events(out)
        check("sse resume", [e for e, _ in ev2] == ["session", "tool_call", "tool_result", "text_delta", "text", "done"]
              and ev2[0][1]["sessionId"] == ev[0][1]["sessionId"], out)
        # expiry (--hitl-ttl 2)
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "email late@example.org z"})
        time.sleep(2.2)
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": j["resumeToken"], "confirmed": True})
        check("expired token 410", st == 410, str(j))
        # a new message supersedes a pending approval
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "email sup@example.org z"})
        tok, psid = j["resumeToken"], j["sessionId"]
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hello", "sessionId": psid})
        check("message after a pause", st == 200 and j["message"] == "Hello.", str(j))
        st, j, _, _ = s.request("GET", "/agent-api/conversations/" + psid)
        tm = [m for m in j["messages"] if m["role"] == "tool"]
        check("unanswered call closed", len(tm) == 1 and tm[0]["is_error"] is True, str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": tok, "confirmed": True})
        check("superseded token 410", st == 410, str(j))
        # concurrent resumes of one token: exactly one wins
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "email race@example.org r"})
        tok = j["resumeToken"]
        results = []
        lock = threading.Lock()

        def go():
            try:
                r = s.request("POST", "/agent-api/chat/resume", {"resumeToken": tok, "confirmed": True})
                with lock:
                    results.append(r[0])
            except Exception as e:  # noqa
                with lock:
                    results.append(str(e))
        ts = [threading.Thread(target=go) for _ in range(64)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        check("concurrent resumes: one wins", sorted(results) == [200] + [410] * 63,
              str(sorted(results, key=str)))
        # conversations list and delete
        st, j, _, _ = s.request("GET", "/agent-api/conversations")
        check("conversations list", st == 200 and len(j["conversations"]) >= 10 and
              all(set(c) == {"id", "agentId", "createdAt", "updatedAt", "messageCount"} for c in j["conversations"]),
              str(j)[:300])
        st, j, _, _ = s.request("DELETE", "/agent-api/conversations/" + sid)
        check("delete conversation", st == 200 and j == {"deleted": True, "id": sid}, str(j))
        st, j, _, _ = s.request("GET", "/agent-api/conversations/" + sid)
        check("deleted is gone", st == 404, str(j))
        # preferences
        st, j, _, _ = s.request("GET", "/agent-api/user/preferences")
        check("preferences empty", st == 200 and j == {"preferences": {}}, str(j))
        st, j, _, _ = s.request("PUT", "/agent-api/user/preferences", {"model": "x", "hitlLevel": "paranoid"})
        st, j, _, _ = s.request("GET", "/agent-api/user/preferences")
        check("preferences saved", j == {"preferences": {"model": "x", "hitlLevel": "paranoid"}}, str(j))
        st, j, _, _ = s.request("PUT", "/agent-api/user/preferences", {"colour": "red"})
        check("unknown preference", st == 400 and "unknown preference 'colour'" in j["error"]["message"], str(j))
        # history limit: 12 messages kept, cut at a user message
        hs = None
        for i in range(8):
            st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Oslo", **({"sessionId": hs} if hs else {})})
            hs = j["sessionId"]
        st, j, _, _ = s.request("GET", "/agent-api/conversations/" + hs)
        check("history limit", len(j["messages"]) == 12 and j["messages"][0]["role"] == "user", str(len(j["messages"])))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "many", "sessionId": hs})
        check("a long turn", st == 200 and j["message"] == "seven" and len(j["toolCalls"]) == 7, str(j)[:300])
        st, j, _, _ = s.request("GET", "/agent-api/conversations/" + hs)
        check("history limit keeps the latest turn whole", len(j["messages"]) == 16
              and j["messages"][0] == {"role": "user", "content": "many"}, str(len(j["messages"])))

        # hostile clients
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", raw="{not json")
        check("malformed JSON 400", st == 400 and j["error"]["type"] == "invalid_request_error"
              and "request body" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", raw="[1,2]")
        check("array body 400", st == 400 and "JSON object" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", raw="")
        check("empty body 400", st == 400, str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": 5})
        check("message not a string", st == 400 and "'message'" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hi", "agentId": "nope"})
        check("unknown agent 404", st == 404 and "unknown agent 'nope'" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hi", "mesage": "x"})
        check("unknown key 400", st == 400 and "unknown key 'mesage'" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hi", "sessionId": "../../etc"})
        check("bad session id 400", st == 400, str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "x" * 40000})
        check("message too long 413", st == 413 and "--max-message-kb" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", raw=json.dumps({"message": "x" * (2 << 20)}))
        check("body too large 413", st == 413 and "--max-body-mb" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hi"}, headers={"Content-Type": "text/plain"})
        check("wrong content type 415", st == 415 and j["error"]["type"] == "invalid_request_error", str(j))
        st, j, _, r = s.request("GET", "/agent-api/chat-sync")
        check("wrong method 405", st == 405 and r.getheader("Allow") == "POST", str(j))
        st, j, _, _ = s.request("GET", "/agent-api/nothing")
        check("unknown route 404", st == 404, str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": tok})
        check("resume without confirmed 400", st == 400 and "'confirmed'" in j["error"]["message"], str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "\u0000\ud800 weird"})
        check("odd unicode", st in (200, 400), str(j))
        # raw garbage on the socket
        for junk in [b"GARBAGE\r\n\r\n", b"POST /agent-api/chat-sync HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
                     b"\x00\xff" * 100]:
            so = socket.create_connection(("127.0.0.1", s.port))
            so.sendall(junk)
            so.settimeout(5)
            try:
                so.recv(4096)
            except OSError:
                pass
            so.close()
        st, j, _, _ = s.request("GET", "/health")
        check("alive after junk", st == 200, str(j))
        # deadline: 4 slow calls of 0.8 s against 2.5 s
        t0 = time.time()
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "slow", "agentId": "slow"})
        check("deadline 504", st == 504 and "deadline of 2500 ms" in j["error"]["message"]
              and "--request-timeout-ms" in j["error"]["message"] and time.time() - t0 < 4, str(j))
        rc, out = curl_sse(s.port, "/agent-api/chat", {"message": "slow", "agentId": "slow"})
        ev = sse_events(out)
        check("deadline in a stream: error event", [e for e, _ in ev][-1] == "error"
              and "deadline of 2500 ms" in ev[-1][1]["message"] and "done" not in [e for e, _ in ev], out[-400:])
        # the model fails
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "crash"})
        check("model failure 502", st == 502 and j["error"]["type"] == "api_error"
              and "model call failed" in j["error"]["message"] and "the rules broke" in j["error"]["message"], str(j))
        rc, out = curl_sse(s.port, "/agent-api/chat", {"message": "crash"})
        ev = sse_events(out)
        check("model failure in a stream", [e for e, _ in ev] == ["session", "error"]
              and "the rules broke" in ev[1][1]["message"], out)
        # a busy conversation refuses a second request
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "fast", "agentId": "slow"})
        bsid = j["sessionId"]
        out = {}

        def long():
            out["r"] = s.request("POST", "/agent-api/chat-sync", {"message": "slow", "sessionId": bsid})
        th = threading.Thread(target=long)
        th.start()
        time.sleep(0.3)
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "fast", "sessionId": bsid})
        check("busy conversation 409", st == 409 and "busy" in j["error"]["message"], str(j))
        th.join()
        # a client that disconnects mid-stream: the turn stops and the audit says so
        so = socket.create_connection(("127.0.0.1", s.port))
        body = json.dumps({"message": "slow", "agentId": "slow", "sessionId": "gone-1"}).encode()
        so.sendall(b"POST /agent-api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                   + str(len(body)).encode() + b"\r\n\r\n" + body)
        got = b""
        while b"tool_call" not in got:
            got += so.recv(4096)
        so.close()
        row = None
        for _ in range(100):
            st, j, _, _ = s.admin("/forge-admin/audit?limit=5")
            rows = [r for r in j["audit"] if r["sessionId"] == "gone-1"]
            if rows:
                row = rows[0]
                break
            time.sleep(0.1)
        check("disconnect recorded", row is not None and row["status"] == "disconnected" and row["toolCount"] < 4,
              str(row))
        # the audit trail
        st, j, _, _ = s.admin("/forge-admin/audit?limit=200")
        rows = j["audit"]
        check("audit columns", set(rows[0]) == {"id", "at", "user", "agentId", "sessionId", "route", "status",
              "durationMs", "model", "toolCount", "approvals", "hitl", "warnings", "error"}, str(rows[0]))
        paused = [r for r in rows if r["status"] == "paused"]
        check("audit pause", paused and paused[-1]["hitl"] is True and paused[-1]["model"] == "scripted:scripted", str(paused[-1:]))
        approved = [r for r in rows if r["route"] == "resume" and r["approvals"] == 1]
        check("audit approval", len(approved) >= 3, str(len(approved)))
        warned = [r for r in rows if r["warnings"] == 1]
        check("audit warnings", len(warned) >= 2, str(len(warned)))
        timeout = [r for r in rows if r["status"] == "timeout"]
        check("audit timeout", timeout and "deadline" in timeout[0]["error"], str(timeout))
        st, j, _, _ = s.request("GET", "/forge-admin/audit")
        check("admin needs its token", st == 401, str(j))
        st, j, _, _ = s.admin("/forge-admin/agents")
        check("admin agents", st == 200 and [a["id"] for a in j["agents"]] == ["weather", "slow", "hooked"]
              and j["agents"][0]["approvalLevel"] == "cautious", str(j))
    finally:
        code, err = s.stop()
    check("clean stop", code == 0, err[-500:])
    # a store that cannot be opened
    bad = Server("--auth", "none", store="/nonexistent/dir/x.db", expect_start=False)
    bad.proc.wait(timeout=30)
    code, err = bad.stop()
    check("unopenable store exit 3", code == 3 and "store sqlite:/nonexistent/dir/x.db: cannot open" in err, err)
    # rate limit
    s = Server("--auth", "none", "--rate-limit", "3/2")
    try:
        sts = [s.request("GET", "/agent-api/tools")[0] for _ in range(3)]
        st, j, _, r = s.request("GET", "/agent-api/tools")
        check("rate limit 429", sts == [200] * 3 and st == 429 and r.getheader("Retry-After") in ("1", "2")
              and "--rate-limit" in j["error"]["message"], f"{sts} {st} {j}")
        st, j, _, _ = s.request("GET", "/health")
        check("health not rate limited", st == 200)
        time.sleep(2.1)
        check("rate window passes", s.request("GET", "/agent-api/tools")[0] == 200)
    finally:
        s.stop()
    # the database locked by another writer: 503 and a clear message
    s = Server("--auth", "none")
    try:
        import sqlite3
        con = sqlite3.connect(s.store, timeout=0)
        con.execute("BEGIN EXCLUSIVE")
        t0 = time.time()
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Rome"})
        check("locked database 503", st == 503 and "database is locked" in j["error"]["message"], str(j))
        con.rollback()
        con.close()
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Rome"})
        check("unlocked again", st == 200, str(j))
    finally:
        s.stop()
    # the example under scripts/service, driven by its own client script
    root = os.path.normpath(os.path.join(HERE, "..", ".."))
    ex = subprocess.Popen([FORGE, "serve", "--agent", os.path.join(root, "scripts", "service", "agent.lua"),
                           "--auth", "none", "--store", "sqlite::memory:", "--listen", "127.0.0.1:0",
                           "--port-file", os.path.join(tempfile.gettempdir(), f"forge-ex-{os.getpid()}")],
                          stderr=subprocess.PIPE, text=True)
    pf = os.path.join(tempfile.gettempdir(), f"forge-ex-{os.getpid()}")
    for _ in range(500):
        if os.path.exists(pf) and open(pf).read().strip():
            break
        time.sleep(0.01)
    port = int(open(pf).read())
    os.unlink(pf)
    r = subprocess.run([os.path.join(root, "scripts", "service", "chat.sh"), f"http://127.0.0.1:{port}"],
                       capture_output=True, text=True, timeout=60)
    out = r.stdout
    check("example client", r.returncode == 0 and '"message":"It is 18°C and cloudy in Paris."' in out
          and "event: done" in out and '"message":"Sent to bob@example.org."' in out
          and '"code":410' in out, out + r.stderr)
    ex.terminate()
    ex.communicate(timeout=30)
    # stopped while a stream is running: the turn ends, the server exits cleanly
    s = Server("--auth", "none")
    so = socket.create_connection(("127.0.0.1", s.port))
    body = json.dumps({"message": "slow", "agentId": "slow"}).encode()
    so.sendall(b"POST /agent-api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
               + str(len(body)).encode() + b"\r\n\r\n" + body)
    got = b""
    while b"tool_call" not in got:
        got += so.recv(4096)
    t0 = time.time()
    code, err = s.stop()
    so.close()
    check("stop during a stream", code == 0 and time.time() - t0 < 15, f"{code} {err[-600:]}")
    # bad usage
    r = subprocess.run([FORGE, "serve", "--agent", AGENTS], capture_output=True, text=True)
    check("auth must be chosen", r.returncode == 2 and "choose how users are authenticated" in r.stderr, r.stderr)
    d = tempfile.mkdtemp()
    p = os.path.join(d, "a.lua")
    open(p, "w").write('local forge = require "forge" return forge.agent { id = "x", modle = 1 }')
    r = subprocess.run([FORGE, "serve", "--agent", p, "--auth", "none"], capture_output=True, text=True)
    check("unknown agent key", r.returncode == 2 and "agent 'x': unknown key 'modle'" in r.stderr, r.stderr)
    open(p, "w").write('local forge = require "forge" return { forge.agent { id = "x", model = "scripted:r.lua" }, forge.agent { id = "x" } }')
    r = subprocess.run([FORGE, "serve", "--agent", p, "--auth", "none"], capture_output=True, text=True)
    check("duplicate agent id", r.returncode == 2 and "two agents have the id 'x'" in r.stderr, r.stderr)
    # libpq and libmicrohttpd are loaded when first needed: one that cannot be loaded (here a
    # file that is not a library, found first through LD_LIBRARY_PATH) is an error naming it
    # and the package to install, exit 3
    for name in ("libpq.so.5", "libmicrohttpd.so.12"):
        open(os.path.join(d, name), "w").write("not a library\n")
    env = dict(os.environ, LD_LIBRARY_PATH=d)
    r = subprocess.run([FORGE, "serve", "--agent", AGENTS, "--auth", "none", "--store",
                        "postgresql://forge:pw@127.0.0.1:1/x"], capture_output=True, text=True, env=env, timeout=60)
    check("libpq cannot be loaded: exit 3 naming it and libpq5",
          r.returncode == 3 and "cannot load libpq (libpq.so.5): " in r.stderr and
          "install Debian's libpq5 package" in r.stderr, r.stderr)
    r = subprocess.run([FORGE, "serve", "--agent", AGENTS, "--auth", "none", "--store", "sqlite::memory:",
                        "--listen", "127.0.0.1:0"], capture_output=True, text=True, env=env, timeout=60)
    check("libmicrohttpd cannot be loaded: exit 3 naming it and libmicrohttpd12",
          r.returncode == 3 and "cannot load libmicrohttpd (libmicrohttpd.so.12): " in r.stderr and
          "install Debian's libmicrohttpd12 package" in r.stderr, r.stderr)
    r = subprocess.run([FORGE, "version"], capture_output=True, text=True, env=env, timeout=60)
    check("forge runs without them where they are not needed", r.returncode == 0 and r.stdout.startswith("forge "),
          r.stderr)
    shutil.rmtree(d)


# ---- JWTs minted with the openssl command line ----

def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def openssl_sign(alg, key_arg, signing_input):
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(signing_input.encode())
        path = f.name
    try:
        if alg == "HS256":
            cmd = ["openssl", "dgst", "-sha256", "-mac", "HMAC", "-macopt", "key:" + key_arg, "-binary", path]
        else:
            cmd = ["openssl", "dgst", "-sha256", "-sign", key_arg, "-binary", path]
        return subprocess.run(cmd, capture_output=True, check=True).stdout
    finally:
        os.unlink(path)


def mint(alg, key_arg, claims, header_alg=None):
    h = b64u(json.dumps({"alg": header_alg or alg, "typ": "JWT"}).encode())
    p = b64u(json.dumps(claims).encode())
    si = h + "." + p
    if alg == "none":
        return si + "."
    return si + "." + b64u(openssl_sign(alg, key_arg, si))


def auth():
    if not shutil.which("openssl"):
        print("SKIP auth: openssl is not installed (apt-get install -y openssl)")
        sys.exit(77)
    d = tempfile.mkdtemp(prefix="forge-jwt-")
    priv, pub = os.path.join(d, "priv.pem"), os.path.join(d, "pub.pem")
    priv2 = os.path.join(d, "priv2.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", priv],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", priv2],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", priv, "-pubout", "-out", pub], check=True, capture_output=True)
    secret = "s3cret-for-hs256-tests-0123456789abcdef"
    now = int(time.time())
    good = {"sub": "alice", "exp": now + 600}
    # HS256
    s = Server("--jwt-secret-env", "JWT_SECRET", env={"JWT_SECRET": secret})
    try:
        tok = mint("HS256", secret, good)
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "weather in Paris"}, token=tok)
        check("HS256 accepted", st == 200 and j["message"] == "It is 18°C in Paris.", str(j))
        alice_sid = j["sessionId"]
        bob = mint("HS256", secret, {"sub": "bob", "exp": now + 600})
        st, j, _, _ = s.request("GET", "/agent-api/conversations/" + alice_sid, token=bob)
        check("other user's conversation 403", st == 403 and j["error"]["type"] == "permission_error", str(j))
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hi", "sessionId": alice_sid}, token=bob)
        check("continuing another's conversation 403", st == 403, str(j))
        st, j, _, _ = s.request("DELETE", "/agent-api/conversations/" + alice_sid, token=bob)
        check("deleting another's conversation 403", st == 403, str(j))
        st, j, _, _ = s.request("GET", "/agent-api/conversations", token=bob)
        check("bob sees none of alice's", st == 200 and j == {"conversations": []}, str(j))
        st, j, _, _ = s.request("GET", "/agent-api/conversations", token=tok)
        check("alice sees hers", [c["id"] for c in j["conversations"]] == [alice_sid], str(j))
        # a pause taken by alice cannot be resumed by bob
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "email x@example.org y"}, token=tok)
        st, j, _, _ = s.request("POST", "/agent-api/chat/resume", {"resumeToken": j["resumeToken"], "confirmed": True},
                                token=bob)
        check("another user's resume token 403", st == 403, str(j))
        st, j, _, _ = s.request("GET", "/agent-api/tools", headers={"Authorization": ""}, token=None)
        refused = {
            "no token": None,
            "alg none": mint("none", None, good),
            "alg none, HS256 header": mint("none", None, good, header_alg="HS256"),
            "wrong key": mint("HS256", "another-secret-0123456789abcdefghij", good),
            "RS256 against an HS256 key": mint("RS256", priv, good),
            "tampered claims": None,
            "expired": mint("HS256", secret, {"sub": "alice", "exp": now - 120}),
            "not yet valid": mint("HS256", secret, {"sub": "alice", "exp": now + 600, "nbf": now + 300}),
            "no exp": mint("HS256", secret, {"sub": "alice"}),
            "no sub": mint("HS256", secret, {"user": "alice", "exp": now + 600}),
            "garbage": "a.b.c",
            "two parts": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0",
            "base64 padding": tok + "==",
        }
        h, p, sg = tok.split(".")
        forged = json.loads(base64.urlsafe_b64decode(p + "=="))
        forged["sub"] = "mallory"
        refused["tampered claims"] = h + "." + b64u(json.dumps(forged).encode()) + "." + sg
        for name, t in refused.items():
            st, j, _, r = s.request("GET", "/agent-api/tools", token=t)
            check("refused: " + name, st == 401 and j["error"]["type"] == "authentication_error"
                  and r.getheader("WWW-Authenticate") == "Bearer", f"{st} {j}")
        st, j, _, _ = s.request("GET", "/agent-api/tools", headers={"Authorization": "Basic YTpi"})
        check("refused: basic auth", st == 401, str(j))
        # leeway: expired 10 s ago passes within the default 30 s
        st, j, _, _ = s.request("GET", "/agent-api/tools", token=mint("HS256", secret, {"sub": "a", "exp": now - 10}))
        check("exp leeway", st == 200, str(j))
        st, j, _, _ = s.request("GET", "/health")
        check("health is open", st == 200)
        st, j, _, _ = s.request("GET", "/forge-admin/audit", token=tok)
        check("user token is not admin", st == 503, str(j))
    finally:
        code, err = s.stop()
    check("HS256 server stops cleanly", code == 0, err[-600:])
    check("refusals logged", err.count("service: refused") >= len(refused), err[-800:])
    check("tokens never logged", tok not in err and "eyJ" not in err, err[-800:])
    # RS256 and a custom claim
    s = Server("--jwt-public-key", pub, "--user-claim", "ctx.uid", "--admin-token-env", "FORGE_ADMIN")
    try:
        tok = mint("RS256", priv, {"ctx": {"uid": "carol"}, "exp": now + 600})
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hello"}, token=tok)
        check("RS256 accepted", st == 200 and j["message"] == "Hello.", str(j))
        st, j, _, _ = s.admin("/forge-admin/audit")
        check("user id from the claim path", j["audit"][0]["user"] == "carol", str(j))
        pem = open(pub).read()
        for name, t in {
            "RS256 wrong key": mint("RS256", priv2, {"ctx": {"uid": "carol"}, "exp": now + 600}),
            "HS256 signed with the public key (confusion)": mint("HS256", pem, {"ctx": {"uid": "carol"}, "exp": now + 600}),
            "alg none": mint("none", None, {"ctx": {"uid": "carol"}, "exp": now + 600}),
            "sub instead of the claim path": mint("RS256", priv, {"sub": "carol", "exp": now + 600}),
        }.items():
            st, j, _, _ = s.request("GET", "/agent-api/tools", token=t)
            check("refused: " + name, st == 401, f"{st} {j}")
        st, j, _, _ = s.request("GET", "/forge-admin/audit", headers={"Authorization": "Bearer " + ADMIN[:-1] + "X"})
        check("wrong admin token 401", st == 401, str(j))
        st, j, _, _ = s.request("GET", "/forge-admin/audit", headers={"Authorization": "Bearer " + ADMIN + "X"})
        check("longer admin token 401", st == 401, str(j))
    finally:
        s.stop()
    # trust mode: decoded, not verified; exp still honoured
    s = Server("--auth", "trust")
    try:
        st, j, _, _ = s.request("GET", "/agent-api/tools", token=mint("none", None, {"sub": "dave", "exp": now + 60}))
        check("trust mode decodes", st == 200, str(j))
        st, j, _, _ = s.request("GET", "/agent-api/tools", token=mint("none", None, {"sub": "dave", "exp": now - 100}))
        check("trust mode honours exp", st == 401, str(j))
        st, j, _, _ = s.request("GET", "/agent-api/tools")
        check("trust mode needs a token", st == 401, str(j))
    finally:
        s.stop()
    r = subprocess.run([FORGE, "serve", "--agent", AGENTS, "--jwt-secret-env", "SHORT"], capture_output=True,
                       text=True, env={**os.environ, "SHORT": "short"})
    check("short secret refused", r.returncode == 2 and "at least 32" in r.stderr, r.stderr)
    r = subprocess.run([FORGE, "serve", "--agent", AGENTS, "--jwt-public-key", priv + ".missing"], capture_output=True,
                       text=True)
    check("missing key file", r.returncode == 2 and "--jwt-public-key" in r.stderr, r.stderr)
    shutil.rmtree(d)


# ---- PostgreSQL from Debian's packages on a temporary data directory ----

class Postgres:
    def __init__(self):
        import glob
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            print("SKIP pg: PostgreSQL is not installed (apt-get install -y postgresql)")
            if os.environ.get("FORGE_REQUIRE_PG") == "1":
                sys.exit(1)
            sys.exit(77)
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix="forge-pg-")
        self.data = os.path.join(self.dir, "data")
        self.pre = None
        if os.getuid() == 0:
            # initdb refuses to run as root: the package's postgres user runs the server
            import pwd
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)

            def pre():
                os.setgid(pw.pw_gid)
                os.setuid(pw.pw_uid)
            self.pre = pre
        so = socket.socket()
        so.bind(("127.0.0.1", 0))
        self.port = so.getsockname()[1]
        so.close()
        self.sh([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", "forge", "--auth=trust", "-E", "UTF8",
                 "--no-sync"])
        self.sh([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w",
                 "-o", f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=off", "start"])
        self.uri = f"postgresql://forge@127.0.0.1:{self.port}/postgres"

    def sh(self, cmd):
        r = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=self.pre, cwd=self.dir)
        if r.returncode:
            raise RuntimeError(" ".join(cmd) + ": " + r.stdout + r.stderr)

    def stop(self):
        try:
            self.sh([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop"])
        except RuntimeError:
            pass

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def pg():
    if not shutil.which("openssl"):
        print("SKIP pg: openssl is not installed (apt-get install -y openssl)")
        sys.exit(77)
    db = Postgres()
    secret = "s3cret-for-hs256-tests-0123456789abcdef"
    env = {"JWT_SECRET": secret}
    now = int(time.time())
    alice = mint("HS256", secret, {"sub": "alice", "exp": now + 600})
    bob = mint("HS256", secret, {"sub": "bob", "exp": now + 600})
    a = b = None
    try:
        a = Server("--jwt-secret-env", "JWT_SECRET", "--admin-token-env", "FORGE_ADMIN", env=env, store=db.uri)
        b = Server("--jwt-secret-env", "JWT_SECRET", "--admin-token-env", "FORGE_ADMIN", env=env, store=db.uri)
        # a pause taken on one replica is resumed on the other
        st, j, _, _ = a.request("POST", "/agent-api/chat-sync", {"message": "email pg@example.org hi"}, token=alice)
        check("pause on A", st == 409 and len(j["resumeToken"]) == 32, str(j))
        sid = j["sessionId"]
        st, j, _, _ = b.request("POST", "/agent-api/chat/resume", {"resumeToken": j["resumeToken"], "confirmed": True},
                                token=alice)
        check("resumed on B", st == 200 and j["message"].startswith("Sent to pg@example.org") and j["sessionId"] == sid,
              str(j))
        # the conversation goes on on either
        st, j, _, _ = a.request("POST", "/agent-api/chat-sync", {"message": "what did I say", "sessionId": sid},
                                token=alice)
        check("history shared", st == 200 and j["message"] == "turn 2 of 2 user messages", str(j))
        st, j, _, _ = b.request("GET", "/agent-api/conversations/" + sid, token=bob)
        check("ownership across replicas 403", st == 403, str(j))
        st, j, _, _ = b.request("GET", "/agent-api/conversations", token=alice)
        check("list on B", [c["id"] for c in j["conversations"]] == [sid], str(j))
        # concurrent resumes of one token across both replicas: exactly one wins
        st, j, _, _ = a.request("POST", "/agent-api/chat-sync", {"message": "email race@example.org r"}, token=alice)
        tok = j["resumeToken"]
        results = []
        lock = threading.Lock()

        def go(srv):
            r = srv.request("POST", "/agent-api/chat/resume", {"resumeToken": tok, "confirmed": True}, token=alice)
            with lock:
                results.append(r[0])
        ts = [threading.Thread(target=go, args=(a if i % 2 else b,)) for i in range(32)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        check("concurrent resumes on two replicas: one wins", sorted(results) == [200] + [410] * 31, str(results))
        st, j, _, _ = b.request("POST", "/agent-api/chat/resume", {"resumeToken": tok, "confirmed": True}, token=alice)
        check("used token 410 on B", st == 410, str(j))
        st, j, _, _ = a.request("PUT", "/agent-api/user/preferences", {"model": "m"}, token=alice)
        st, j, _, _ = b.request("GET", "/agent-api/user/preferences", token=alice)
        check("preferences shared", j == {"preferences": {"model": "m"}}, str(j))
        st, j, _, _ = b.admin("/forge-admin/audit?limit=100")
        routes = sorted(r["route"] for r in j["audit"])
        check("audit shared", routes == ["chat-sync"] * 3 + ["resume"] * 2, str(routes))
        st, j, _, _ = a.request("DELETE", "/agent-api/conversations/" + sid, token=alice)
        st, j, _, _ = b.request("GET", "/agent-api/conversations/" + sid, token=alice)
        check("delete shared", st == 404, str(j))
        # the rate limit counts across replicas
        c1 = Server("--auth", "none", "--rate-limit", "4/3600", store=db.uri)
        c2 = Server("--auth", "none", "--rate-limit", "4/3600", store=db.uri)
        sts = [(c1 if i % 2 else c2).request("GET", "/agent-api/tools")[0] for i in range(4)]
        st, j, _, r = c1.request("GET", "/agent-api/tools")
        st2, _, _, _ = c2.request("GET", "/agent-api/tools")
        check("rate limit shared by replicas", sts == [200] * 4 and st == 429 and st2 == 429
              and int(r.getheader("Retry-After")) > 0, f"{sts} {st} {st2} {j}")
        c1.stop()
        c2.stop()
        # a third replica starting on the migrated schema
        c = Server("--auth", "none", store=db.uri)
        st, j, _, _ = c.request("GET", "/agent-api/tools")
        check("third replica", st == 200, str(j))
        c.stop()
        # the database goes away: 503 with a clear error
        db.stop()
        st, j, _, _ = a.request("POST", "/agent-api/chat-sync", {"message": "hello"}, token=alice)
        check("database gone 503", st == 503 and "store postgresql://127.0.0.1:" in j["error"]["message"]
              and "forge@" not in j["error"]["message"], str(j))
        st, j, _, _ = a.request("GET", "/health")
        check("health still answers", st == 200)
    finally:
        for srv in (a, b):
            if srv:
                code, err = srv.stop()
                check("replica stops cleanly", code == 0, err[-600:])
        db.remove()
    r = subprocess.run([FORGE, "serve", "--agent", AGENTS, "--auth", "none", "--store",
                        "postgresql://forge:pw@127.0.0.1:1/x"], capture_output=True, text=True, timeout=60)
    check("unreachable database exit 3", r.returncode == 3 and "cannot connect" in r.stderr and "pw" not in r.stderr,
          r.stderr)


def audit_row(s, session):
    """The audit row of <session>, waiting up to 15 s for it."""
    for _ in range(150):
        st, j, _, _ = s.admin("/forge-admin/audit?limit=20")
        rows = [r for r in j["audit"] if r["sessionId"] == session]
        if rows:
            return rows[0]
        time.sleep(0.1)
    return None


def provider():
    work = tempfile.mkdtemp(prefix="forge-service-fake-")
    pf, log = os.path.join(work, "port"), os.path.join(work, "fake.log")
    fake = subprocess.Popen([sys.executable, FAKE, "--port-file", pf, "--log", log, "--max-seconds", "240"])
    s = None
    try:
        for _ in range(1000):
            if os.path.exists(pf) and open(pf).read().strip():
                break
            time.sleep(0.01)
        fport = int(open(pf).read())
        s = Server("--auth", "none", "--admin-token-env", "FORGE_ADMIN", "--request-timeout-ms", "3000",
                   "--model", "openai:m1", "--base-url", f"http://127.0.0.1:{fport}/v1", "--no-cache",
                   agents=REMOTE, env={"OPENAI_API_KEY": "sk-test-openai-0123456789"})

        def aborted():
            if not os.path.exists(log):
                return []
            return [json.loads(line) for line in open(log) if '"aborted"' in line]

        # the model answers (the wiring works at all)
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hello"})
        check("provider model answers", st == 200 and j["message"] == "Hello from the fake openai provider.", str(j))
        # a client that disconnects while the model is thinking: the request to the provider is
        # cancelled in flight, not left to run its 30 s
        so = socket.create_connection(("127.0.0.1", s.port))
        body = json.dumps({"message": "[hang] think", "sessionId": "gone-model"}).encode()
        so.sendall(b"POST /agent-api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                   + str(len(body)).encode() + b"\r\n\r\n" + body)
        got = b""
        while b"event: session" not in got:
            got += so.recv(4096)
        for _ in range(200):  # the provider has the request
            if os.path.exists(log) and "[hang] think" in open(log).read():
                break
            time.sleep(0.01)
        t0 = time.monotonic()
        so.close()
        row = audit_row(s, "gone-model")
        took = time.monotonic() - t0
        check("disconnect mid-model-call recorded", row is not None and row["status"] == "disconnected"
              and row["durationMs"] < 10000 and row["error"] is None, str(row))
        check("disconnect ends the turn quickly", took < 10, f"{took:.1f} s")
        ab = aborted()
        check("provider saw the request aborted", len(ab) == 1 and ab[0]["path"] == "/v1/chat/completions"
              and ab[0]["after_ms"] < 10000, str(ab))
        # the request deadline (3 s) cancels the model call the same way
        t0 = time.monotonic()
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "[hang] slowly", "sessionId": "late-model"})
        took = time.monotonic() - t0
        check("deadline cancels the model call", st == 504 and "deadline of 3000 ms" in j["error"]["message"]
              and took < 8, f"{st} {j} {took:.1f} s")
        row = audit_row(s, "late-model")
        check("deadline recorded", row is not None and row["status"] == "timeout", str(row))
        for _ in range(100):
            if len(aborted()) == 2:
                break
            time.sleep(0.05)
        check("provider saw the late request aborted", len(aborted()) == 2, str(aborted()))
        # the conversation is usable afterwards
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": "hello again", "sessionId": "gone-model"})
        check("conversation goes on after a cancelled call", st == 200 and j["message"].startswith("Hello"), str(j))
        code, err = s.stop()
        s = None
        check("provider service stops cleanly", code == 0, err[-600:])
        # a streaming model: one text_delta per piece the provider sends, as it arrives
        keys = {"OPENAI_API_KEY": "sk-test-openai-0123456789", "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
                "GEMINI_API_KEY": "gm-test-key-0123456789"}
        for d, name in (("openai", "openai"), ("openai-responses", "responses"), ("anthropic", "anthropic"),
                        ("gemini", "gemini"), ("ollama", "ollama")):
            base = f"http://127.0.0.1:{fport}" + ("/v1" if d.startswith("openai") else "")
            s = Server("--auth", "none", "--admin-token-env", "FORGE_ADMIN", "--model", d + ":m1", "--base-url", base,
                       "--no-cache", "--stream", agents=REMOTE, env=keys)
            cmd = ["curl", "-sS", "-N", "-X", "POST", f"http://127.0.0.1:{s.port}/agent-api/chat",
                   "-H", "Content-Type: application/json", "-d", json.dumps({"message": "[drip] hi"})]
            cp = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
            timed, ev = [], None
            for line in cp.stdout:  # each event timed as it arrives
                if line.startswith("event: "):
                    ev = line[7:].strip()
                elif line.startswith("data: ") and ev:
                    timed.append((time.monotonic(), ev, json.loads(line[6:])))
            cp.wait(timeout=60)
            types = [e for _, e, _ in timed]
            deltas = [(t, data["content"]) for t, e, data in timed if e == "text_delta"]
            whole = [data["content"] for _, e, data in timed if e == "text"]
            want = f"Hello from the fake {name} provider."
            check(f"{d}: events", types[0] == "session" and types[-2:] == ["text", "done"]
                  and set(types[1:-2]) == {"text_delta"}, str(types))
            check(f"{d}: text_delta pieces add up to text", whole == [want] and "".join(c for _, c in deltas) == want
                  and len(deltas) >= 3, str(deltas))
            check(f"{d}: pieces arrive as the provider sends them", len(deltas) >= 3
                  and deltas[-1][0] - deltas[0][0] >= 0.15 * (len(deltas) - 1) * 0.8, str([round(t, 2) for t, _ in deltas]))
            if d == "openai":
                # a stream that stalls after its first pieces: they reach the client at once, and
                # a client that leaves then cancels the stream in flight
                so = socket.create_connection(("127.0.0.1", s.port))
                body = json.dumps({"message": "[stream-stall] hi", "sessionId": "stalled"}).encode()
                so.sendall(b"POST /agent-api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
                got = b""
                so.settimeout(20)
                try:
                    while b"event: text_delta" not in got:
                        chunk = so.recv(4096)
                        if not chunk:
                            break
                        got += chunk
                except socket.timeout:
                    pass
                check("stalled stream: its first piece arrives", b"event: text_delta" in got, got.decode()[-300:])
                so.close()
                row = audit_row(s, "stalled")
                check("stalled stream: cancelled when the client leaves", row is not None
                      and row["status"] == "disconnected" and row["durationMs"] < 10000, str(row))
            code, err = s.stop()
            s = None
            check(f"{d}: service stops cleanly", code == 0, err[-600:])
        log_lines = [json.loads(line) for line in open(log) if '"body"' in line]
        check("streamed requests asked for a stream", sum(1 for r in log_lines if isinstance(r["body"], dict)
              and "[drip] hi" in json.dumps(r["body"]) and (r["body"].get("stream") is True
                                                            or "streamGenerateContent" in r["path"])) == 5,
              str([r["path"] for r in log_lines]))
    finally:
        if s:
            code, err = s.stop()
            check("provider service stops cleanly", code == 0, err[-600:])
        fake.terminate()
        fake.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def hitl():
    def turn(s, agent, message):
        st, j, _, _ = s.request("POST", "/agent-api/chat-sync", {"message": message, "agentId": agent})
        return st, (j or {}).get("tool") if st == 409 else (j or {}).get("message")

    def prefer(s, level):
        st, j, _, _ = s.request("PUT", "/agent-api/user/preferences", {"hitlLevel": level})
        return st

    s = Server("--auth", "none", "--admin-token-env", "FORGE_ADMIN", agents=HITL)
    try:
        check("no preference: the agent's level", turn(s, "chooser", "weather in Oslo") == (200, "It is 18°C in Oslo.")
              and turn(s, "chooser", "email bob") == (409, "send_email"))
        check("set paranoid", prefer(s, "paranoid") == 200)
        check("paranoid pauses a harmless call", turn(s, "chooser", "weather in Oslo") == (409, "get_weather"))
        check("an agent that does not allow it keeps its level", turn(s, "fixed", "weather in Oslo")
              == (200, "It is 18°C in Oslo."))
        check("set autonomous", prefer(s, "autonomous") == 200)
        r = turn(s, "chooser", "email bob")
        check("autonomous runs a call that needs confirmation", r == (200, "Sent to bob (#1)."), str(r))
        check("autonomous does not reach the other agent", turn(s, "fixed", "email bob") == (409, "send_email"))
        st, j, _, _ = s.request("PUT", "/agent-api/user/preferences", {"hitlLevel": "reckless"})
        check("unknown level 400", st == 400 and "unknown level 'reckless' (autonomous, cautious, standard, paranoid)"
              in j["error"]["message"], str(j))
        check("the level stays", turn(s, "chooser", "email bob") == (200, "Sent to bob (#2)."))
        check("cleared", prefer(s, None) == 200)
        check("cleared: the agent's level again", turn(s, "chooser", "email bob") == (409, "send_email"))
        st, j, _, _ = s.admin("/forge-admin/audit?limit=50")
        paused = [r for r in j["audit"] if r["agentId"] == "chooser" and r["status"] == "paused"]
        check("audit records the pauses", len(paused) == 3 and all(r["hitl"] for r in paused), str(paused))
    finally:
        code, err = s.stop()
        check("hitl service stops cleanly", code == 0, err[-600:])
    s = Server("--auth", "none", "--allow-user-hitl", agents=HITL)
    try:
        prefer(s, "paranoid")
        check("--allow-user-hitl: every agent", turn(s, "fixed", "weather in Oslo") == (409, "get_weather"))
    finally:
        code, err = s.stop()
        check("hitl service stops cleanly", code == 0, err[-600:])
    d = tempfile.mkdtemp(prefix="forge-service-hitl-")
    bad = os.path.join(d, "bad.lua")
    with open(bad, "w") as f:
        f.write('local forge = require "forge"\nreturn forge.agent { id = "x", model = forge.scripted { { reply = "x" } },'
                ' allow_user_hitl = "yes" }\n')
    r = subprocess.run([FORGE, "serve", "--agent", bad, "--auth", "none", "--store", os.path.join(d, "s.db")],
                       capture_output=True, text=True, timeout=60)
    check("allow_user_hitl must be a boolean", r.returncode == 2
          and "agent 'x': allow_user_hitl must be a boolean" in r.stderr, r.stderr)
    shutil.rmtree(d, ignore_errors=True)


{"api": api, "auth": auth, "pg": pg, "provider": provider, "hitl": hitl}[GROUP]()
print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)

#!/usr/bin/env python3
"""A fake model provider for forge's tests and benchmarks (Python 3 standard library only).

Serves the five dialects forge speaks, on 127.0.0.1 only:
  POST /v1/chat/completions                      OpenAI chat completions
  POST /v1/responses                             OpenAI responses
  POST /v1/messages                              Anthropic messages
  POST /v1beta/models/<model>:generateContent    Gemini
  POST /api/chat                                 Ollama

What it answers is chosen by a tag in the last user message, e.g. "[parallel] weather?":
  text (default)  a plain text answer
  single          one get_weather call (Gemini/Anthropic/responses also return a thought
                  signature / thinking block / reasoning item to be sent back)
  parallel        two get_weather calls in one answer
  length          text cut by the token limit; filter: blocked by the content filter
  error400, auth  a 400 / 401 error in the provider's own error shape; echo-key: a 401 whose
                  message quotes the credential the client sent; echo-ok: a 200 text answer
                  that quotes the credential and the user's message
  ratelimit       429 with Retry-After: 1 on the first request of the run, then text
  ratelimit-ms    like ratelimit, with Retry-After: 30 and retry-after-ms: 600
  ratelimit-always 429 with Retry-After: 0 every time
  flaky           500 on the first request of the run, then text; e500: always 500
  malformed       200 with a body that is not JSON; truncated: 200 with JSON cut short
  cutoff          the connection closes in the middle of the body
  badshape        200 with JSON that lacks the dialect's fields
  slow            answers after 1.5 s; stall: sends half the body, then stalls for 30 s
  drip            (streamed only) the text answer's events 150 ms apart
  hang            answers after 30 s unless the client closes the connection first, which it
                  notices within 50 ms and logs as {"path", "aborted": true, "after_ms"}
  bigbody         a 2 MB text answer
When the conversation ends with tool results, it answers with the text "Results: " and the
results joined by " | ".

Every request is appended to --log as one JSON line {"path", "headers", "body"}.
--delay-ms adds a delay to every answer (benchmarks). The server stops by itself after
--max-seconds.
"""
import argparse
import json
import re
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
COUNTS = {}
ARGS = None

WEATHER = [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London", "unit": "celsius"})]
USAGE_IN, USAGE_OUT = 11, 7


def first_time(key):
    with LOCK:
        COUNTS[key] = COUNTS.get(key, 0) + 1
        return COUNTS[key] == 1


def dialect_of(path):
    if path == "/v1/chat/completions":
        return "openai"
    if path == "/v1/responses":
        return "responses"
    if path == "/v1/messages":
        return "anthropic"
    if re.fullmatch(r"/v1beta/models/[^/]+:(generateContent|streamGenerateContent)", path.split("?")[0]):
        return "gemini"
    if path == "/api/chat":
        return "ollama"
    return None


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def conversation(d, body):
    """Returns (last user text, tool results or None) for a request body."""
    if d in ("openai", "ollama"):
        msgs = body.get("messages", [])
        results = []
        for m in reversed(msgs):
            if m.get("role") != "tool":
                break
            results.insert(0, m.get("content", ""))
        users = [m for m in msgs if m.get("role") == "user"]
        return (text_of(users[-1].get("content")) if users else ""), (results or None)
    if d == "responses":
        items = body.get("input", [])
        results = []
        for it in reversed(items):
            if it.get("type") != "function_call_output":
                break
            results.insert(0, it.get("output", ""))
        users = [it for it in items if it.get("role") == "user"]
        return (text_of(users[-1].get("content")) if users else ""), (results or None)
    if d == "anthropic":
        msgs = body.get("messages", [])
        last = msgs[-1] if msgs else {}
        results = [b.get("content") for b in last.get("content", [])
                   if isinstance(b, dict) and b.get("type") == "tool_result"]
        users = [text_of([b for b in m.get("content", []) if b.get("type") == "text"])
                 for m in msgs if m.get("role") == "user"]
        users = [u for u in users if u]
        return (users[-1] if users else ""), (results or None)
    contents = body.get("contents", [])
    last = contents[-1] if contents else {}
    results = [json.dumps(p["functionResponse"]["response"], separators=(",", ":"))
               for p in last.get("parts", []) if "functionResponse" in p]
    users = [" ".join(p.get("text", "") for p in c.get("parts", []) if "text" in p)
             for c in contents if c.get("role") == "user"]
    users = [u for u in users if u]
    return (users[-1] if users else ""), (results or None)


def error_body(d, status, message):
    if d == "anthropic":
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if d == "gemini":
        st = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED"}.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": st}}
    if d == "ollama":
        return {"error": message}
    kind = {400: "invalid_request_error", 401: "invalid_request_error", 429: "requests"}.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def answer(d, model, text, calls, finish, signature):
    """A success body in dialect d. calls: [(name, args)]; finish: stop|length|filter."""
    if d == "openai":
        msg = {"role": "assistant", "content": text, "refusal": None}
        if calls:
            msg["tool_calls"] = [{"id": "call_a%d" % (i + 1), "type": "function",
                                  "function": {"name": n, "arguments": json.dumps(a)}}
                                 for i, (n, a) in enumerate(calls)]
        fr = "tool_calls" if calls else {"stop": "stop", "length": "length", "filter": "content_filter"}[finish]
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 1767225600, "model": model,
                "choices": [{"index": 0, "message": msg, "logprobs": None, "finish_reason": fr}],
                "usage": {"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT,
                          "total_tokens": USAGE_IN + USAGE_OUT}}
    if d == "responses":
        out = []
        if signature:
            out.append({"type": "reasoning", "id": "rs_fake1", "summary": [], "encrypted_content": "enc-r1"})
        for i, (n, a) in enumerate(calls):
            out.append({"type": "function_call", "id": "fc_fake%d" % (i + 1), "call_id": "call_r%d" % (i + 1),
                        "name": n, "arguments": json.dumps(a), "status": "completed"})
        if text is not None:
            out.append({"type": "message", "id": "msg_fake", "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]})
        body = {"id": "resp_fake", "object": "response", "created_at": 1767225600, "status": "completed",
                "model": model, "output": out,
                "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT, "total_tokens": USAGE_IN + USAGE_OUT}}
        if finish == "length":
            body["status"] = "incomplete"
            body["incomplete_details"] = {"reason": "max_output_tokens"}
        if finish == "filter":
            body["status"] = "incomplete"
            body["incomplete_details"] = {"reason": "content_filter"}
        return body
    if d == "anthropic":
        content = []
        if signature:
            content.append({"type": "thinking", "thinking": "The user wants the weather.", "signature": "sig-a1"})
        if text is not None:
            content.append({"type": "text", "text": text})
        for i, (n, a) in enumerate(calls):
            content.append({"type": "tool_use", "id": "toolu_0%d" % (i + 1), "name": n, "input": a})
        sr = "tool_use" if calls else {"stop": "end_turn", "length": "max_tokens", "filter": "refusal"}[finish]
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": content,
                "stop_reason": sr, "stop_sequence": None,
                "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT}}
    if d == "gemini":
        parts = []
        if text is not None:
            parts.append({"text": text})
        for i, (n, a) in enumerate(calls):
            p = {"functionCall": {"name": n, "args": a}}
            if signature and i == 0:
                p["thoughtSignature"] = "sig-g1"
            parts.append(p)
        fr = {"stop": "STOP", "length": "MAX_TOKENS", "filter": "SAFETY"}[finish]
        return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": fr, "index": 0}],
                "usageMetadata": {"promptTokenCount": USAGE_IN, "candidatesTokenCount": USAGE_OUT,
                                  "totalTokenCount": USAGE_IN + USAGE_OUT},
                "modelVersion": model}
    msg = {"role": "assistant", "content": text or ""}
    if calls:
        msg["tool_calls"] = [{"function": {"name": n, "arguments": a}} for n, a in calls]
    return {"model": model, "created_at": "2026-01-01T00:00:00Z", "message": msg,
            "done_reason": "length" if finish == "length" else "stop", "done": True,
            "total_duration": 1000, "prompt_eval_count": USAGE_IN, "eval_count": USAGE_OUT}


def pieces(text, n):
    return [text[i:i + n] for i in range(0, len(text), n)] or [""]


def sse(data, event=None, crlf=False):
    nl = "\r\n" if crlf else "\n"
    head = ("event: " + event + nl) if event else ""
    return (head + "data: " + (data if isinstance(data, str) else json.dumps(data)) + nl + nl).encode()


def stream_events(d, body, include_usage, interleave=False, bad_args=False):
    """The events a provider streams for the whole answer <body>, as its API reference shows them:
    OpenAI chunks (a call's id and name in its first delta, arguments in pieces), responses
    events, Anthropic's message_start ... message_stop with ping, Gemini chunks (each
    functionCall whole, CRLF framing), Ollama NDJSON lines."""
    out = []
    if d == "openai":
        base = {k: body[k] for k in ("id", "created", "model")}
        base["object"] = "chat.completion.chunk"
        ch = body["choices"][0]
        msg = ch["message"]

        def chunk(delta, fin=None):
            c = dict(base, choices=[{"index": 0, "delta": delta, "logprobs": None, "finish_reason": fin}])
            if include_usage:
                c["usage"] = None
            return sse(c)
        out.append(chunk({"role": "assistant", "content": "" if msg.get("content") is not None else None}))
        if msg.get("content"):
            out += [chunk({"content": p}) for p in pieces(msg["content"], 5)]
        calls = msg.get("tool_calls") or []
        heads = [chunk({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                        "function": {"name": c["function"]["name"], "arguments": ""}}]})
                 for i, c in enumerate(calls)]
        args = [[chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]})
                 for p in pieces('{"ci' if bad_args else c["function"]["arguments"], 7)] for i, c in enumerate(calls)]
        if interleave:  # two calls' deltas taking turns
            out += heads
            for k in range(max((len(a) for a in args), default=0)):
                out += [a[k] for a in args if k < len(a)]
        else:
            for h, a in zip(heads, args):
                out += [h] + a
        out.append(chunk({}, ch["finish_reason"]))
        if include_usage:
            out.append(sse(dict(base, choices=[], usage=body["usage"])))
        out.append(b"data: [DONE]\n\n")
    elif d == "responses":
        seq = [0]

        def ev(t, **kw):
            e = dict(type=t, sequence_number=seq[0], **kw)
            seq[0] += 1
            return sse(e, t)
        start = dict(body, status="in_progress", output=[], usage=None)
        out += [ev("response.created", response=start), ev("response.in_progress", response=start)]
        for i, it in enumerate(body["output"]):
            if it["type"] == "message":
                out.append(ev("response.output_item.added", output_index=i,
                              item=dict(it, status="in_progress", content=[])))
                text = it["content"][0]["text"]
                part = {"type": "output_text", "text": "", "annotations": []}
                out.append(ev("response.content_part.added", item_id=it["id"], output_index=i, content_index=0, part=part))
                out += [ev("response.output_text.delta", item_id=it["id"], output_index=i, content_index=0, delta=p,
                           logprobs=[]) for p in pieces(text, 5)]
                out.append(ev("response.output_text.done", item_id=it["id"], output_index=i, content_index=0, text=text,
                              logprobs=[]))
                out.append(ev("response.content_part.done", item_id=it["id"], output_index=i, content_index=0,
                              part=it["content"][0]))
            elif it["type"] == "function_call":
                out.append(ev("response.output_item.added", output_index=i,
                              item=dict(it, status="in_progress", arguments="")))
                out += [ev("response.function_call_arguments.delta", item_id=it["id"], output_index=i, delta=p)
                        for p in pieces(it["arguments"], 7)]
                out.append(ev("response.function_call_arguments.done", item_id=it["id"], output_index=i,
                              arguments=it["arguments"]))
            else:
                out.append(ev("response.output_item.added", output_index=i, item=it))
            out.append(ev("response.output_item.done", output_index=i, item=it))
        done = "response.incomplete" if body["status"] == "incomplete" else "response.completed"
        out.append(ev(done, response=body))
    elif d == "anthropic":
        def ev(t, **kw):
            return sse(dict(type=t, **kw), t)
        start = dict(body, content=[], stop_reason=None, stop_sequence=None,
                     usage={"input_tokens": body["usage"]["input_tokens"], "output_tokens": 1})
        out += [ev("message_start", message=start), ev("ping")]
        for i, b in enumerate(body["content"]):
            if b["type"] == "text":
                out.append(ev("content_block_start", index=i, content_block={"type": "text", "text": ""}))
                out += [ev("content_block_delta", index=i, delta={"type": "text_delta", "text": p})
                        for p in pieces(b["text"], 5)]
            elif b["type"] == "tool_use":
                out.append(ev("content_block_start", index=i, content_block=dict(b, input={})))
                js = '{"ci' if bad_args else json.dumps(b["input"])  # pieces that do not add up to JSON
                out += [ev("content_block_delta", index=i, delta={"type": "input_json_delta", "partial_json": p})
                        for p in [""] + pieces(js, 7)]
            elif b["type"] == "thinking":
                out.append(ev("content_block_start", index=i, content_block={"type": "thinking", "thinking": ""}))
                out.append(ev("content_block_delta", index=i, delta={"type": "thinking_delta", "thinking": b["thinking"]}))
                out.append(ev("content_block_delta", index=i, delta={"type": "signature_delta", "signature": b["signature"]}))
            out.append(ev("content_block_stop", index=i))
            out.append(ev("ping"))
        out.append(ev("message_delta", delta={"stop_reason": body["stop_reason"], "stop_sequence": None},
                      usage={"output_tokens": body["usage"]["output_tokens"]}))
        out.append(ev("message_stop"))
    elif d == "gemini":
        cand = body["candidates"][0]
        chunks = []
        for p in cand["content"]["parts"]:
            if "text" in p and len(p) == 1:
                chunks += [[{"text": t}] for t in pieces(p["text"], 5)]
            else:
                chunks.append([p])  # a functionCall comes whole
        chunks = chunks or [[{"text": ""}]]
        for k, parts in enumerate(chunks):
            c = {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
                 "usageMetadata": {"promptTokenCount": USAGE_IN}, "modelVersion": body["modelVersion"]}
            if k == len(chunks) - 1:
                c["candidates"][0]["finishReason"] = cand["finishReason"]
                c["usageMetadata"] = body["usageMetadata"]
            out.append(sse(c, crlf=True))
    else:
        msg = body["message"]
        line = {k: body[k] for k in ("model", "created_at")}
        for p in pieces(msg["content"], 5) if msg["content"] else []:
            out.append((json.dumps(dict(line, message={"role": "assistant", "content": p}, done=False)) + "\n").encode())
        if msg.get("tool_calls"):
            out.append((json.dumps(dict(line, message={"role": "assistant", "content": "",
                                                       "tool_calls": msg["tool_calls"]}, done=False)) + "\n").encode())
        last = dict(body, message={"role": "assistant", "content": ""})
        out.append((json.dumps(last) + "\n").encode())
    return out


def stream_error(d):
    """An error event in the middle of a stream, as each provider sends one."""
    if d == "anthropic":
        return sse({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "error")
    if d == "responses":
        return sse({"type": "error", "code": "server_error", "message": "The server had an error", "sequence_number": 99},
                   "error")
    if d == "ollama":
        return b'{"error":"model runner has unexpectedly stopped"}\n'
    if d == "gemini":
        return sse({"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}, crlf=True)
    return sse({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes

    def log_message(self, fmt, *args):
        pass

    def send(self, status, obj=None, raw=None, headers=()):
        data = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def send_stream(self, events, stall_after=None, cut_after=None, ctype="text/event-stream", gap=0):
        """Sends <events> one HTTP chunk each, <gap> seconds apart; stalls or cuts the connection
        after some."""
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for k, e in enumerate(events):
            if cut_after is not None and k == cut_after:
                self.wfile.flush()
                self.close_connection = True
                return
            if stall_after is not None and k == stall_after:
                self.wfile.flush()
                time.sleep(30)
                self.close_connection = True
                return
            if gap and k:
                time.sleep(gap)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(e), e))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if ARGS.log:
            rec = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                   "body": body if body is not None else raw.decode("utf-8", "replace")}
            with LOCK:
                with open(ARGS.log, "a") as f:
                    f.write(json.dumps(rec) + "\n")
        if ARGS.delay_ms:
            time.sleep(ARGS.delay_ms / 1000.0)
        d = dialect_of(self.path)
        if d is None or not isinstance(body, dict):
            self.send(404, {"error": {"message": "no such route: " + self.path}})
            return
        model = body.get("model") or self.path.split("/")[-1].split(":")[0]
        user, results = conversation(d, body)
        m = re.search(r"\[([a-z0-9-]+)\]", user)
        scen = m.group(1) if m else "text"
        streamed = body.get("stream") is True if d != "gemini" else ":streamGenerateContent" in self.path
        if d == "ollama" and "stream" not in body:
            streamed = True
        if streamed:
            self.stream_answer(d, model, user, results, scen, body)
            return
        if results is not None:
            self.send(200, answer(d, model, "Results: " + " | ".join(str(r) for r in results), [], "stop", False))
            return
        key = (self.path, scen)
        if scen == "single":
            self.send(200, answer(d, model, None, WEATHER[:1], "stop", True))
        elif scen == "parallel":
            self.send(200, answer(d, model, "Checking both cities.", WEATHER, "stop", False))
        elif scen == "length":
            self.send(200, answer(d, model, "The weather in Par", [], "length", False))
        elif scen == "filter":
            self.send(200, answer(d, model, "", [], "filter", False))
        elif scen == "error400":
            self.send(400, error_body(d, 400, "Invalid request: the fake provider rejects this request"))
        elif scen == "auth":
            self.send(401, error_body(d, 401, "Invalid API key"))
        elif scen == "echo-key":
            cred = (self.headers.get("authorization") or self.headers.get("x-api-key")
                    or self.headers.get("x-goog-api-key") or "")
            self.send(401, error_body(d, 401, "Incorrect API key provided: " + cred.replace("Bearer ", "")))
        elif scen == "echo-ok":
            cred = (self.headers.get("authorization") or self.headers.get("x-api-key")
                    or self.headers.get("x-goog-api-key") or "")
            self.send(200, answer(d, model, "You sent " + cred.replace("Bearer ", "") + " and: " + user,
                                  [], "stop", False))
        elif scen == "ratelimit":
            if first_time(key):
                self.send(429, error_body(d, 429, "Rate limit reached"), headers=[("Retry-After", "1")])
            else:
                self.send(200, answer(d, model, "Served after the rate limit.", [], "stop", False))
        elif scen == "ratelimit-ms":
            if first_time(key):
                self.send(429, error_body(d, 429, "Rate limit reached"),
                          headers=[("Retry-After", "30"), ("retry-after-ms", "600")])
            else:
                self.send(200, answer(d, model, "Served after the rate limit.", [], "stop", False))
        elif scen == "ratelimit-always":
            self.send(429, error_body(d, 429, "Rate limit reached"), headers=[("Retry-After", "0")])
        elif scen == "flaky":
            if first_time(key):
                self.send(500, error_body(d, 500, "The server had an error"))
            else:
                self.send(200, answer(d, model, "Served after a 500.", [], "stop", False))
        elif scen == "e500":
            self.send(500, error_body(d, 500, "The server had an error"))
        elif scen == "malformed":
            self.send(200, raw=b"<html>Bad gateway</html>")
        elif scen == "truncated":
            full = json.dumps(answer(d, model, "Hello", [], "stop", False)).encode()
            self.send(200, raw=full[: len(full) // 2])
        elif scen == "cutoff":
            full = json.dumps(answer(d, model, "Hello", [], "stop", False)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(full)))
            self.end_headers()
            self.wfile.write(full[: len(full) // 2])
            self.wfile.flush()
            self.close_connection = True
        elif scen == "badshape":
            self.send(200, {"unexpected": True})
        elif scen == "hang":
            t0 = time.monotonic()
            while time.monotonic() - t0 < 30:
                r, _, _ = select.select([self.connection], [], [], 0.05)
                if r and self.connection.recv(1, socket.MSG_PEEK) == b"":
                    if ARGS.log:
                        rec = {"path": self.path, "aborted": True, "after_ms": int((time.monotonic() - t0) * 1000)}
                        with LOCK:
                            with open(ARGS.log, "a") as f:
                                f.write(json.dumps(rec) + "\n")
                    self.close_connection = True
                    return
            self.send(200, answer(d, model, "Late.", [], "stop", False))
        elif scen == "slow":
            time.sleep(1.5)
            self.send(200, answer(d, model, "Slow but here.", [], "stop", False))
        elif scen == "stall":
            full = json.dumps(answer(d, model, "Hello", [], "stop", False)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(full)))
            self.end_headers()
            self.wfile.write(full[:10])
            self.wfile.flush()
            time.sleep(30)
            self.close_connection = True
        elif scen == "bigbody":
            self.send(200, answer(d, model, "x" * (2 << 20), [], "stop", False))
        else:
            self.send(200, answer(d, model, "Hello from the fake %s provider." % d, [], "stop", False))


    def stream_answer(self, d, model, user, results, scen, body):
        ctype = "application/x-ndjson" if d == "ollama" else "text/event-stream"
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        key = (self.path, scen)
        if results is not None:
            whole = answer(d, model, "Results: " + " | ".join(str(r) for r in results), [], "stop", False)
        elif scen in ("single", "parallel", "stream-interleave", "stream-badargs"):
            whole = answer(d, model, None if scen == "single" else "Checking both cities.",
                           WEATHER[:1] if scen == "single" else WEATHER, "stop", scen == "single")
        elif scen == "length":
            whole = answer(d, model, "The weather in Par", [], "length", False)
        elif scen == "filter":
            whole = answer(d, model, "", [], "filter", False)
        elif scen in ("ratelimit", "e500", "auth"):
            status = {"ratelimit": 429, "e500": 500, "auth": 401}[scen]
            if scen != "ratelimit" or first_time(key):
                self.send(status, error_body(d, status, "Refused before the stream"), headers=[("Retry-After", "0")])
                return
            whole = answer(d, model, "Served after the rate limit.", [], "stop", False)
        else:
            whole = answer(d, model, "Hello from the fake %s provider." % d, [], "stop", False)
        events = stream_events(d, whole, usage, interleave=scen == "stream-interleave", bad_args=scen == "stream-badargs")
        if scen == "stream-cut" and not first_time(key):
            self.send_stream(events, ctype=ctype)
        elif scen in ("stream-cut", "stream-cut-always"):
            self.send_stream(events, cut_after=len(events) // 2, ctype=ctype)
        elif scen == "stream-stall":
            self.send_stream(events, stall_after=2, ctype=ctype)
        elif scen == "stream-error":
            self.send_stream(events[:2] + [stream_error(d)], ctype=ctype)
        elif scen == "drip":
            self.send_stream(events, ctype=ctype, gap=0.15)
        elif scen == "stream-badjson":
            self.send_stream(events[:1] + [sse("{\"choices\": [", crlf=d == "gemini") if d != "ollama"
                                           else b'{"message": {\n'] + events[1:], ctype=ctype)
        else:
            self.send_stream(events, ctype=ctype)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # clients that hang up early (timeouts, caps) are part of the tests


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True, help="where to write the port it listens on")
    ap.add_argument("--log", help="JSONL file receiving every request")
    ap.add_argument("--delay-ms", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=600)
    ARGS = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    with open(ARGS.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.replace(ARGS.port_file + ".tmp", ARGS.port_file)
    t = threading.Timer(ARGS.max_seconds, srv.shutdown)
    t.daemon = True
    t.start()
    try:
        srv.serve_forever()
    finally:
        srv.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()

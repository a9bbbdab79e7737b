#!/usr/bin/env python3
"""Holds N conversations (one chat-sync turn each) on 8 keep-alive connections and prints the
server's resident memory before and after. usage: many.py PORT PID N"""
import http.client
import json
import sys
import threading

port, pid, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])


def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


before = rss()
body = json.dumps({"message": "weather in Paris"})
errors = []


def worker(k):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(k):
        c.request("POST", "/agent-api/chat-sync", body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        if r.status != 200:
            errors.append(r.status)
    c.close()


ts = [threading.Thread(target=worker, args=(n // 8,)) for _ in range(8)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(f"{before} {rss()} {len(errors)}")

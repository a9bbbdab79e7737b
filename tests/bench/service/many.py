#!/usr/bin/env python3
"""Holds N conversations (one chat-sync turn each) on 8 keep-alive connections and prints the
server's resident memory (KiB) before and after, the errors, and the server's CPU time per
conversation in microseconds (user + system, from /proc). usage: many.py PORT PID N"""
import os
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


def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


before = rss()
cpu0 = cpu()
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
print(f"{before} {rss()} {len(errors)} {(cpu() - cpu0) / n * 1e6:.0f}")

#!/usr/bin/env python3
"""Generates realistic tool-use trajectories as JSONL (one forge/agent-eval-harness trajectory per
line) plus the matching tool definitions, for benchmarking `forge check`.
usage: gen_trajectories.py OUT.jsonl TOOLS.json [--mb 77] [--seed 1]"""
import argparse
import json
import random

CITIES = ["Paris", "Rome", "Lima", "Oslo", "Tokyo", "Nairobi", "Austin", "Hanoi", "Porto", "Quito"]
CONDITIONS = ["sunny", "cloudy", "light rain", "overcast", "snow showers", "thunderstorms", "fog"]
ITEMS = ["desk lamp", "standing desk", "office chair", "monitor arm", "usb-c hub", "keyboard", "webcam"]
STATUSES = ["delivered", "shipped", "processing", "cancelled", "returned"]
WORDS = ("the of and to in is you that it he was for on are as with his they at be this have from or one "
         "had by word but not what all were we when your can said there use an each which she do how their "
         "if will up other about out many then them these so some her would make like him into time has look "
         "two more write go see number no way could people my than first water been call who oil its now find").split()

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.",
     "parameters": {"type": "object", "properties": {
         "city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
         "include": {"type": "object", "properties": {"hourly": {"type": "boolean"}, "days": {"type": "number"}}}},
         "required": ["city"]}}},
    {"type": "function", "function": {"name": "search_orders", "description": "Find a customer's orders.",
     "parameters": {"type": "object", "properties": {
         "customer_id": {"type": "string"}, "status": {"type": "array", "items": {"type": "string"}},
         "limit": {"type": "number"}, "filters": {"type": "object", "properties": {"since": {"type": "string", "format": "date"}}}},
         "required": ["customer_id"]}}},
    {"type": "function", "function": {"name": "send_email", "description": "Send an email.",
     "parameters": {"type": "object", "properties": {
         "to": {"type": "string", "format": "email"}, "subject": {"type": "string"}, "body": {"type": "string"},
         "cc": {"type": "array", "items": {"type": "string"}}}, "required": ["to", "subject"]}}},
    {"type": "function", "function": {"name": "search_docs", "description": "Search the knowledge base.",
     "parameters": {"type": "object", "properties": {
         "query": {"type": "string"}, "top_k": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}}},
         "required": ["query"]}}},
]


def sentence(r, n):
    return " ".join(r.choice(WORDS) for _ in range(n)).capitalize() + "."


def weather(r):
    city = r.choice(CITIES)
    args = {"city": city, "unit": r.choice(["celsius", "fahrenheit"]),
            "include": {"hourly": r.random() < 0.5, "days": r.randint(1, 7)}}
    hourly = [{"hour": h, "temp": round(r.uniform(-5, 35), 1), "precip_mm": round(r.uniform(0, 4), 2)}
              for h in range(r.randint(4, 24))]
    res = {"city": city, "temp": round(r.uniform(-5, 35), 1), "condition": r.choice(CONDITIONS),
           "humidity": r.randint(20, 100), "wind": f"{r.randint(0, 60)} km/h", "hourly": hourly}
    text = f"In {city} it is {res['temp']} degrees with {res['condition']}."
    return "get_weather", args, res, text


def orders(r):
    cid = f"C-{r.randint(1000, 99999)}"
    args = {"customer_id": cid, "status": r.sample(STATUSES, r.randint(1, 3)), "limit": r.randint(5, 50),
            "filters": {"since": f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"}}
    lst = [{"order_id": f"ORD-{r.randint(100000, 999999)}", "item": r.choice(ITEMS), "qty": r.randint(1, 4),
            "price": f"${r.randint(5, 900)}.{r.randint(0, 99):02d}", "status": r.choice(STATUSES),
            "address": {"street": f"{r.randint(1, 999)} {r.choice(WORDS).title()} St", "city": r.choice(CITIES)}}
           for _ in range(r.randint(1, 12))]
    res = {"customer_id": cid, "orders": lst, "total": len(lst), "next_page": None}
    first = lst[0]
    text = f"You have {len(lst)} orders; the latest is a {first['item']} ({first['status']})."
    return "search_orders", args, res, text


def email(r):
    to = f"{r.choice(WORDS)}.{r.choice(WORDS)}@example.com"
    args = {"to": to, "subject": sentence(r, 5), "body": " ".join(sentence(r, 12) for _ in range(r.randint(1, 5))),
            "cc": [f"{r.choice(WORDS)}@example.org" for _ in range(r.randint(0, 3))]}
    ok = r.random() < 0.9
    res = {"status": "sent" if ok else "error", "message_id": f"msg-{r.randint(10000, 99999)}"}
    if not ok:
        res["error"] = "mailbox unavailable"
    text = f"I sent the email to {to}." if ok else "Sorry, the email could not be sent."
    return "send_email", args, res, text


def docs(r):
    q = " ".join(r.choice(WORDS) for _ in range(4))
    args = {"query": q, "top_k": r.randint(3, 10), "tags": r.sample(WORDS, 2)}
    hits = [{"title": sentence(r, 4), "snippet": " ".join(sentence(r, 14) for _ in range(2)),
             "score": round(r.random(), 4), "url": f"https://docs.example.com/{r.randint(1, 9999)}"}
            for _ in range(args["top_k"])]
    res = {"query": q, "hits": hits, "took_ms": r.randint(3, 300)}
    text = f"The most relevant page is \"{hits[0]['title']}\": {hits[0]['snippet'][:80]}"
    return "search_docs", args, res, text


MAKERS = [weather, orders, email, docs]


def trajectory(r, n):
    turns = []
    for t in range(1, r.randint(3, 10) + 1):
        turns.append({"turn_id": t, "role": "user", "content": sentence(r, r.randint(6, 20)),
                      "timestamp": f"2026-11-21T10:{t % 60:02d}:00Z"})
        calls, texts = [], []
        for k in range(r.choice([0, 1, 1, 2, 2, 3, 4])):
            name, args, res, text = r.choice(MAKERS)(r)
            if r.random() < 0.03:
                res = None
            if r.random() < 0.03:
                name = "unknown_tool"
            calls.append({"id": f"call_{t}_{k}", "name": name, "arguments": args, "result": res,
                          "latency_ms": r.randint(5, 900), "round": k // 2 + 1})
            texts.append(text if r.random() < 0.85 else sentence(r, 8))
        turns.append({"turn_id": t, "role": "agent", "content": " ".join(texts) or sentence(r, 10),
                      "timestamp": f"2026-11-21T10:{t % 60:02d}:05Z", "latency_ms": r.randint(200, 4000),
                      "tool_calls": calls})
    return {"trajectory_id": f"bench-{n:07d}", "turns": turns,
            "metadata": {"model": "bench", "provider": "scripted", "input_tokens": r.randint(100, 9000),
                         "output_tokens": r.randint(50, 2000)}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("tools")
    ap.add_argument("--mb", type=float, default=77)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = random.Random(a.seed)
    target = int(a.mb * 1e6)
    size = n = 0
    with open(a.out, "w") as f:
        while size < target:
            line = json.dumps(trajectory(r, n), separators=(",", ":")) + "\n"
            f.write(line)
            size += len(line.encode())
            n += 1
    with open(a.tools, "w") as f:
        json.dump(TOOLS, f, indent=1)
    print(f"{n} trajectories, {size / 1e6:.1f} MB -> {a.out}")


if __name__ == "__main__":
    main()

"""Random, often malformed, trajectories in every input shape (forge, OpenAI, Anthropic, bare
values) for robustness tests of forge check: wrong types everywhere, JavaScript corner cases,
Unicode, long strings. usage: random_trajectories.py SEED COUNT  (JSON lines on stdout)"""
import json, random, sys
r = random.Random(int(sys.argv[1]))
def val(d=0):
    k = r.randint(0, 9 if d < 3 else 5)
    if k == 0: return None
    if k == 1: return r.choice([True, False])
    if k == 2: return r.choice([0, 1, 100, -4.9, 1e21, 0.1, 12345, -0.0])
    if k == 3: return r.choice(["", "a", "Sorry, error", "not found", "12/25/2024", "$19.99", "ID: AB-1", "İΣ ok", "{broken", "[1,2]", "sent", "x" * 300, "\u2028not\u2028found", "\\not found"])
    if k == 4: return "".join(r.choice("abcXYZ 0123456789.,-_\n\"\\é€😀") for _ in range(r.randint(0, 20)))
    if k in (5, 6, 7): return {r.choice(["a", "status", "error", "name", "1", "0", "toString", "constructor", "totalCount", "x_y"]): val(d + 1) for _ in range(r.randint(0, 4))}
    return [val(d + 1) for _ in range(r.randint(0, 4))]
def call():
    c = {}
    for key in ["name", "arguments", "result", "error", "id", "round"]:
        if r.random() < 0.8:
            c[key] = r.choice([val(), "get_weather", "send_email", "", None]) if key == "name" else val()
    return c
def turn(i):
    t = {"turn_id": r.choice([i, i, str(i), None, 1.5]), "role": r.choice(["user", "agent", "agent", "tool", None]), "content": r.choice([val(), "It is 18 degrees, sorry here it is", None])}
    if r.random() < 0.8:
        t["tool_calls"] = r.choice([[call() for _ in range(r.randint(0, 4))], None, {}, "x"])
    return t
for n in range(int(sys.argv[2])):
    kind = r.random()
    if kind < 0.7:
        doc = {"trajectory_id": str(n), "turns": [turn(i) for i in range(r.randint(0, 6))]}
    elif kind < 0.8:
        doc = [{"role": r.choice(["user", "assistant", "tool"]), "content": val(), "tool_call_id": r.choice(["c1", None]), "tool_calls": [{"id": "c1", "function": {"name": val(), "arguments": r.choice(["{}", "{bad", val()])}}]} for _ in range(r.randint(0, 4))]
    elif kind < 0.9:
        doc = [{"role": r.choice(["user", "assistant"]), "content": [{"type": r.choice(["text", "tool_use", "tool_result"]), "id": "t1", "tool_use_id": "t1", "name": val(), "input": val(), "text": val(), "content": val(), "is_error": val()} for _ in range(r.randint(0, 3))]} for _ in range(r.randint(0, 4))]
    else:
        doc = val()
    print(json.dumps(doc))

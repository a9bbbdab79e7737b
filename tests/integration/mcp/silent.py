# MCP servers that misbehave, for the client's tests: usage: silent.py MODE
#   mute: reads and never answers; garbage: answers with non-JSON; die: exits at tools/call;
#   flood: writes a 20 MB line; oldver: speaks protocol 1999-01-01
import json, sys
mode = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if mode == "mute":
        continue
    if mode == "garbage":
        print("this is not json", flush=True)
        continue
    if msg["method"] == "initialize":
        v = "1999-01-01" if mode == "oldver" else msg["params"]["protocolVersion"]
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": v, "capabilities": {},
                          "serverInfo": {"name": "bad", "version": "0"}}}), flush=True)
        print("a line on stderr before dying", file=sys.stderr, flush=True)
    elif msg["method"] == "tools/call":
        if mode == "die":
            sys.exit(3)
        if mode == "flood":
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [
                {"type": "text", "text": "x" * (20 << 20)}]}}) + "\n")
            sys.stdout.flush()

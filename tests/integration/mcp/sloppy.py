# An MCP server (stdio) with the mistakes forge mcp check looks for.
import json, sys
TOOLS = [
    {"name": "bad name!", "description": "A tool whose name has a space and a bang in it.", "inputSchema": {"type": "object"}},
    {"name": "twice", "description": "The first of two tools with one name.", "inputSchema": {"type": "object"}},
    {"name": "twice", "description": "The second of two tools with one name.", "inputSchema": {"type": "object"}},
    {"name": "mute", "inputSchema": {"type": "object"}},
    {"name": "broken_schema", "description": "Its input schema does not compile at all.",
     "inputSchema": {"type": "object", "properties": {"x": {"type": 5}}}},
    {"name": "contradiction", "description": "Says it only reads and that it destroys.", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True, "destructiveHint": True}},
    {"name": "dotted.name", "description": "Valid for MCP, refused by the providers.", "inputSchema": {"type": "object"}},
    {"name": "promises", "description": "Declares an output schema and keeps it, or not.", "inputSchema": {"type": "object"},
     "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    r = None
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "sloppy", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": TOOLS}
    elif m["method"] == "tools/call":
        a = m["params"].get("arguments") or {}
        if a.get("mode") == "none":
            r = {"content": [{"type": "text", "text": "no structured content"}]}
        elif a.get("mode") == "wrong":
            r = {"content": [{"type": "text", "text": "{}"}], "structuredContent": {"n": "seven"}}
        else:
            r = {"content": [{"type": "text", "text": "{\"n\": 7}"}], "structuredContent": {"n": 7}}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)

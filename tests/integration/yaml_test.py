#!/usr/bin/env python3
"""YAML beside JSON: eval files and PromptKit tool descriptors.

usage: yaml_test.py FORGE_BIN

- evals/get_weather.golden.yaml (the YAML twin of get_weather.golden.json) scores the same
  transcripts exactly as the JSON file does (JSON report equal but for the suite name);
- forge.evals reads YAML in a Lua suite, and its validation errors name file:line:col;
- PromptKit tool descriptors run as tools with --tools FILE.yaml: the example suite, a live HTTP
  tool against a local server (POST by default, arguments as the JSON body, redact,
  output_schema), offline argument schemas, and every refusal with its file:line:col message.
Prints "N passed, N failed"; exits 1 when a check failed."""
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FORGE = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="forge-yaml-")
ENV = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
PASSED = FAILED = 0


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


def run(*args, cwd=ROOT):
    p = subprocess.run([FORGE, *args], capture_output=True, text=True, env=ENV, timeout=120, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def expect_error(name, args, want, cwd=ROOT):
    code, out, err = run(*args, cwd=cwd)
    check(name, code == 2 and err == f"forge: {want}\n", f"exit {code}\n  got:  {err!r}\n  want: {want!r}")


# ---- eval files: YAML scores exactly as JSON ----
reports = {}
for ext in ("json", "yaml"):
    rep = os.path.join(WORK, f"golden-{ext}.json")
    code, out, err = run("run", f"evals/get_weather.golden.{ext}", "--transcripts",
                         "evals/get_weather.transcripts.jsonl", "--seed", "evals/seed-manifest.json",
                         "--tools", "evals/tools.json", "--assertions", "evals/weather_assertions.lua",
                         "--report", f"json={rep}", "-q")
    check(f"golden.{ext}: exit 1 (one case fails on purpose)", code == 1, err)
    with open(rep) as f:
        reports[ext] = json.load(f)
for r in reports.values():
    for c in r["cases"]:
        c.pop("suite", None)
check("the YAML eval file's report equals the JSON file's", reports["json"] == reports["yaml"],
      json.dumps(reports["yaml"])[:400])
check("4 cases, 3 pass", reports["yaml"]["summary"].get("passed") == 3 and len(reports["yaml"]["cases"]) == 4,
      json.dumps(reports["yaml"]["summary"]))

# ---- forge.evals reads YAML ----
write("cases.yaml", """\
- id: lua-1
  input: {message: weather in Paris}
  expect:
    toolsCalled: [get_weather]
    responseContains: [Paris]
""")
write("suite.lua", """\
local forge = require "forge"
return forge.suite {
  name = "yaml-cases",
  model = forge.scripted { { match = "weather in (\\\\w+)", calls = { { name = "get_weather", arguments = { city = "$1" } } },
                             reply = "Sunny in $1." } },
  tools = { forge.tool { name = "get_weather", schema = { type = "object" }, mock = { ok = true } } },
  cases = forge.evals("cases.yaml"),
}
""")
code, out, err = run("script", os.path.join(WORK, "suite.lua"))
check("forge.evals(\"cases.yaml\"): the suite runs and passes", code == 0 and "1/1 passed" in out, out + err)
write("bad.yaml", "- id: lua-1\n  expect:\n    toolsCaled: [x]\n")
write("badsuite.lua", 'local forge = require "forge"\nlocal c = forge.evals("bad.yaml")\n')
code, out, err = run("script", os.path.join(WORK, "badsuite.lua"))
check("forge.evals: a YAML validation error names file:line:col",
      code == 2 and 'forge.evals: bad.yaml:3:5: [0].expect.toolsCaled: unknown key "toolsCaled" (did you mean '
      '"toolsCalled"?)' in err, err)
write("badsyntax.lua", 'local forge = require "forge"\nlocal c = forge.evals("syntax.yaml")\n')
write("syntax.yaml", "- id: a\n  input: {message: x\n")
code, out, err = run("script", os.path.join(WORK, "badsyntax.lua"))
check("forge.evals: a YAML syntax error names file:line:col",
      code == 2 and "forge.evals: syntax.yaml:3:1: invalid YAML: did not find expected ',' or '}'" in err, err)
write("decode.lua", """\
local forge = require "forge"
local v = forge.yaml.decode("a: [1, 0x10, '2', ~]\\nb: &x {c: true}\\nd: *x\\n")
assert(v.a[1] == 1 and v.a[2] == 16 and v.a[3] == "2" and v.a[4] == forge.json.null, "scalars")
assert(v.d.c == true, "alias")
local docs = forge.yaml.decode_all("a: 1\\n---\\nb: 2\\n")
assert(#docs == 2 and docs[2].b == 2, "documents")
local ok, e = pcall(forge.yaml.decode, "a: [1,\\n", "in.yaml")
assert(not ok and e:find("forge.yaml.decode: in.yaml:2:1: invalid YAML", 1, true), e)
print("ok")
""")
code, out, err = run("script", os.path.join(WORK, "decode.lua"))
check("forge.yaml.decode / decode_all", code == 0 and out == "ok\n", out + err)

# an alias bomb of 6 million values (580 MB as cJSON) breaks the script's memory cap before any
# of it is built
write("bomb.lua", """\
local forge = require "forge"
local lines = { 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]' }
local prev = "a"
for _, n in ipairs({ "b", "c", "d", "e", "f", "g" }) do
  lines[#lines + 1] = n .. ": &" .. n .. " [" .. ("*" .. prev .. ","):rep(8) .. "*" .. prev .. "]"
  prev = n
end
forge.yaml.decode(table.concat(lines, "\\n"), "bomb.yaml")
""")
code, out, err = run("script", os.path.join(WORK, "bomb.lua"))
check("forge.yaml.decode: an alias bomb breaks --lua-memory before it is built",
      code == 2 and "memory limit exceeded: the script needed more than 256 MiB; raise it with --lua-memory MIB" in err,
      err)

# ---- PromptKit tool descriptors ----
code, out, err = run("run", "evals/promptkit/weather.golden.yaml", "--tools", "evals/promptkit/weather.tools.yaml",
                     "--model", "scripted:evals/promptkit/rules.lua", "-q")
check("the PromptKit example: 2/2 pass (template mock and static mock)", code == 0 and "2/2 passed" in out, out + err)

# offline: --tools with descriptors gives argsMatchSchema the input_schema
write("offline.yaml", """\
- id: o-1
  input: {message: x}
  expect: {argsMatchSchema: true}
- id: o-2
  input: {message: x}
  expect: {argsMatchSchema: true}
""")
traj = lambda cid, args: json.dumps({"trajectory_id": cid, "turns": [
    {"turn_id": 1, "role": "user", "content": "x"},
    {"turn_id": 1, "role": "agent", "content": "y", "tool_calls": [
        {"id": "c1", "name": "get_forecast", "arguments": args, "result": {}, "round": 1}]}]})
write("offline.jsonl", traj("o-1", {"city": "Oslo", "days": 3}) + "\n" + traj("o-2", {"city": "Oslo", "days": 9}) + "\n")
code, out, err = run("run", os.path.join(WORK, "offline.yaml"), "--transcripts", os.path.join(WORK, "offline.jsonl"),
                     "--tools", "evals/promptkit/weather.tools.yaml")
check("offline: input_schema checks arguments (days 9 > maximum 7)",
      code == 1 and "✓ o-1" in out and "✗ o-2" in out and "1/2 passed" in out, out + err)


class Handler(http.server.BaseHTTPRequestHandler):
    seen = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        Handler.seen.append((self.command, self.path, body))
        args = json.loads(body or "{}")
        if self.path == "/bad":
            data = json.dumps({"city": args.get("city")})  # no temp_c: breaks output_schema
        else:
            data = json.dumps({"city": args.get("city"), "temp_c": 21, "secret": "s3"})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())

    do_GET = do_POST


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]

LIVE = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Tool
metadata: {name: get_weather}
spec:
  description: Current weather.
  mode: live
  input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
  output_schema: {type: object, required: [city, temp_c]}
  http:
    url: http://127.0.0.1:%d%s
    redact: [secret]
"""
write("live.tools.yaml", LIVE % (port, "/weather"))
write("livebad.tools.yaml", LIVE % (port, "/bad"))
write("live.yaml", """\
- id: live-1
  input: {message: weather in Rome}
  expect:
    toolsCalled: [get_weather]
    noToolErrors: true
    responseContains: ["Rome: 21", "[REDACTED]"]
""")
write("rules.lua", """\
local forge = require "forge"
return forge.scripted {
  { match = "weather in (\\\\w+)", calls = { { name = "get_weather", arguments = { city = "$1" } } },
    reply = function(ctx)
      if ctx.results[1].error then return "error: " .. ctx.results[1].error end
      return ctx.result.city .. ": " .. ctx.result.temp_c .. " " .. ctx.result.secret
    end },
}
""")
code, out, err = run("run", os.path.join(WORK, "live.yaml"), "--tools", os.path.join(WORK, "live.tools.yaml"),
                     "--model", "scripted:" + os.path.join(WORK, "rules.lua"), "-q")
check("mode live: the HTTP executor runs, result redacted", code == 0 and "1/1 passed" in out, out + err)
check("mode live: POST (PromptKit's default) with the arguments as the JSON body",
      Handler.seen and Handler.seen[0][:2] == ("POST", "/weather") and json.loads(Handler.seen[0][2]) == {"city": "Rome"},
      repr(Handler.seen))
rep = os.path.join(WORK, "livebad.json")
code, out, err = run("run", os.path.join(WORK, "live.yaml"), "--tools", os.path.join(WORK, "livebad.tools.yaml"),
                     "--model", "scripted:" + os.path.join(WORK, "rules.lua"), "-q", "--report", f"json={rep}")
check("output_schema: a result that breaks it is the tool's error",
      code == 1 and "result of tool 'get_weather' does not match its output_schema" in out, out + err)

# every refusal names file:line:col
HEAD = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Tool\nmetadata:\n  name: t\n"
SPEC = ("spec:\n  description: d\n  input_schema: {type: object}\n  output_schema: {type: object}\n")
bad = {
    "unknown spec key": (HEAD + SPEC + "  mock_reslt: {a: 1}\n",
                         '{f}:9:3: spec.mock_reslt: unknown key "mock_reslt" (did you mean "mock_result"?)'),
    "unknown top key": (HEAD + SPEC + "specs: {}\n", '{f}:9:1: specs: unknown key "specs" (did you mean "spec"?)'),
    "kind": (HEAD.replace("kind: Tool", "kind: Prompt") + SPEC,
             '{f}:2:7: kind: expected "Tool" (a PromptKit tool descriptor), got Prompt'),
    "no name": ("apiVersion: v1\nkind: Tool\nmetadata: {labels: {a: b}}\n" + SPEC,
                "{f}:3:11: metadata.name: missing: a non-empty string naming the tool"),
    "no output_schema": (HEAD + "spec:\n  description: d\n  input_schema: {type: object}\n",
                         "{f}:6:3: spec.output_schema: missing: PromptKit requires input_schema and output_schema"),
    "no description": (HEAD + "spec:\n  input_schema: {}\n  output_schema: {}\n",
                       "{f}:6:3: spec.description: missing: PromptKit requires a non-empty description"),
    "schema type": (HEAD + "spec:\n  description: d\n  input_schema: [a]\n  output_schema: {}\n",
                    "{f}:7:17: spec.input_schema: expected a JSON Schema (a mapping)"),
    "go template action": (HEAD + SPEC + "  mock_template: '{{if .x}}a{{end}}'\n",
                           '{f}:9:18: spec.mock_template: the action "{{if .x}}" is a Go template action forge does '
                           'not run (a template may use field substitutions such as {{.city}}; for logic, give the tool '
                           'a Lua template function)'),
    "mode mcp": (HEAD + SPEC + "  mode: mcp\n",
                 '{f}:9:9: spec.mode: "mcp" is not run by forge: mode is mock or live (connect MCP servers with --mcp '
                 'NAME=COMMAND)'),
    "live without http": (HEAD + SPEC + "  mode: live\n", "{f}:9:9: spec.http: mode live needs http (url, method, ...)"),
    "http mapping": (HEAD + SPEC + "  mode: live\n  http:\n    url: http://x/\n    request: {body_mapping: a}\n",
                     '{f}:12:5: spec.http: "request" (PromptKit\'s request/response mappings) is not supported by forge: '
                     'map arguments with {{param}} in the url or give the tool a Lua run function'),
    "http without live": (HEAD + SPEC + "  http: {url: http://x/}\n",
                          "{f}:9:3: spec.http: is used only with mode: live (this tool's mode is mock)"),
    "exec": (HEAD + SPEC + "  exec: {command: ls}\n",
             '{f}:9:3: spec: "exec" is not supported by forge (give the tool mock_result, mock_template or http, or '
             'define it in Lua)'),
    "spec.name differs": (HEAD + SPEC + "  name: other\n",
                          '{f}:9:9: spec.name: differs from metadata.name "t" (PromptKit names the tool by metadata.name)'),
    "missing mock_result_file": (HEAD + SPEC + "  mock_result_file: nope.json\n", None),
    "bad http url": (HEAD + SPEC + "  mode: live\n  http: {url: 'ftp://x/'}\n", None),
    "yaml syntax": (HEAD + "spec: [\n", None),
    "duplicate tool": (HEAD + SPEC + "---\n" + HEAD + SPEC, "{f}:14:1: spec: tool 't' is defined twice"),
}
for name, (text, want) in bad.items():
    f = write("bad-" + name.replace(" ", "-") + ".yaml", text)
    code, out, err = run("run", "--dry-run", os.path.join(WORK, "offline.yaml"), "--tools", f)
    if want is None:
        # messages from other modules: they name the file and a position
        check(f"PromptKit refusal: {name}", code == 2 and err.startswith(f"forge: {f}:"), err)
    else:
        expect_error(f"PromptKit refusal: {name}", ["run", "--dry-run", os.path.join(WORK, "offline.yaml"), "--tools", f],
                     want.replace("{f}", f).replace("{{param}}", "{param}"))
code, out, err = run("run", "--dry-run", os.path.join(WORK, "offline.yaml"), "--tools",
                     os.path.join(WORK, "bad-missing-mock_result_file.yaml"))
check("mock_result_file: the missing file is named", "nope.json" in err and ":9:21: spec.mock_result_file:" in err, err)

# forge check --tools reads the descriptors' names and input schemas
write("check.json", json.dumps({"trajectory_id": "c", "turns": [
    {"turn_id": 1, "role": "user", "content": "weather in Oslo and the news"},
    {"turn_id": 1, "role": "agent", "content": "Oslo: 18 and cloudy.", "tool_calls": [
        {"id": "1", "name": "get_weather", "arguments": {"city": "Oslo"}, "result": {"temp_c": 18}, "round": 1},
        {"id": "2", "name": "get_news", "arguments": {}, "result": {}, "round": 1}]}]}))
code, out, err = run("check", "--tools", "evals/promptkit/weather.tools.yaml", os.path.join(WORK, "check.json"))
check("forge check --tools FILE.yaml: descriptors are known tools, others are not",
      'Unknown tool: "get_news"' in out and 'Unknown tool: "get_weather"' not in out, out + err)

# a JSON manifest loads too (without positions)
write("tool.json", json.dumps({"apiVersion": "promptkit.altairalabs.ai/v1alpha1", "kind": "Tool",
                               "metadata": {"name": "get_forecast"},
                               "spec": {"description": "d", "input_schema": {"type": "object", "required": ["days"]},
                                        "output_schema": {"type": "object"}, "mock_result": {"ok": 1}}}))
code, out, err = run("run", os.path.join(WORK, "offline.yaml"), "--transcripts", os.path.join(WORK, "offline.jsonl"),
                     "--tools", os.path.join(WORK, "tool.json"))
check("a JSON PromptKit manifest loads as a tool (its input_schema requires days)",
      code == 0 and "2/2 passed" in out, out + err)
write("tool-bad.json", json.dumps({"apiVersion": "v1", "kind": "Tool", "metadata": {"name": "x"},
                                   "spec": {"descripton": "d"}}))
expect_error("a JSON manifest's error names the file and key",
             ["run", "--dry-run", os.path.join(WORK, "offline.yaml"), "--tools", os.path.join(WORK, "tool-bad.json")],
             f'{WORK}/tool-bad.json: spec.descripton: unknown key "descripton" (did you mean "description"?)')

server.shutdown()
shutil.rmtree(WORK, ignore_errors=True)
print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)

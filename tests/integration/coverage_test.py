#!/usr/bin/env python3
"""forge coverage, forge gen evals and forge gen verifiers on a hand-made tool set with known gaps.

usage: coverage_test.py FORGE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "coverage")
FORGE = os.path.abspath(sys.argv[1])
failures = 0


def check(name, got, want):
    global failures
    if got != want:
        failures += 1
        print(f"FAIL {name}:\n  got  {got!r}\n  want {want!r}")
    else:
        print(f"ok   {name}")


def forge(*args, cwd=HERE):
    p = subprocess.run([FORGE, *args], cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


SHOP = ["tools.lua", "shop.golden.json", "shop.labeled.json"]
GHOST = ("forge: coverage: warning: shop.labeled.json: case 'ls-ghost-004': an expected tool names "
         "'get_wether', which is not a tool of TOOLS\n")


def coverage_reports():
    for fmt, ext in (("text", "txt"), ("json", "json"), ("md", "md")):
        rc, out, err = forge("coverage", *SHOP, "--format", fmt)
        check(f"coverage --format {fmt}: exit 0", rc, 0)
        check(f"coverage --format {fmt}: output", out, read(os.path.join(HERE, "expected", f"shop.{ext}")))
        check(f"coverage --format {fmt}: the unknown tool is a warning", err, GHOST)
    rep = json.loads(read(os.path.join(HERE, "expected", "shop.json")))
    # the figures worked out by hand: 4 tools x 5 items, 1 overlapping pair, 5 enum values, 4 optional arguments
    check("figure", (rep["covered"], rep["items"]), (17, 30))
    check("gaps by kind", sorted({g["kind"] for g in rep["gaps"]}),
          ["enum", "golden", "not_called", "optional", "overlap", "verifier"])
    check("the overlap", rep["overlaps"], [{"tools": ["search_web", "search_news"], "similarity": 0.5, "declared": False, "separating": 0,
                                           "shared": ["page", "search", "topic", "web"], "separated_by": []}])

    rc, out, err = forge("coverage", *SHOP, "--min-coverage", "0.56")
    check("--min-coverage 0.56: exit 0", rc, 0)
    rc, out, err = forge("coverage", *SHOP, "--min-coverage", "0.6")
    check("--min-coverage 0.6: exit 1", rc, 1)
    check("--min-coverage 0.6: says so", err.splitlines()[-1], "forge: coverage: 56.7% is below --min-coverage 0.6")

    rc, out, _ = forge("coverage", *SHOP, "--format", "json", "--ignore", "verifier,overlap")
    rep = json.loads(out)
    check("--ignore verifier,overlap: figure", (rep["covered"], rep["items"]), (16, 25))
    check("--ignore verifier,overlap: kinds", list(rep["kinds"]),
          ["golden", "labeled", "called", "not_called", "enum", "optional"])
    check("--ignore verifier,overlap: no such gaps", [g for g in rep["gaps"] if g["kind"] in ("verifier", "overlap")], [])
    check("--ignore verifier,overlap: no overlaps", rep["overlaps"], [])

    rc, out, _ = forge("coverage", *SHOP, "--format", "json", "--overlap-threshold", "0.51")
    check("--overlap-threshold 0.51: no overlap", (rc, json.loads(out)["overlaps"]), (0, []))

    # which labeled cases separate two tools
    with tempfile.TemporaryDirectory() as d:
        sep = os.path.join(d, "sep.labeled.json")
        with open(sep, "w") as f:
            json.dump([
                {"id": "ls-sep-001", "input": {"message": "web pages only"},
                 "expect": {"toolsAcceptable": [["search_web"], ["search_web", "search_news"]]}},
                {"id": "ls-sep-002", "input": {"message": "both"}, "expect": {"toolsCalled": ["search_web", "search_news"]}},
                {"id": "ls-sep-003", "input": {"message": "either"},
                 "expect": {"toolsAcceptable": [["search_news"], ["search_web"]], "toolsNotCalled": ["send_email"]}},
                {"id": "ls-sep-004", "input": {"message": "news, not the web"},
                 "expect": {"toolsCalled": "search_news", "toolsNotCalled": ["search_web"]}},
                {"id": "ls-sep-005", "input": {"message": "not the web"}, "expect": {"toolsNotCalled": ["search_web"]}},
                {"id": "gs-sep-006", "input": {"message": "web"}, "expect": {"toolsCalled": ["search_web"]}},
            ], f)
        rc, out, _ = forge("coverage", *SHOP, sep, "--format", "json")
        rep = json.loads(out)
        check("separated by the asymmetric labeled cases only", rep["overlaps"][0]["separated_by"],
              ["ls-sep-001", "ls-sep-004", "gs-sep-006"])
        check("overlap covered", rep["kinds"]["overlap"], {"covered": 1, "items": 1})
        check("gs- id in a .labeled. file is labeled (file name first)",
              [t["labeled"] for t in rep["tools"] if t["name"] == "search_web"], [7])

    # agent-tool-forge's overlap map: declared pairs and clusters
    rc, out, _ = forge("coverage", *SHOP, "--overlap-map", "overlap-map.json", "--format", "json")
    rep = json.loads(out)
    check("overlap map: figure", (rc, rep["covered"], rep["items"]), (0, 18, 32))
    check("overlap map: pairs", [(p["tools"], p["similarity"], p["declared"], p["separated_by"]) for p in rep["overlaps"]], [
        (["search_web", "search_news"], 0.5, True, []),
        (["search_news", "get_weather"], 0, True, ["ls-search-001", "ls-weather-003"])])
    check("overlap map: clusters (deduplicated, sorted)", rep["clusters"],
          [{"tools": ["search_news", "search_web", "send_email"], "covered_by": [], "covering": 0}])
    check("overlap map: the cluster gap", [g for g in rep["gaps"] if g["kind"] == "cluster"],
          [{"kind": "cluster", "tool": "search_news", "tools": ["search_news", "search_web", "send_email"]}])
    with tempfile.TemporaryDirectory() as d:
        cl = os.path.join(d, "cl.labeled.json")
        with open(cl, "w") as f:
            json.dump([{"id": "ls-cl-001", "input": {"message": "research and mail"},
                        "expect": {"toolsCalled": ["search_web", "search_news"], "toolsNotCalled": ["send_email"]}},
                       {"id": "ls-cl-002", "input": {"message": "two of three"}, "expect": {"toolsCalled": ["search_web", "send_email"]}}], f)
        rc, out, _ = forge("coverage", *SHOP, cl, "--overlap-map", "overlap-map.json", "--format", "json")
        check("overlap map: a labeled case naming the whole cluster covers it", json.loads(out)["clusters"][0]["covered_by"], ["ls-cl-001"])
    rc, out, _ = forge("coverage", *SHOP, "--overlap-map", "overlap-map.json")
    check("overlap map: text", [l for l in out.splitlines() if "declared" in l or l.startswith("clusters") or "covered by" in l], [
        "  search_web ~ search_news  0.500 (declared)  shared: page, search, topic, web  separated by: none",
        "  search_news ~ get_weather  0.000 (declared)  shared: -  separated by: ls-search-001, ls-weather-003",
        "clusters",
        "  search_news, search_web, send_email  covered by: none"])

    # a pair lists its first 10 separating cases and counts them all
    with tempfile.TemporaryDirectory() as d:
        many = os.path.join(d, "many.labeled.json")
        with open(many, "w") as f:
            json.dump([{"id": f"ls-m-{i:02}", "input": {"message": "m"}, "expect": {"toolsCalled": ["search_news"]}}
                       for i in range(12)], f)
        rc, out, _ = forge("coverage", *SHOP, many, "--format", "json")
        pair = json.loads(out)["overlaps"][0]
        check("12 separating cases: 10 listed, 12 counted", (pair["separated_by"], pair["separating"]),
              ([f"ls-m-{i:02}" for i in range(10)], 12))
        rc, out, _ = forge("coverage", *SHOP, many)
        check("12 separating cases: text", [l for l in out.splitlines() if " ~ " in l and "separated" in l],
              ["  search_web ~ search_news  0.500  shared: page, search, topic, web  separated by: "
               + ", ".join(f"ls-m-{i:02}" for i in range(10)) + " (2 more)"])

    # an MCP tools/list result: no verifiers
    rc, out, err = forge("coverage", "tools.mcp.json", "shop.golden.json", "--format", "json")
    rep = json.loads(out)
    check("MCP tools: tools", [t["name"] for t in rep["tools"]], ["search_web", "search_news"])
    check("MCP tools: no verifiers", rep["kinds"]["verifier"], {"covered": 0, "items": 2})
    check("MCP tools: overlap without trigger phrases", rep["overlaps"][0]["similarity"], 0.8)
    rc, out, err = forge("coverage", "tools.mcp.json", "--verifiers", "expected/verifiers.lua", "--format", "json")
    rep = json.loads(out)
    check("MCP tools + --verifiers: guarded", [(t["name"], t["verifiers"]) for t in rep["tools"]],
          [("search_web", ["search_web_verifier"]), ("search_news", ["search_news_verifier"])])
    rc, out, err = forge("gen", "verifiers", "--tools", "tools.mcp.json", "--verifiers", "expected/verifiers.lua")
    check("gen verifiers: nothing unguarded", (rc, out, err), (0, "", "forge: gen verifiers: every tool has a verifier: nothing to write\n"))


def bad_input():
    with tempfile.TemporaryDirectory() as d:
        def w(name, text):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            return os.path.join(d, name)
        syntax = w("syntax.json", '[\n  {"id": "a", "input": {"message": "x"}\n]\n')
        unknown = w("unknown.json", '[\n  {"id": "a", "input": {"message": "x"},\n   "expect": {"toolsCaled": ["x"]}}\n]\n')
        dup = w("dup.json", '[{"id": "gs-search_web-001", "input": {"message": "x"}}]')
        badtools = w("tools.json", '[{"name": "x", "description": 1,]')
        badlua = w("tools.lua", 'error("no tools here")\n')
        cases = [
            (["coverage"], "forge: coverage: no tools given (usage: forge coverage TOOLS [EVALS...])"),
            (["coverage", "tools.lua", syntax], f"forge: coverage: {syntax}:3:1: invalid JSON"),
            (["coverage", "tools.lua", unknown],
             f"forge: coverage: {unknown}:3:15: [0].expect.toolsCaled: unknown key \"toolsCaled\" (did you mean \"toolsCalled\"?)"),
            (["coverage", "tools.lua", "shop.golden.json", dup],
             f"forge: coverage: {dup}: case id \"gs-search_web-001\" is also in shop.golden.json (ids must be unique across the files)"),
            (["coverage", badtools], f"forge: coverage: {badtools}:1:33: invalid JSON"),
            (["coverage", "tools.lua", "--format", "xml"], "forge: coverage: --format: 'xml' is not text, json or md"),
            (["coverage", "tools.lua", "--min-coverage", "1.5"], "forge: coverage: --min-coverage takes a number from 0 to 1, not '1.5'"),
            (["coverage", "tools.lua", "--overlap-threshold", "0"], "forge: coverage: --overlap-threshold takes a number above 0 to 1, not '0'"),
            (["coverage", "tools.lua", "--ignore", "golden,nope"],
             "forge: coverage: --ignore: unknown kind 'nope' (the kinds: golden, labeled, called, not_called, verifier, overlap, cluster, enum, optional)"),
            (["coverage", "tools.lua", "--min-coverage"], "forge: coverage: --min-coverage needs a value"),
            (["coverage", "tools.mcp.json", "--verifiers", "tools.mcp.json"],
             "forge: coverage: --verifiers tools.mcp.json: expected a Lua file (forge.verifier{...})"),
            (["coverage", "tools.mcp.json", "--verifiers", badlua], f"forge: coverage: {badlua}:1: no tools here"),
            (["coverage", "tools.lua", "--overlap-map", w("m1.json", '{"get_weather": {"overlaps": ["nope"]}}')],
             f"forge: coverage: --overlap-map {d}/m1.json: get_weather.overlaps[0]: not a tool of TOOLS"),
            (["coverage", "tools.lua", "--overlap-map", w("m2.json", '{"ghost": {}}')],
             f"forge: coverage: --overlap-map {d}/m2.json: ghost: not a tool of TOOLS"),
            (["coverage", "tools.lua", "--overlap-map", w("m3.json", '{"get_weather": {"clusters": [["get_weather", "get_weather"]]}}')],
             f"forge: coverage: --overlap-map {d}/m3.json: get_weather.clusters[0]: a cluster needs two tools or more"),
            (["coverage", "tools.lua", "--overlap-map", w("m4.json", '{"get_weather": {"overlap": []}}')],
             f"forge: coverage: --overlap-map {d}/m4.json: get_weather: unknown key \"overlap\" (overlaps, clusters, reason)"),
            (["coverage", "tools.lua", "--overlap-map", w("m5.json", '{"get_weather":\n  {"overlaps": [}}')],
             f"forge: coverage: --overlap-map {d}/m5.json:2:17: "),
            (["coverage", "tools.lua", "--frobnicate"], "forge: coverage: unknown option '--frobnicate' (run 'forge help coverage')"),
            (["coverage", "tools.lua", "missing.json"], "forge: coverage: missing.json: "),
            (["gen"], "forge: gen: name what to generate: evals or verifiers (run 'forge help gen')"),
            (["gen", "tests"], "forge: gen: unknown subcommand 'tests': evals or verifiers (run 'forge help gen')"),
            (["gen", "evals", "--tools", "tools.lua"], "forge: gen evals: needs --tools FILE and --model SPEC (run 'forge help gen')"),
            (["gen", "evals", "--tools", "tools.lua", "--model", "scripted:rules.lua", "--max-drafts", "0"],
             "forge: gen evals: --max-drafts takes a whole number from 1 to 100000, not '0'"),
            (["gen", "evals", "--tools", "tools.lua", "--model", "scripted:rules.lua", "--out", "nowhere"],
             "forge: gen evals: --out nowhere: not a folder"),
            (["gen", "verifiers"], "forge: gen verifiers: needs --tools FILE (run 'forge help gen')"),
            (["gen", "verifiers", "--tools", "tools.lua", "--out", "rules.lua"],
             "forge: gen verifiers: --out rules.lua: the file exists; forge gen verifiers never overwrites a file (choose another path)"),
        ]
        for args, msg in cases:
            rc, out, err = forge(*args)
            check(f"bad input {args[1:]}: exit 2", rc, 2)
            check(f"bad input {args[1:]}: message", err.splitlines()[0][:len(msg)] if err else "", msg)
            check(f"bad input {args[1:]}: no output", out, "")
        rc, out, err = forge("coverage", badlua)
        check("a Lua tools file that raises: exit 2", rc, 2)
        check("a Lua tools file that raises: message", "no tools here" in err and badlua in err, True)


def gen_evals():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out")
        os.mkdir(out)
        # an existing file in --out, oddly formatted: its bytes stay, its case counts
        existing = ('[ {"id":"gs-get_weather-007",  "input": {"message": "Weather in Rome?"},\n'
                    '   "expect": {"toolsCalled": ["get_weather"]}}\n]\n\n')
        with open(os.path.join(out, "get_weather.golden.json"), "w") as f:
            f.write(existing)
        args = ["gen", "evals", "--tools", "tools.lua", "--model", "scripted:rules.lua", "--out", out,
                "shop.golden.json", "shop.labeled.json"]
        rc, stdout, err = forge(*args, "--dry-run")
        drafts = json.loads(stdout)
        check("dry run: exit 1 (one gap left open)", rc, 1)
        check("dry run: writes nothing", sorted(os.listdir(out)), ["get_weather.golden.json"])
        check("dry run: drafted cases in order", [(os.path.basename(x["file"]), x["case"]["id"], x["gap"]["kind"]) for x in drafts], [
            ("search_web.labeled.json", "ls-search_web-001", "not_called"),
            ("search_news.golden.json", "gs-search_news-001", "golden"),
            ("search_news.labeled.json", "ls-search_news-001", "not_called"),
            ("get_weather.labeled.json", "ls-get_weather-001", "not_called"),
            ("search_web.labeled.json", "ls-search_web-002", "overlap"),
            ("send_email.golden.json", "gs-send_email-002", "enum"),
            ("send_email.golden.json", "gs-send_email-003", "optional"),
            ("get_weather.golden.json", "gs-get_weather-008", "enum"),
        ])
        check("the overlap case separates the pair", drafts[4]["case"]["expect"],
              {"toolsCalled": ["search_web"], "toolsNotCalled": ["search_news"], "responseNonEmpty": True})
        check("a drafted case in full", drafts[5]["case"], {
            "id": "gs-send_email-002", "description": "drafted for send_email",
            "input": {"message": "A request about send_email"},
            "expect": {"toolsCalled": ["send_email"],
                       "toolParams": [{"tool": "send_email", "paramName": "priority", "assertion": "equals", "value": "low"}],
                       "responseNonEmpty": True},
            "difficulty": "straightforward"})

        rc, stdout, err = forge(*args)
        check("gen evals: exit 1 (one gap left open)", rc, 1)
        check("gen evals: files written", stdout.splitlines(), [
            f"{out}/search_web.labeled.json: 2 new cases",
            f"{out}/search_news.golden.json: 1 new case",
            f"{out}/search_news.labeled.json: 1 new case",
            f"{out}/get_weather.labeled.json: 1 new case",
            f"{out}/send_email.golden.json: 2 new cases",
            f"{out}/get_weather.golden.json: 1 new case",
        ])
        check("gen evals: the gap no answer closed", err.splitlines()[-1],
              'forge: gen evals: no case drafted for "send_email.priority: no case expects the value "normal"": '
              'the case is not valid: expect.toolsCaled: unknown key "toolsCaled" (did you mean "toolsCalled"?)')
        text = read(os.path.join(out, "get_weather.golden.json"))
        check("existing file: its bytes kept", text.startswith(existing.rstrip()[:-1].rstrip() + ","), True)
        check("existing file: case appended", [c["id"] for c in json.loads(text)], ["gs-get_weather-007", "gs-get_weather-008"])
        files = sorted(os.path.join(out, f) for f in os.listdir(out))
        rc, _, err = forge("run", "--dry-run", *files)
        check("written files pass forge run --dry-run", (rc, err), (0, ""))
        rc, stdout, _ = forge("coverage", *SHOP, *files, "--format", "json")
        rep = json.loads(stdout)
        check("coverage after gen", (rep["covered"], rep["items"]), (26, 30))
        check("gaps after gen", [(g["kind"], g["tool"]) for g in rep["gaps"]],
              [("verifier", "search_web"), ("verifier", "search_news"), ("verifier", "get_weather"), ("enum", "send_email")])
        before = {f: read(f) for f in files}
        rc, stdout, err = forge(*args)
        check("second run: nothing new to write", (rc, stdout), (1, ""))
        check("second run: files unchanged", {f: read(f) for f in files}, before)

        rc, stdout, err = forge(*args, "--overlap-map", "overlap-map.json", "--dry-run")
        cluster = [x for x in json.loads(stdout) if x["gap"]["kind"] == "cluster"]
        check("overlap map: the cluster case drafted", [(x["case"]["id"], x["case"]["expect"]["toolsCalled"]) for x in cluster],
              [("ls-search_news-002", ["search_news", "search_web", "send_email"])])

        shutil.rmtree(out)
        os.mkdir(out)
        rc, stdout, err = forge(*args, "--attempts", "1", "--max-drafts", "2")
        check("--attempts 1: the retried gap fails too", [l for l in err.splitlines() if "search_news: no golden" in l],
              ['forge: gen evals: no case drafted for "search_news: no golden case expects it to be called": '
               'the answer holds no JSON object'])
        check("--max-drafts 2: says the limit", "stopped after 2 drafted cases, the limit (raise it with --max-drafts)" in err, True)
        check("--max-drafts 2: two cases", stdout.splitlines(), [
            f"{out}/search_web.labeled.json: 1 new case", f"{out}/search_news.labeled.json: 1 new case"])

        shutil.rmtree(out)
        os.mkdir(out)
        with open(os.path.join(out, "search_web.labeled.json"), "w") as f:
            f.write("[ ]\n")
        rc, stdout, err = forge(*args, "--max-drafts", "1")
        check("an empty existing file: the case appended", [c["id"] for c in json.loads(read(os.path.join(out, "search_web.labeled.json")))],
              ["ls-search_web-001"])
        with open(os.path.join(out, "search_news.golden.json"), "w") as f:
            f.write('{"a": 1}')
        rc, stdout, err = forge(*args)
        check("a bad eval file in --out: exit 2", (rc, stdout), (2, ""))
        check("a bad eval file in --out: named", err.splitlines()[-1],
              f"forge: gen evals: {out}/search_news.golden.json:1:1: an eval file is a JSON array of cases "
              "(agent-tool-forge's format), got object")
        check("a bad eval file in --out: left as it was", read(os.path.join(out, "search_news.golden.json")), '{"a": 1}')


def provider_path():
    """gen evals through the HTTP providers: forge serve plays the scripted drafter in each wire format."""
    with tempfile.TemporaryDirectory() as d:
        port_file = os.path.join(d, "port")
        srv = subprocess.Popen([FORGE, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
                                "--model", "scripted:rules.lua"], cwd=HERE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                if os.path.exists(port_file) and read(port_file).strip():
                    break
                time.sleep(0.05)
            port = read(port_file).strip()
            base = ["gen", "evals", "--tools", "tools.lua", "--dry-run", "shop.golden.json", "shop.labeled.json"]
            _, want, _ = forge(*base, "--model", "scripted:rules.lua")
            env = dict(os.environ, OPENAI_API_KEY="k", ANTHROPIC_API_KEY="k")
            for spec, url in (("openai:drafter", f"http://127.0.0.1:{port}/v1"),
                              ("anthropic:drafter", f"http://127.0.0.1:{port}")):
                p = subprocess.run([FORGE, *base, "--model", spec, "--base-url", url, "--no-cache"], cwd=HERE,
                                   capture_output=True, text=True, env=env)
                check(f"gen evals over {spec}: the same drafts as the scripted model", (p.returncode, p.stdout), (1, want))
        finally:
            srv.terminate()
            srv.wait()
        p = subprocess.run([FORGE, "gen", "evals", "--tools", "tools.lua", "--model", "openai:drafter", "--base-url",
                            f"http://127.0.0.1:{port}/v1", "--no-cache", "--retries", "0", "--out", d],
                           cwd=HERE, capture_output=True, text=True, env=dict(os.environ, OPENAI_API_KEY="k"))
        check("gen evals: a model that cannot be reached: exit 3", p.returncode, 3)
        check("gen evals: a model that cannot be reached: said", p.stderr.startswith("forge: gen evals: the model failed: "), True)
        check("gen evals: a model that cannot be reached: nothing written", sorted(os.listdir(d)), ["port"])


def gen_verifiers():
    rc, out, err = forge("gen", "verifiers", "--tools", "tools.lua")
    check("gen verifiers: exit 0", rc, 0)
    check("gen verifiers: the stubs", out, read(os.path.join(HERE, "expected", "verifiers.lua")))
    rc, out, err = forge("gen", "verifiers", "--tools", "tools.mcp.json")
    check("gen verifiers of JSON tools: one stub per tool", out.count("forge.verifier {"), 2)
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(os.path.join(HERE, "tools.lua"), d)
        path = os.path.join(d, "verifiers.lua")
        rc, out, err = forge("gen", "verifiers", "--tools", "tools.lua", "--out", path)
        check("gen verifiers --out: written", (rc, out), (0, f"{path}: 3 verifier stubs\n"))
        rc, out, err = forge("gen", "verifiers", "--tools", os.path.join(d, "tools.lua"))
        with open(os.path.join(d, "suite.lua"), "w") as f:
            f.write('''local forge = require "forge"
local tools = require "tools"
local stubs = require "verifiers"
return forge.suite {
  name = "stubs", tools = tools,
  model = forge.scripted { { calls = { { name = "get_weather", arguments = { city = "Oslo" } },
                                       { name = "search_web", arguments = { query = "forge" } },
                                       { name = "send_email", arguments = { to = "a@b.c" } } },
                             reply = "done" } },
  cases = { { id = "c1", input = { message = "go" },
              expect = { toolsCalled = { "get_weather", "search_web", "send_email" }, noVerifierBlocks = true } } },
}
''')
        tj = os.path.join(d, "t.jsonl")
        rc, out, err = forge("script", "suite.lua", "--save-transcripts", tj, cwd=d)
        check("stubs in a suite: the case passes", rc, 0)
        calls = json.loads(read(tj).splitlines()[0])["turns"][-1]["tool_calls"]
        check("stubs in a suite: each call verified", [(c["name"], [(k["verifier"], k["outcome"]) for k in c["verifier"]["checks"]]) for c in calls], [
            ("get_weather", [("weather_verifier", "pass")]),
            ("search_web", [("search_web_verifier", "pass")]),
            ("send_email", [("email_sent", "pass")]),
        ])
        text = read(path).replace('''  tools = { "get_weather" },
  order = "U-0003",
  verify = function(call)''', '''  tools = { "get_weather" },
  order = "U-0003",
  verify = function(call)
    if call.result.temp_c > 10 then return "block", "too warm" end''')
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = forge("script", "suite.lua", cwd=d)
        check("an edited stub runs: the case fails", rc, 1)
        check("an edited stub runs: its message", "too warm" in out, True)
        rc, out, err = forge("gen", "verifiers", "--tools", "tools.lua", "--out", path)
        check("gen verifiers never overwrites", (rc, read(path) == text), (2, True))


def hostile_names():
    with tempfile.TemporaryDirectory() as d:
        tools = os.path.join(d, "tools.json")
        with open(tools, "w") as f:
            json.dump([{"name": 'x"]] os.exit() --[[\n<img>', "description": "weather | `x`\u001b[2J",
                        "tags": ["<b>"],
                        "schema": {"type": "object", "properties": {"p": {"enum": ["a|b", "\u001b"]}}}}], f)
        rc, out, err = forge("coverage", tools)
        check("hostile names: no control characters in the table", (rc, "\x1b" in out), (0, False))
        rc, out, err = forge("coverage", tools, "--format", "md")
        check("hostile names: Markdown cells escaped", "a\\|b" in out and "\x1b" not in out, True)
        check("hostile names: Markdown has no raw HTML", "<" in out, False)
        path = os.path.join(d, "v.lua")
        rc, out, err = forge("gen", "verifiers", "--tools", tools, "--out", path)
        check("hostile names: stub written", rc, 0)
        check("hostile names: name is a Lua string", '"x\\"]] os.exit() --[[\\010<img>"' in read(path), True)
        with open(os.path.join(d, "suite.lua"), "w") as f:
            f.write('local v = require "v"\nassert(#v == 1)\nreturn {}\n')
        rc, out, err = forge("script", "suite.lua", cwd=d)
        check("hostile names: the stub file loads", (rc, err), (0, ""))


def example():
    src = os.path.dirname(os.path.dirname(HERE))
    src = os.path.dirname(src)
    tools = os.path.join(src, "scripts", "weather", "tools.lua")
    demo = [os.path.join(src, "evals", "demo", f) for f in ("weather.golden.json", "weather.labeled.json")]
    rc, out, _ = forge("coverage", tools, *demo, "--format", "json")
    rep = json.loads(out)
    check("example: figure", (rc, rep["covered"], rep["items"]), (0, 11, 13))
    rc, out, _ = forge("coverage", tools, *demo, "--overlap-map", os.path.join(src, "scripts", "weather", "overlap-map.json"),
                       "--format", "json")
    rep = json.loads(out)
    check("example: the declared pair is separated by the demo's labeled cases",
          [(p["tools"], p["declared"], p["separated_by"]) for p in rep["overlaps"]],
          [(["get_weather", "get_forecast"], True, ["ls-weather-001", "ls-weather-003", "ls-weather-004"])])
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = forge("gen", "evals", "--tools", tools, "--model",
                             "scripted:" + os.path.join(src, "scripts", "coverage", "draft.lua"), "--out", d, *demo)
        check("example: gen evals", (rc, out, err), (0, f"{d}/get_weather.golden.json: 1 new case\n", ""))
        rc, out, _ = forge("coverage", tools, *demo, os.path.join(d, "get_weather.golden.json"), "--format", "json")
        check("example: only the verifier gap is left", json.loads(out)["gaps"], [{"kind": "verifier", "tool": "get_forecast"}])


coverage_reports()
example()
bad_input()
gen_evals()
provider_path()
gen_verifiers()
hostile_names()
if failures:
    print(f"{failures} failure(s)")
    sys.exit(1)

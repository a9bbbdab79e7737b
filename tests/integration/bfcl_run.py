#!/usr/bin/env python3
"""End-to-end checks of `forge bfcl run` against the fake provider (tests/support/fake_provider.py).

usage: bfcl_run.py FORGE SRC_DIR WORK_DIR

Asks the questions of tests/integration/bfcl/run_data (their texts carry the fake provider's
tags: [single], [parallel], [error400]), checks the request bodies forge sent (BFCL's tool
conversion), the result files, that `forge bfcl score` reads them, and the exit codes.
"""
import json
import os
import shutil
import subprocess
import sys
import time

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def main():
    forge, src, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data = os.path.join(src, "tests", "integration", "bfcl", "run_data")
    port_file, log = os.path.join(work, "port"), os.path.join(work, "requests.jsonl")
    fake = subprocess.Popen([sys.executable, os.path.join(src, "tests", "support", "fake_provider.py"),
                             "--port-file", port_file, "--log", log, "--max-seconds", "100"])
    try:
        for _ in range(250):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.02)
        base = "http://127.0.0.1:%s/v1" % open(port_file).read().strip()
        env = dict(os.environ, OPENAI_API_KEY="sk-test-bfcl-0123456789")
        out = os.path.join(work, "result")

        def run(*args, env=env):
            p = subprocess.run([forge, "bfcl", "run", *args], capture_output=True, text=True, env=env)
            return p.returncode, p.stdout, p.stderr

        code, stdout, stderr = run("--model", "openai:gpt-test", "--base-url", base, "--no-cache",
                                   "--data", data, "--out", out, "-j", "2", "--category",
                                   "simple_python", "parallel", "simple_java", "irrelevance")
        check(code == 0, f"run exited {code}: {stderr}")
        folder = os.path.join(out, "openai_gpt-test", "non_live")
        with open(os.path.join(folder, "BFCL_v4_simple_python_result.json")) as f:
            lines = [json.loads(l) for l in f]
        check([l["id"] for l in lines] == ["simple_python_0", "simple_python_1"], f"ids: {lines}")
        check(lines[0]["result"] == [{"get_weather": "{\"city\":\"Paris\"}"}], f"result 0: {lines[0]}")
        check(lines[1]["result"] == "Hello from the fake openai provider.", f"result 1: {lines[1]}")
        check(lines[0]["input_token_count"] == 11 and lines[0]["output_token_count"] == 7, f"usage: {lines[0]}")
        with open(os.path.join(folder, "BFCL_v4_parallel_result.json")) as f:
            par = json.loads(f.readline())
        check(par["result"] == [{"get_weather": "{\"city\":\"Paris\"}"},
                                {"get_weather": "{\"city\":\"London\",\"unit\":\"celsius\"}"}], f"parallel: {par}")

        bodies = {}
        with open(log) as f:
            for line in f:
                body = json.loads(line)["body"]
                bodies[body["messages"][-1]["content"]] = body
        b = bodies.get("[single] What is the weather in Paris?", {})
        check(b.get("messages", [{}])[0] == {"role": "system", "content": "Be brief."}, f"system: {b.get('messages')}")
        check(b.get("temperature") == 0.001, f"temperature: {b.get('temperature')}")
        props = b["tools"][0]["function"]["parameters"]["properties"]
        check(b["tools"][0]["function"]["parameters"]["type"] == "object", "parameters type")
        check(props["days"] == {"type": "number", "description": "Forecast length. This is a float type value.",
                                "format": "float"}, f"float: {props['days']}")
        check(props["hours"] == {"type": "array", "items": {"type": "integer"}, "description": "Hours of the day."},
              f"array: {props['hours']}")
        add = bodies.get("What is 2 + 3?", {})
        check(add["tools"][0]["function"]["name"] == "math_add", "dotted name")
        check(add["tools"][0]["function"]["description"] ==
              "Adds two numbers. Note that the provided function is in Python 3 syntax.", "python hint")
        java = bodies.get("[single] Weather in Paris?", {})
        jf = java["tools"][0]["function"]
        check(jf["description"] == "Current weather for a city. Note that the provided function is in Java 8 SDK syntax.",
              f"java hint: {jf['description']}")
        check(jf["parameters"]["properties"]["days"] == {
            "type": "string",
            "description": "Days ahead. This is Java ArrayList type parameter in string representation. "
                           "The list elements are of type integer; they are not in string representation."},
              f"java list: {jf['parameters']['properties']['days']}")
        check(jf["parameters"]["properties"]["unit"]["description"] ==
              "The unit. This parameter can be of any type of Java object in string representation.", "java any")

        p = subprocess.run([forge, "bfcl", "score", "--data", data, "--results", out, "--underscore-to-dot"],
                           capture_output=True, text=True)
        rows = [l.split() for l in p.stdout.splitlines()[1:]]
        check(p.returncode == 0 and rows == [["openai_gpt-test", "simple_python", "50.00%", "1", "2"],
                                             ["openai_gpt-test", "simple_java", "100.00%", "1", "1"],
                                             ["openai_gpt-test", "parallel", "100.00%", "1", "1"],
                                             ["openai_gpt-test", "irrelevance", "100.00%", "1", "1"]],
              f"score: {p.stdout} {p.stderr}")

        # a request that fails: its result holds the error, and the exit status is 3
        code, _, stderr = run("--model", "openai:gpt-test", "--base-url", base, "--no-cache", "--data", data,
                              "--out", out, "--model-name", "m", "--category", "live_simple", "--retries", "0")
        check(code == 3, f"failed request: exit {code} {stderr}")
        with open(os.path.join(out, "m", "live", "BFCL_v4_live_simple_result.json")) as f:
            res = json.loads(f.readline())["result"]
        check(isinstance(res, str) and res.startswith("Error during inference: "), f"error result: {res!r}")

        # bad usage
        code, _, stderr = run("--data", data, "--out", out, "--category", "parallel")
        check(code == 2 and "--model" in stderr, f"no model: {code} {stderr}")
        code, _, stderr = run("--model", "openai:x", "--data", data, "--out", out, "--category", "multi_turn_base")
        check(code == 2 and "multi_turn_base" in stderr, f"bad category: {code} {stderr}")
        noenv = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
        code, _, stderr = run("--model", "openai:x", "--base-url", base, "--data", data, "--out", out,
                              "--category", "parallel", env=noenv)
        check(code == 2 and "OPENAI_API_KEY" in stderr, f"no key: {code} {stderr}")
    finally:
        fake.kill()
        fake.wait()
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

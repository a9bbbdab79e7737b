#!/usr/bin/env python3
"""forge init: the scaffold passes at once, tool definitions become a passing suite, and
nothing is ever overwritten.

usage: check.py FORGE SRC
"""
import os
import subprocess
import sys
import tempfile

failures = 0


def check(name, cond, detail=""):
    global failures
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f"\n  {detail}"))
    failures += 0 if cond else 1


def forge(*args, cwd=None):
    p = subprocess.run([FORGE, *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def tree(d):
    out = {}
    for root, _, names in os.walk(d):
        for n in names:
            path = os.path.join(root, n)
            out[os.path.relpath(path, d)] = open(path, "rb").read()
    return out


def main():
    global FORGE
    FORGE, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "suite")
        rc, out, err = forge("init", d)
        check("init into a new folder", rc == 0 and out == f"forge init: wrote a suite into {d}; run: forge script {d}/suite.lua\n", out + err)
        check("the scaffold's files", sorted(tree(d)) == ["README.md", "assertions.lua", "evals/golden.json",
                                                          "evals/labeled.json", "rules.lua", "suite.lua", "tools.lua"], sorted(tree(d)))
        check("a README of three lines", tree(d).get("README.md", b"").count(b"\n") == 3)
        rc, out, err = forge("script", "suite.lua", cwd=d)
        check("the scaffold passes at once", rc == 0 and "✓ 3/3 passed (100.0%)" in out, out + err)
        before = tree(d)
        rc, out, err = forge("init", d)
        check("a folder that is not empty is refused", rc == 2 and out == "" and
              err == f"forge: init: {d} is not empty; forge init writes only into an empty or new folder, so nothing is overwritten (nothing written)\n", err)
        check("nothing was overwritten", tree(d) == before)
        rc, out, err = forge("init", os.path.join(d, "suite.lua"))
        check("a file is not a folder", rc == 2 and "exists and is not a folder" in err, err)
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        rc, out, err = forge("init", cwd=empty)
        check("init into the current, empty folder", rc == 0 and os.path.exists(os.path.join(empty, "suite.lua")), err)
        for flag, defs, n in (("--from-openai-tools", os.path.join(src, "evals", "tools.json"), 2),
                              ("--from-mcp-tools", os.path.join(here, "mcp_tools.json"), 2)):
            t = os.path.join(tmp, flag)
            rc, out, err = forge("init", t, flag, defs)
            check(f"init {flag}", rc == 0, err)
            rc, out, err = forge("script", "suite.lua", cwd=t)
            check(f"init {flag}: the suite passes at once", rc == 0 and f"✓ {n}/{n} passed (100.0%)" in out, out + err)
        rc, out, err = forge("init", os.path.join(tmp, "bad"), "--from-openai-tools", os.path.join(here, "check.py"))
        check("bad tool definitions: exit 2, nothing written", rc == 2 and not os.path.exists(os.path.join(tmp, "bad", "suite.lua")), err)
        rc, out, err = forge("init", "--shell")
        check("an unknown option", rc == 2 and err == "forge: init: unknown option '--shell' (run 'forge help init')\n", err)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Installs forge into a temporary prefix and runs what a new user runs from there.

usage: check.py BUILD_DIR

`cmake --install BUILD_DIR --prefix TMP`, then TMP/bin/forge runs the installed demo from the
examples folder (scripts/demo.lua, which reads evals/) with exit 1, its deliberate failure, and
the demo's summary; the man pages and completions are where man and the shells
look for them.
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


def main():
    build = sys.argv[1]
    with tempfile.TemporaryDirectory() as prefix:
        p = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True, text=True)
        check("cmake --install", p.returncode == 0, p.stderr)
        forge = os.path.join(prefix, "bin", "forge")
        examples = os.path.join(prefix, "share", "doc", "forge", "examples")
        # As from the repository's root: the examples folder is the current folder, which the
        # sandbox lets the demo read (its evals/ sit beside scripts/, outside the script's own
        # folder).
        p = subprocess.run([forge, "script", "scripts/demo.lua"], capture_output=True, text=True,
                           cwd=examples)
        check("the installed demo runs with its deliberate failure", p.returncode == 1, p.stdout + p.stderr)
        for line in ("✗ 7/8 passed (87.5%)", "  ✗ gs-weather-004: the answer says 30°C, which no tool returned",
                     "gate passRate >= 0.8: actual 0.875 pass"):
            check(f"demo output has {line!r}", line in p.stdout.splitlines() or line in p.stdout, p.stdout)
        for rel in ("share/man/man1/forge.1", "share/man/man1/forge-run.1", "share/man/man1/forge-script.1",
                    "share/bash-completion/completions/forge", "share/zsh/vendor-completions/_forge",
                    "share/doc/forge/examples/evals/demo/weather.golden.json"):
            check(f"installed {rel}", os.path.isfile(os.path.join(prefix, rel)))
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()

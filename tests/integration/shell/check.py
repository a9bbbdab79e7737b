#!/usr/bin/env python3
"""Man pages and shell completion agree with forge's help.

usage: check.py FORGE MANDIR SRC

For every command `forge help` lists, the options `forge help CMD` shows are exactly the options
forge-CMD(1) lists, and bash completion (completions/forge.bash, loaded in bash) offers
commands, options, provider prefixes and files by extension.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FLAG = re.compile(r"(?<![\w-])--?[A-Za-z0-9][\w-]*")
ARG = re.compile(r"^(?:[A-Z][A-Z0-9_.=:/|\[\]-]*|'.*|.*'|\[.*\]|[a-z]+\|\S*),?$")
failures = 0


def check(name, got, want):
    global failures
    if got != want:
        failures += 1
        print(f"FAIL {name}:\n  got  {got!r}\n  want {want!r}")
    else:
        print(f"ok   {name}")


def help_options(text):
    """Flags on the option lines of a help text (lines indented by two spaces, starting '-')."""
    flags = set()
    for line in text.splitlines():
        if not re.match(r"^  +-", line):
            continue
        for word in line.split():
            if word.startswith("-"):
                flags.add(word.rstrip(","))
            elif not ARG.match(word):
                break
    return flags


def man_options(roff):
    """Flags in the .TP item heads of a man page's OPTIONS-like sections."""
    flags = set()
    lines = roff.splitlines()
    for i, line in enumerate(lines):
        if line == ".TP" and i + 1 < len(lines):
            head = lines[i + 1].replace("\\fB", "").replace("\\fR", "").replace("\\-", "-")
            if head.startswith("-"):
                for word in head.split():
                    if word.startswith("-"):
                        flags.add(word.rstrip(","))
                    elif not ARG.match(word):
                        break
    return flags


def main():
    forge, mandir, src = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    top = subprocess.run([forge, "help"], capture_output=True, text=True).stdout
    cmds = re.findall(r"^  ([a-z]+) ", top.split("commands:")[1].split("\n\n")[0], re.M)
    check("forge help lists commands", len(cmds) >= 6, True)
    check("forge(1) exists", os.path.exists(os.path.join(mandir, "forge.1")), True)
    for c in cmds:
        text = subprocess.run([forge, "help", c], capture_output=True, text=True).stdout
        path = os.path.join(mandir, f"forge-{c}.1")
        if not os.path.exists(path):
            check(f"forge-{c}(1) exists", False, True)
            continue
        roff = open(path, encoding="utf-8").read()
        check(f"forge-{c}(1) names the command", f"forge\\-{c} \\- " in roff, True)
        check(f"forge-{c}(1) options = forge help {c} options", sorted(man_options(roff)),
              sorted(help_options(text)))
    if shutil.which("bash") is None:
        print("bash not found: completion not checked")
        return
    with tempfile.TemporaryDirectory() as d:
        for f in ("suite.lua", "tools.lua", "tools.json", "cases.json", "runs.jsonl", "notes.txt"):
            open(os.path.join(d, f), "w").close()
        os.mkdir(os.path.join(d, "sub"))
        script = f"""
source {src}/completions/forge.bash
t() {{ COMP_WORDS=("$@"); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMPREPLY=(); _forge; printf '%s\\n' "${{COMPREPLY[*]}}"; }}
t forge ''
t forge ru
t forge help sc
t forge run --mo
t forge run --model ''
t forge run --model scripted:s
t forge run --report j
t forge model ''
t forge run --tools ''
t forge script ''
t forge check ''
t forge check --format j
"""
        env = dict(os.environ, PATH=os.path.dirname(forge) + os.pathsep + os.environ.get("PATH", ""))
        p = subprocess.run(["bash", "--norc", "-c", script], cwd=d, capture_output=True, text=True, env=env)
        got = p.stdout.splitlines()
        want = [
            " ".join(cmds),
            "run",
            "script schema",
            "--model",
            "scripted: openai: openai-responses: anthropic: gemini: ollama:",
            "scripted:sub scripted:suite.lua",
            "json= jsonl= junit=",
            "batch complete",
            "sub tools.lua suite.lua tools.json cases.json",
            "sub tools.lua suite.lua",
            "sub cases.json tools.json runs.jsonl",
            "json jsonl",
        ]
        for i, w in enumerate(want):
            g = got[i] if i < len(got) else "(nothing)"
            # file order is the file system's: compare as sets
            check(f"bash completion {i + 1}", sorted(g.split()), sorted(w.split()))
        if p.stderr:
            check("bash completion prints no errors", p.stderr, "")
    for shell, name in (("bash", "forge.bash"), ("zsh", "_forge")):
        p = subprocess.run([forge, "completion", shell], capture_output=True, text=True)
        check(f"forge completion {shell} prints completions/{name}", p.stdout,
              open(os.path.join(src, "completions", name), encoding="utf-8").read())
    if shutil.which("zsh"):
        p = subprocess.run(["zsh", "-n", os.path.join(src, "completions", "_forge")],
                           capture_output=True, text=True)
        check("zsh completion parses", (p.returncode, p.stderr), (0, ""))
    else:
        print("zsh not found: its completion's syntax not checked")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()

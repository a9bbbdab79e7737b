#!/usr/bin/env python3
"""Writes forge's man pages from its own help text, so the two never disagree.

usage: gen_man.py FORGE OUTDIR

forge(1) comes from `forge help`, forge-CMD(1) from `forge help CMD` for every command that
`forge help` lists. The help text's shape is the contract: a line "usage: ..." (continued by
indented lines) opens it; a line "NAME:" at the left margin opens a section; in a section,
lines indented by two spaces that start with "-" are options (flags, then two or more spaces,
then the description, continued by deeper-indented lines); other indented lines are items of a
list (a word, then the description); other text forms paragraphs.
"""
import os
import re
import subprocess
import sys

SEE_ALSO_DOCS = "/usr/share/doc/forge"


def esc(text):
    """Escapes text for roff: backslashes, hyphens, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text[:1] in (".", "'"):
        text = "\\&" + text
    return text


def help_text(forge, *args):
    p = subprocess.run([forge, "help", *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"gen_man.py: 'forge help {' '.join(args)}' failed: {p.stderr.strip()}")
    return p.stdout


def commands(top):
    """(name, summary) of each command in `forge help`'s list."""
    out, in_list = [], False
    for line in top.splitlines():
        if line == "commands:":
            in_list = True
        elif in_list and line.startswith("  ") and line.strip():
            name, _, summary = line.strip().partition(" ")
            out.append((name, summary.strip()))
        elif in_list and not line.strip():
            in_list = False
    return out


ITEM = re.compile(r"^  (\S.*?)(?: {2,}(\S.*))?$")


ARG = re.compile(r"^(?:[A-Z][A-Z0-9_.=:/|\[\]-]*|'[^']*'|\[.*\]|[A-Z0-9_]+=\S+),?$")


def split_flags(text):
    """Splits "--flag ARG description" (one space only) into flags and description."""
    words = text.split(" ")
    n = 0
    while n < len(words) and (words[n].startswith("-") or ARG.match(words[n])):
        n += 1
    return " ".join(words[:n]), " ".join(words[n:])


def body(text, skip_command_list=False):
    """The roff body of one help text."""
    lines = text.rstrip("\n").splitlines()
    out = [".SH SYNOPSIS"]
    i = 0
    # usage: first line and its indented continuations
    while i < len(lines) and (lines[i].startswith("usage:") or
                              (i > 0 and lines[i].startswith("       "))):
        usage = lines[i][len("usage:"):].strip() if lines[i].startswith("usage:") else lines[i].strip()
        out += [".nf", ".B " + esc(usage) if not usage.startswith("forge ") else esc(usage), ".fi"]
        i += 1
    out.append(".SH DESCRIPTION")
    para = []
    in_item = False

    def flush():
        nonlocal para
        if para:
            out.append(".PP")
            out.append(esc(" ".join(para)))
            para = []

    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip():
            flush()
            in_item = False
            continue
        if re.match(r"^[A-Za-z][\w .'-]*:$", line):
            flush()
            title = line[:-1].upper()
            if skip_command_list and title == "COMMANDS":
                while i < len(lines) and lines[i].strip():
                    i += 1
                continue
            out.append(".SH " + esc(title))
            in_item = False
            continue
        m = ITEM.match(line)
        if m and not line.startswith("   "):
            flush()
            head, desc = m.group(1), m.group(2) or ""
            if not desc and head.startswith("-"):
                head, desc = split_flags(head)
            out.append(".TP")
            out.append(("\\fB" + esc(head) + "\\fR") if head.startswith("-") else esc(head))
            if desc:
                out.append(esc(desc))
            in_item = True
            continue
        if in_item and line.startswith("   "):
            out.append(esc(line.strip()))
            continue
        para.append(line.strip())
    flush()
    return out


def page(name, section, summary, text, version, see_also, skip_command_list=False):
    upper = name.upper()
    out = [f'.TH {esc(upper)} {section} "" "forge {esc(version)}" "forge manual"',
           ".SH NAME", f"{esc(name)} \\- {esc(summary)}"]
    out += body(text, skip_command_list)
    out += [".SH SEE ALSO", ", ".join(f"\\fB{esc(s)}\\fR(1)" for s in see_also) + ",",
            f"the documentation in {esc(SEE_ALSO_DOCS)}."]
    return "\n".join(out) + "\n"


def main():
    forge, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    top = help_text(forge)
    version = subprocess.run([forge, "version"], capture_output=True, text=True).stdout.split()
    version = version[1] if len(version) > 1 else "unknown"
    cmds = commands(top)
    if not cmds:
        sys.exit("gen_man.py: 'forge help' lists no commands")
    names = [f"forge-{c}" for c, _ in cmds]
    pages = {"forge.1": page("forge", 1, "test tool-calling LLM agents", top, version, names, True)}
    # forge(1) lists the commands with their pages.
    listing = [".SH COMMANDS"]
    for c, summary in cmds:
        listing += [".TP", f"\\fBforge\\-{esc(c)}\\fR(1)", esc(summary)]
    pages["forge.1"] = pages["forge.1"].replace(".SH SEE ALSO", "\n".join(listing) + "\n.SH SEE ALSO", 1)
    for c, summary in cmds:
        pages[f"forge-{c}.1"] = page(f"forge-{c}", 1, summary, help_text(forge, c), version,
                                     ["forge"] + [n for n in names if n != f"forge-{c}"])
    for fname, text in pages.items():
        with open(os.path.join(outdir, fname), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()

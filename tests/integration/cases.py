#!/usr/bin/env python3
"""Runs CLI integration cases: each case runs forge with arguments in the folder of CASES.json
and checks the exit code, stdout and stderr (exactly or by fragments), and files byte for byte.

usage: cases.py FORGE CASES.json

A case: {"name", "args": [...], "exit": 0, "stdout": "exact" (optional), "stderr": "exact"
(optional), "stdout_has": [...], "stderr_has": [...], "stderr_lacks": [...],
"stdin_file": "file fed to stdin" (optional), "stdin_path": a file opened as stdin as it is
(e.g. "/dev/zero"), "timeout": seconds (default 120), "files": {"$OUT/r.json": "expected/r.json"},
"sparse": {"$OUT/big.json": {"prefix": "[\"", "size": 10737418240}} (files made before the run:
the prefix, then zero bytes up to size, as a hole that takes no disk),
"fifo": {"$OUT/in.pipe": {"text": "...", "repeat": "x", "bytes": N}} (named pipes a writer thread
feeds: the text, then the repeat string up to N bytes in all, or until the reader closes),
"max_rss_mib": N (the run, made again, may take at most N MiB of memory at its peak; not checked
under AddressSanitizer, whose quarantine keeps freed memory)}.
"$OUT" in args, file names and expected output is a fresh temporary folder. SOURCE_DATE_EPOCH is fixed so the
run id and timestamp are reproducible. Set FORGE_UPDATE=1 to rewrite the expected files.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading


def peak_rss_kib(argv, cwd, env):
    """Peak RSS of one process, from wait4 in a small helper process (what the child shares with
    the helper it was forked from is the helper's few MiB, not this script's)."""
    helper = ("import os, subprocess, sys\n"
              "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,"
              " stderr=subprocess.DEVNULL)\n"
              "_, st, ru = os.wait4(p.pid, 0)\n"
              "print(ru.ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", helper] + argv, cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=300).stdout
    return int(out)


class feed_fifo:
    """A named pipe at <path> and a thread that writes spec's bytes into it (bounded: at most
    spec["bytes"] in all), stopping early when the reader closes its end."""

    def __init__(self, path, spec):
        os.mkfifo(path)
        self.path, self.spec, self.done = path, spec, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            fd = os.open(self.path, os.O_WRONLY)  # blocks until forge opens it
        except OSError:
            return
        try:
            head = self.spec.get("text", "").encode()
            total = max(self.spec.get("bytes", len(head)), len(head))
            chunk = (self.spec.get("repeat", " ").encode() * 65536)[:65536]
            os.write(fd, head)
            left = total - len(head)
            while left > 0 and not self.done.is_set():
                left -= os.write(fd, chunk[:min(left, len(chunk))])
        except OSError:
            pass  # forge closed its end: it stopped reading, as it should
        finally:
            os.close(fd)

    def stop(self):
        self.done.set()
        if self.thread.is_alive():
            # forge never opened the pipe: open its read end so the writer's open returns
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        self.thread.join(5)


def main():
    forge, cases_path = os.path.abspath(sys.argv[1]), sys.argv[2]
    here = os.path.dirname(os.path.abspath(cases_path))
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1763700000")
    update = os.environ.get("FORGE_UPDATE") == "1"
    with open(forge, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    failures = 0
    for case in cases:
        out_dir = tempfile.mkdtemp(prefix="forge-run-")
        try:
            args = [a.replace("$OUT", out_dir) for a in case["args"]]
            for path, spec in case.get("sparse", {}).items():
                path = path.replace("$OUT", out_dir)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(spec.get("prefix", "").encode())
                    f.truncate(spec["size"])
            writers = [feed_fifo(path.replace("$OUT", out_dir), spec) for path, spec in case.get("fifo", {}).items()]
            stdin = open(os.path.join(here, case["stdin_file"]), "rb").read() if "stdin_file" in case else b""
            io = {"stdin": open(case["stdin_path"], "rb")} if "stdin_path" in case else {"input": stdin}
            try:
                p = subprocess.run([forge] + args, cwd=here, capture_output=True, env=env,
                                   timeout=case.get("timeout", 120), **io)
                out, err, code = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.returncode
            except subprocess.TimeoutExpired:
                out, err, code = "", "(timed out)", None
            finally:
                if "stdin" in io:
                    io["stdin"].close()
                for w in writers:
                    w.stop()
            for key in ("stdout", "stderr"):
                if key in case:
                    case = dict(case, **{key: case[key].replace("$OUT", out_dir)})
            for key in ("stdout_has", "stderr_has", "stderr_lacks"):
                if key in case:
                    case = dict(case, **{key: [x.replace("$OUT", out_dir) for x in case[key]]})
            problems = []
            if code != case.get("exit", 0):
                problems.append(f"exit {code}, expected {case.get('exit', 0)}")
            if "stdout" in case and out != case["stdout"]:
                problems.append(f"stdout differs:\n--- got\n{out}--- expected\n{case['stdout']}")
            if "stderr" in case and err != case["stderr"]:
                problems.append(f"stderr differs:\n--- got\n{err}--- expected\n{case['stderr']}")
            for frag in case.get("stdout_has", []):
                if frag not in out:
                    problems.append(f"stdout lacks {frag!r}")
            for frag in case.get("stderr_has", []):
                if frag not in err:
                    problems.append(f"stderr lacks {frag!r}")
            for frag in case.get("stderr_lacks", []):
                if frag in err:
                    problems.append(f"stderr has {frag!r}")
            for produced, expected in case.get("files", {}).items():
                produced = produced.replace("$OUT", out_dir)
                expected = os.path.join(here, expected)
                if not os.path.exists(produced):
                    problems.append(f"{os.path.basename(produced)} was not written")
                    continue
                got = open(produced, "rb").read()
                if update:
                    os.makedirs(os.path.dirname(expected), exist_ok=True)
                    open(expected, "wb").write(got)
                    continue
                want = open(expected, "rb").read()
                if got != want:
                    problems.append(f"{os.path.basename(produced)} differs from {expected}:\n"
                                    f"--- got\n{got.decode('utf-8', 'replace')}")
            if "max_rss_mib" in case and sanitized:
                print(f"skip peak memory of {case['name']}: not measurable under AddressSanitizer")
            elif "max_rss_mib" in case:
                kib = peak_rss_kib([forge] + args, here, env)
                if kib > case["max_rss_mib"] * 1024:
                    problems.append(f"peak memory {kib // 1024} MiB, more than {case['max_rss_mib']} MiB")
            leftovers = [n for n in os.listdir(out_dir) if ".tmp." in n]
            if leftovers:
                problems.append(f"temporary files left: {leftovers}")
        finally:
            shutil.rmtree(out_dir, ignore_errors=True)
        if problems:
            failures += 1
            print(f"FAIL {case['name']}: " + "\n  ".join(problems))
            print(f"  stderr was: {err[:2000]}")
        else:
            print(f"ok   {case['name']}")
    print(f"{len(cases) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

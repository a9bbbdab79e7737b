#!/usr/bin/env python3
"""forge doctor in controlled environments: keys reported without their values, base URLs
checked for form and reached on loopback, the cache folder's permissions, exit codes.

usage: check.py FORGE
"""
import http.server
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading

failures = 0


def check(name, cond, detail=""):
    global failures
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f"\n  {detail}"))
    failures += 0 if cond else 1


def doctor(env, *args):
    base = {k: v for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
                                                         "GEMINI_BASE_URL", "OLLAMA_HOST")}
    base.update(env)
    p = subprocess.run([FORGE, "doctor", *args], capture_output=True, text=True, env=base, timeout=60)
    return p.returncode, p.stdout, p.stderr


class Quiet(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *a):
        pass


def main():
    global FORGE
    FORGE = os.path.abspath(sys.argv[1])
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        env = {"XDG_CACHE_HOME": os.path.join(tmp, "cache"), "HOME": tmp}
        rc, out, err = doctor(env)
        check("no keys: warnings only, exit 0", rc == 0 and "warn OPENAI_API_KEY is not set" in out and
              out.endswith("forge doctor: nothing to fix\n"), out + err)
        cache = os.path.join(tmp, "cache", "forge", "models")
        check("the cache folder is made 0700", os.path.isdir(cache) and stat.S_IMODE(os.stat(cache).st_mode) == 0o700)
        check("the probe file is gone", os.listdir(cache) == [], os.listdir(cache))
        keyed = dict(env, OPENAI_API_KEY="sk-doctor-secret-0123", GOOGLE_API_KEY="g-doctor-secret-0123")
        rc, out, err = doctor(keyed)
        check("keys are reported as set, without their values",
              rc == 0 and "ok   OPENAI_API_KEY is set (21 characters)" in out and
              "ok   GOOGLE_API_KEY is set (20 characters) for gemini" in out and "secret" not in out + err, out)
        rc, out, err = doctor(dict(env, ANTHROPIC_API_KEY="sk-ant\nX: y"))
        check("a key with a line break fails", rc == 1 and "FAIL ANTHROPIC_API_KEY holds a control character" in out, out)
        rc, out, err = doctor(dict(env, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1"))
        check("a reachable base URL", rc == 0 and f"ok   OPENAI_BASE_URL (http://127.0.0.1:{port}/v1) answers (HTTP 200)" in out, out)
        rc, out, err = doctor(dict(env, OLLAMA_HOST=f"http://127.0.0.1:{dead}"))
        check("an unreachable base URL fails", rc == 1 and f"FAIL OLLAMA_HOST (http://127.0.0.1:{dead}) cannot be reached" in out, out)
        rc, out, err = doctor(dict(env, OLLAMA_HOST=f"http://127.0.0.1:{dead}"), "--offline")
        check("--offline does not contact it", rc == 0 and "ok   OLLAMA_HOST is well formed (not contacted: --offline)" in out, out)
        rc, out, err = doctor(dict(env, GEMINI_BASE_URL="generativelanguage.googleapis.com"))
        check("a base URL without a scheme fails", rc == 1 and "FAIL GEMINI_BASE_URL is 'generativelanguage.googleapis.com': it must start with http:// or https://" in out, out)
        ro = os.path.join(tmp, "ro")
        os.mkdir(ro)
        os.chmod(ro, 0o500)
        if os.access(ro, os.W_OK):  # root ignores permissions: use a path under a file instead
            ro = os.path.join(tmp, "afile")
            open(ro, "w").close()
        rc, out, err = doctor(dict(env, XDG_CACHE_HOME=ro))
        check("an unwritable cache folder fails and says what to do", rc == 1 and "FAIL the response cache folder" in out and
              "--no-cache" in out, out)
        rc, out, err = doctor(env, "--fix")
        check("an unknown argument", rc == 2 and err == "forge: doctor: unknown argument '--fix' (run 'forge help doctor')\n", err)
    srv.shutdown()
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()

#!/bin/sh
# Start-up of `forge script` on an empty script beside the plain Lua 5.4 interpreter, and the cost
# of one sandboxed Lua state. Prints figures; asserts nothing.
# usage: tests/bench/host/run.sh [BUILD_DIR]
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build}
forge=$build/forge
empty=$(mktemp --suffix=.lua)
trap 'rm -f "$empty"' EXIT
runs=300
time_it() { # command... -> mean ms per run
  python3 - "$runs" "$@" <<'PY'
import subprocess, sys, time
runs = int(sys.argv[1]); cmd = sys.argv[2:]
for _ in range(10): subprocess.run(cmd, check=True)
t = time.perf_counter()
for _ in range(runs): subprocess.run(cmd, check=True)
print(f"{(time.perf_counter() - t) / runs * 1000:.2f}")
PY
}
f=$(time_it "$forge" script "$empty")
echo "forge script (empty script): $f ms per run (mean of $runs, process spawn included)"
if command -v lua5.4 >/dev/null 2>&1; then
  l=$(time_it lua5.4 "$empty")
  echo "lua5.4 (empty script):       $l ms per run"
  python3 -c "print(f'ratio forge/lua5.4: {$f/$l:.2f}')"
fi
t=$(time_it /bin/true)
echo "/bin/true (spawn floor):     $t ms per run"
"$build/tests/bench_vm" 20000

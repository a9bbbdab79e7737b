#!/bin/sh
# The eval engine's benchmark: N recorded transcripts scored by `forge run` (eval-file and
# transcript parsing included), beside promptfoo's assertion engine on the same outputs, and the
# cost of one Lua custom assertion call. Prints figures; asserts nothing.
#
# usage: [ROUNDS=5] [INSTRUCTIONS=1] tests/bench/eval/run.sh [BUILD_DIR] [N]
# BUILD_DIR should be a Release build (cmake -DCMAKE_BUILD_TYPE=Release); N defaults to 100000.
# With INSTRUCTIONS=1 (and valgrind installed) it also counts instructions a case under callgrind
# (runs of 2,000 and 6,000 cases, the difference over 4,000, so start-up cancels out), with and
# without the custom assertion: figures that do not move with the machine's load, and the
# assertion's added cost in time at the rate the built-in runs above went.
# The promptfoo side runs when tests/bench/.scratch holds it:
#   npm install --prefix tests/bench/.scratch --no-save --ignore-scripts promptfoo@0.123.1
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build}
n=${2:-100000}
forge=$build/forge
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
python3 "$here/gen.py" "$data" "$n"
cpu() { # command... -> "user+sys seconds wall seconds" of one run (exit status ignored)
  python3 - "$@" <<'PY'
import os, resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.3f} {wall:.3f}")
PY
}
echo "eval benchmark: $n cases, 9 built-in assertions each (toolsCalled, toolParams, responseNonEmpty,"
echo "responseContains x2, responseNotContains x2, maxLatencyMs, maxToolCalls, regexPattern)"
# the built-ins and the custom assertion alternate for $rounds rounds; the figures are the
# medians (one run's CPU time moves by more than the assertion costs on a shared machine)
rounds=${ROUNDS:-5}
fbs= fbws= fcs=
for r in $(seq "$rounds"); do
  set -- $(cpu "$forge" run "$data/cases.json" --transcripts "$data/transcripts.jsonl" -q)
  fbs="$fbs $1"; fbws="$fbws $2"
  set -- $(cpu "$forge" run "$data/custom.json" --transcripts "$data/transcripts.jsonl" -q --assertions "$data/assertions.lua")
  fcs="$fcs $1"
done
med() { python3 -c 'import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }
fb=$(med $fbs); fbw=$(med $fbws); fc=$(med $fcs)
python3 - "$n" "$fb" "$fbw" "$fc" "$rounds" "$fbs" "$fcs" <<'PY'
import sys
n, fb, fbw, fc = int(sys.argv[1]), *map(float, sys.argv[2:5])
rounds, fbs, fcs = sys.argv[5], sys.argv[6].split(), sys.argv[7].split()
print(f"forge run (built-ins):           {n / fb:9.0f} cases/s  (CPU {fb:.2f} s, wall {fbw:.2f} s; median of {rounds})")
print(f"forge run (+1 Lua assertion):    {n / fc:9.0f} cases/s  (CPU {fc:.2f} s; {(fc - fb) / n * 1e6:.2f} us more per case)")
diffs = sorted((float(c) - float(b)) / n * 1e6 for b, c in zip(fbs, fcs))
print(f"  us more per case, round by round (sorted): {' '.join(f'{d:.2f}' for d in diffs)}")
PY
pf=$here/../.scratch/node_modules/promptfoo/dist/src/index.js
if [ -f "$pf" ] && command -v node >/dev/null 2>&1; then
  set -- $(cpu node "$here/bench_promptfoo.mjs" "$pf" "$data")
  pb=$1
  set -- $(cpu node "$here/bench_promptfoo.mjs" "$pf" "$data" custom)
  pc=$1
  python3 - "$n" "$fb" "$fc" "$pb" "$pc" <<'PY'
import sys
n, fb, fc, pb, pc = int(sys.argv[1]), *map(float, sys.argv[2:])
print(f"promptfoo runAssertions:         {n / pb:9.0f} cases/s  (CPU {pb:.2f} s; icontains, not-icontains, regex, latency, tool-call-f1)")
print(f"promptfoo (+1 javascript):       {n / pc:9.0f} cases/s  (CPU {pc:.2f} s; {(pc - pb) / n * 1e6:.2f} us more per case)")
print(f"ratio forge/promptfoo (cases/s): built-ins {pb / fb:.1f}x, with a custom assertion {pc / fc:.1f}x")
PY
else
  echo "promptfoo: not installed under tests/bench/.scratch (see the header of this script)"
fi
if [ -x "$build/tests/bench_eval" ]; then
  "$build/tests/bench_eval" 200000
fi
if [ "${INSTRUCTIONS:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
  for k in 2000 6000; do python3 "$here/gen.py" "$data/$k" "$k"; done
  count() { # N eval-file [args...] -> instructions
    k=$1; f=$2; shift 2
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$forge" run "$data/$k/$f" \
      --transcripts "$data/$k/transcripts.jsonl" -q "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : //p'
  }
  b2=$(count 2000 cases.json); b6=$(count 6000 cases.json)
  c2=$(count 2000 custom.json --assertions "$data/2000/assertions.lua")
  c6=$(count 6000 custom.json --assertions "$data/6000/assertions.lua")
  python3 - "$b2" "$b6" "$c2" "$c6" "$fb" "$n" <<'PY'
import sys
b2, b6, c2, c6 = map(int, sys.argv[1:5])
fb, n = float(sys.argv[5]), int(sys.argv[6])
b, c = (b6 - b2) / 4000, (c6 - c2) / 4000
rate = b * n / fb / 1e6  # instructions per microsecond of the built-in runs above
print(f"instructions a case (callgrind): built-ins {b:,.0f}, with the custom assertion {c:,.0f}, "
      f"{c - b:,.0f} more; at the built-in runs' {rate:,.0f} per us: {(c - b) / rate:.2f} us more per case")
PY
fi

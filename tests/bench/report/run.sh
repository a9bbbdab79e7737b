#!/bin/sh
# The HTML report's benchmark: N recorded cases (tests/bench/eval/gen.py: one or two tool calls
# each) scored by `forge run`, then the offline HTML report built from the run's JSONL results
# (`forge report html`) and inside the run (`--report html=`), beside the JSON report of the same
# run. Prints time, peak memory and file size; asserts nothing.
#
# usage: tests/bench/report/run.sh [BUILD_DIR] [N]
# BUILD_DIR should be a Release build (cmake -DCMAKE_BUILD_TYPE=Release); N defaults to 100000.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build}
n=${2:-100000}
forge=$build/forge
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
python3 "$here/../eval/gen.py" "$data" "$n"
measure() { # command... -> "CPU-seconds (user+sys) peak-RSS-MiB wall-seconds" of one run (exit status ignored)
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.3f} {r.ru_maxrss / 1024:.0f} {wall:.3f}")
PY
}
size() { python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1]) / 1048576:.1f}')" "$1"; }
run="$forge run $data/cases.json --transcripts $data/transcripts.jsonl -q"
set -- $(measure $run); t_score=$1
set -- $(measure $run --report "jsonl=$data/r.jsonl"); t_jsonl=$1
set -- $(measure $run --report "json=$data/r.json"); t_json=$1
set -- $(measure $run --report "html=$data/run.html"); t_runhtml=$1; rss_run=$2
set -- $(measure "$forge" report html "$data/r.jsonl" -o "$data/r.html"); t_html=$1; rss_html=$2; w_html=$3
echo "HTML report benchmark: $n cases (tests/bench/eval/gen.py); times are CPU seconds (user + sys)"
python3 - "$n" "$t_score" "$t_jsonl" "$t_json" "$t_runhtml" "$rss_run" "$t_html" "$rss_html" "$w_html" \
  "$(size "$data/r.jsonl")" "$(size "$data/r.json")" "$(size "$data/r.html")" <<'PY'
import sys
n = int(sys.argv[1])
score, jsonl, js, runhtml, rss_run, html, rss_html, w_html, s_jsonl, s_json, s_html = map(float, sys.argv[2:])
print(f"forge report html RESULTS.jsonl:  {html:6.2f} s  peak RSS {rss_html:4.0f} MiB  {s_html:7.1f} MiB file"
      f"  ({s_html * 1048576 / n:.0f} bytes a case; wall {w_html:.2f} s; issue goal: under 2 s)")
print(f"forge run --report html= (extra): {runhtml - score:6.2f} s  peak RSS {rss_run:4.0f} MiB  (the run alone: {score:.2f} s)")
print(f"forge run --report json= (extra): {js - score:6.2f} s                  {s_json:7.1f} MiB file")
print(f"forge run --report jsonl= (extra):{jsonl - score:6.2f} s                  {s_jsonl:7.1f} MiB file (with trajectories)")
print(f"in a run, HTML report / JSON report: {(runhtml - score) / max(js - score, 1e-3):.2f}x the time, "
      f"{s_html / s_json:.2f}x the size")
PY

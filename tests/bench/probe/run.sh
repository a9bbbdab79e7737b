#!/bin/sh
# What streaming costs, and how forge probe scales. Figures only; nothing is asserted.
#  0. Parsing only (build/tests/bench_stream): a streamed answer (16-byte deltas) read by
#     assemble + parse, against the whole answer read by a JSON parse + parse; in microseconds,
#     then (when valgrind is installed) in instructions counted by callgrind (callgrind.sh),
#     beside BEFORE=<an older bench_stream> when given.
#  1. CPU per answer read whole and streamed, per dialect, from forge serve (a 2.6 KB text answer
#     and a two-call answer): forge model batch reports the client's CPU per call, network included.
#  2. A 50-model x 10-probe sweep at -j 20 against the fake provider answering after 100 ms,
#     beside the ideal (waves of 20 models x the requests per model x 100 ms).
# usage: tests/bench/probe/run.sh [CALLS]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
forge=${FORGE:-$root/build/forge}
n=${1:-2000}
tmp=$(mktemp -d)
trap 'kill $spid $fpid 2>/dev/null; rm -rf "$tmp"' EXIT
export OPENAI_API_KEY=bench ANTHROPIC_API_KEY=bench GEMINI_API_KEY=bench
bench="$(dirname "$forge")/tests/bench_stream"
if [ -x "$bench" ]; then
  echo "0. $("$bench" "$n")"
  if command -v valgrind >/dev/null; then
    echo "0b. instructions per answer (callgrind)"
    "$here/callgrind.sh" "$bench" 10
  fi
else
  echo "0. $bench is not built (make build)"
fi
"$forge" serve --listen 127.0.0.1:0 --port-file "$tmp/sport" --model "scripted:$here/rules.lua" 2>/dev/null &
spid=$!
while [ ! -s "$tmp/sport" ]; do sleep 0.05; done
sport=$(cat "$tmp/sport")
echo "1. client CPU per answer, $n calls each, from forge serve on loopback ($(nproc) cores shared)"
printf '%-18s %-6s %14s %14s %8s\n' dialect answer "whole us/call" "stream us/call" ratio
for kind in text calls; do
  msg="tell me"; [ $kind = calls ] && msg="two calls please"
  printf '{"messages":[{"role":"user","content":"%s"}],"tools":[{"name":"get_weather"}],"params":{"max_tokens":100}}' "$msg" >"$tmp/req.json"
  for d in openai openai-responses anthropic gemini ollama; do
    base="http://127.0.0.1:$sport"; case $d in openai*) base="$base/v1";; esac
    w=$("$forge" model batch --model "$d:m" --base-url "$base" --no-cache -n "$n" "$tmp/req.json" | sed -n 's/.*"cpu_ms_per_call": *\([0-9.e-]*\).*/\1/p')
    s=$("$forge" model batch --model "$d:m" --base-url "$base" --no-cache --stream -n "$n" "$tmp/req.json" | sed -n 's/.*"cpu_ms_per_call": *\([0-9.e-]*\).*/\1/p')
    printf '%-18s %-6s %14.1f %14.1f %7.2fx\n' "$d" "$kind" "$(echo "$w" | awk '{print $1*1000}')" \
      "$(echo "$s" | awk '{print $1*1000}')" "$(echo "$s $w" | awk '{print $1/$2}')"
  done
done
kill $spid; wait $spid 2>/dev/null || true
python3 "$root/tests/support/fake_provider.py" --port-file "$tmp/fport" --delay-ms 100 >/dev/null 2>&1 &
fpid=$!
while [ ! -s "$tmp/fport" ]; do sleep 0.05; done
fport=$(cat "$tmp/fport")
models=""
for i in $(seq 1 50); do models="$models openai:m$i"; done
start=$(date +%s.%N)
"$forge" probe $models --base-url "http://127.0.0.1:$fport/v1" --no-cache -j 20 --format json >"$tmp/sweep.json"
end=$(date +%s.%N)
python3 - "$tmp/sweep.json" "$start" "$end" <<'PY'
import json, math, sys
rep = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
# requests per model: one per probe, two for a roundtrip that passed its first round
per = max(sum(2 if p == "roundtrip" and r["outcomes"].get("pass") else 1 for p, r in m["probes"].items())
          for m in rep["models"])
ideal = math.ceil(len(rep["models"]) / 20) * per * 0.100
print(f"2. sweep of {len(rep['models'])} models x {len(rep['models'][0]['probes'])} probes at -j 20, 100 ms answers: "
      f"{wall:.2f} s, ideal {ideal:.2f} s ({per} requests per model, {math.ceil(len(rep['models']) / 20)} waves): "
      f"{wall / ideal:.2f}x the ideal")
PY

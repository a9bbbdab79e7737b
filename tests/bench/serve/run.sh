#!/bin/sh
# forge serve under load, beside a minimal node:http mock answering constant bytes: requests per
# second and latency percentiles of a scripted one-call conversation (two requests: the call, then
# the answer) at 1, 16 and 64 connections, whole and streamed, with wrk (Debian) as the load
# generator. Figures only; nothing is asserted. usage: tests/bench/serve/run.sh [SECONDS]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
forge=${FORGE:-$root/build/forge}
secs=${1:-3}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 2; }
command -v node >/dev/null || { echo "node is missing: apt-get install nodejs" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'kill $fpid $npid 2>/dev/null; rm -rf "$tmp"' EXIT
"$forge" serve --listen 127.0.0.1:0 --port-file "$tmp/fport" --model "scripted:$here/rules.lua" 2>"$tmp/ferr" &
fpid=$!
while [ ! -s "$tmp/fport" ]; do sleep 0.05; done
fport=$(cat "$tmp/fport")
body='{"model":"m","messages":[{"role":"user","content":"What is the weather in Paris?"}]'
curl -s -H 'Content-Type: application/json' -d "$body}" "http://127.0.0.1:$fport/v1/chat/completions" >"$tmp/whole"
curl -s -H 'Content-Type: application/json' -d "$body,\"stream\":true}" "http://127.0.0.1:$fport/v1/chat/completions" >"$tmp/stream"
node "$here/node_mock.mjs" "$tmp/nport" "$tmp/whole" "$tmp/stream" &
npid=$!
while [ ! -s "$tmp/nport" ]; do sleep 0.05; done
nport=$(cat "$tmp/nport")
echo "forge serve vs node:http constant mock; wrk, ${secs}s per run, 1 wrk thread; $(nproc) cores shared"
printf '%-8s %5s | %10s %8s %8s | %10s %8s %8s | %7s\n' mode conns "forge r/s" "p50 ms" "p99 ms" "node r/s" "p50 ms" "p99 ms" "ratio"
run() { # port conns stream -> "rps p50 p99"
  STREAM=$3 wrk -t1 -c"$2" -d"${secs}s" --latency -s "$here/conversation.lua" "http://127.0.0.1:$1" 2>&1 |
    awk '/Requests\/sec/ {r=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /Non-2xx/ {bad=$4}
         function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
         END { if (bad) { print "ERR ERR ERR"; exit } printf "%.0f %.3f %.3f\n", r, ms(p50), ms(p99) }'
}
for stream in 0 1; do
  mode=whole; [ $stream = 1 ] && mode=stream
  for c in 1 16 64; do
    set -- $(run "$fport" $c $stream) $(run "$nport" $c $stream)
    printf '%-8s %5d | %10s %8s %8s | %10s %8s %8s | %6.2fx\n' $mode $c "$1" "$2" "$3" "$4" "$5" "$6" \
      "$(echo "$1 $4" | awk '{print ($2 > 0 ? $1 / $2 : 0)}')"
  done
done
kill -INT $fpid; wait $fpid 2>/dev/null || true
tail -1 "$tmp/ferr"

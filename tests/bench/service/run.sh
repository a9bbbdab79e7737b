#!/bin/sh
# forge serve --agent under load: chat-sync round trips per second (a turn = one tool call and
# the answer: two scripted model rounds, the tool, the verifiers, a SQLite write of the
# conversation and an audit row) at 1, 16 and 64 concurrent users with autocannon (pinned in
# tests/npm), p50 and p99 latency; then resident memory after many conversations.
# agent-tool-forge's sidecar is not in the package registries this machine reaches, so no peer
# column is printed. Figures only; nothing is asserted.
# usage: tests/bench/service/run.sh [SECONDS] [CONVERSATIONS]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
forge=${FORGE:-$root/build/forge}
secs=${1:-3}
convs=${2:-100000}
command -v node >/dev/null || { echo "node is missing: apt-get install nodejs" >&2; exit 2; }
npm="$root/tests/npm/node_modules"
[ -d "$npm/autocannon" ] || { echo "autocannon is missing: run tests/npm/install.sh" >&2; exit 2; }
tmp=$(mktemp -d)
ln -s "$npm" "$tmp/node_modules"
cp "$here/load.mjs" "$tmp/"
trap 'kill $fpid 2>/dev/null; rm -rf "$tmp"' EXIT
"$forge" serve --agent "$here/agent.lua" --auth none --store "$tmp/bench.db" --listen 127.0.0.1:0 \
  --port-file "$tmp/port" 2>"$tmp/err" &
fpid=$!
while [ ! -s "$tmp/port" ]; do sleep 0.05; done
port=$(cat "$tmp/port")
echo "forge serve --agent, chat-sync on SQLite; autocannon ${secs}s per run; $(nproc) cores shared"
printf '%6s | %10s %8s %8s %7s\n' users "turns/s" "p50 ms" "p99 ms" errors
for c in 1 16 64; do
  set -- $(node "$tmp/load.mjs" "$port" $c "$secs")
  printf '%6d | %10s %8s %8s %7s\n' $c "$1" "$2" "$3" "$4"
done
set -- $(python3 "$here/many.py" "$port" "$fpid" "$convs")
echo "memory: ${1} KiB resident before, ${2} KiB after $convs more conversations ($3 errors); database $(du -k "$tmp/bench.db" | cut -f1) KiB"
echo "server CPU per conversation: ${4} us (user + system); load average now: $(cut -d' ' -f1 /proc/loadavg)"
kill -INT $fpid; wait $fpid 2>/dev/null || true
tail -1 "$tmp/err"

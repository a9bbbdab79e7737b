#!/bin/sh
# MCP tools/call round trips to a trivial tool (echo), in one session, side by side: forge's client
# against the SDK's server, the SDK's client against forge mcp serve, and the SDK talking to
# itself; over stdio and Streamable HTTP. CPU per call of each side (the server's over stdio is
# read from /proc; over HTTP from the server process before and after). Figures only.
# Needs tests/npm (tests/npm/install.sh). usage: tests/bench/mcp/run.sh [CALLS]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
forge=${FORGE:-$root/build/forge}
n=${1:-2000}
npm="$root/tests/npm/node_modules"
[ -d "$npm/@modelcontextprotocol/sdk" ] || { echo "tests/npm is not installed: run tests/npm/install.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'kill $pids 2>/dev/null; rm -rf "$tmp"' EXIT
ln -s "$npm" "$tmp/node_modules"
cp "$here/sdk_server.mjs" "$here/sdk_client.mjs" "$tmp/"
cpu_of() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; } # ms
echo "MCP tools/call round trips to echo, $n calls per line, one session ($(nproc) cores shared)"
printf '%-34s %10s %16s %16s\n' "client -> server (transport)" "calls/s" "client cpu ms" "server cpu ms"
line() { printf '%-34s %10.0f %16.4f %16s\n' "$1" "$2" "$3" "$4"; }
# stdio
r=$(node "$tmp/sdk_client.mjs" "$n" stdio node "$tmp/sdk_server.mjs")
line "sdk -> sdk (stdio)" $(echo "$r" | python3 -c 'import json,sys;d=json.load(sys.stdin);print(d["calls_per_s"],d["cpu_ms_per_call"],"%.4f"%d["server_cpu_ms_per_call"])')
r=$(node "$tmp/sdk_client.mjs" "$n" stdio "$forge" mcp serve "$here/tools.lua")
line "sdk -> forge (stdio)" $(echo "$r" | python3 -c 'import json,sys;d=json.load(sys.stdin);print(d["calls_per_s"],d["cpu_ms_per_call"],"%.4f"%d["server_cpu_ms_per_call"])')
r=$("$forge" mcp call echo '{"text":"hi"}' --repeat "$n" -- node "$tmp/sdk_server.mjs" 2>&1 >/dev/null | tail -1)
line "forge -> sdk (stdio)" $(echo "$r" | python3 -c 'import json,sys;d=json.load(sys.stdin);print(d["calls_per_s"],d["cpu_ms_per_call"],"-")')
r=$("$forge" mcp call echo '{"text":"hi"}' --repeat "$n" -- "$forge" mcp serve "$here/tools.lua" 2>&1 >/dev/null | tail -1)
line "forge -> forge (stdio)" $(echo "$r" | python3 -c 'import json,sys;d=json.load(sys.stdin);print(d["calls_per_s"],d["cpu_ms_per_call"],"-")')
# HTTP: servers started here, their CPU read before and after
port=$((20000 + $$ % 20000))
PORT=$port node "$tmp/sdk_server.mjs" http 2>/dev/null & spid=$!; pids="$pids $spid"
"$forge" mcp serve "$here/tools.lua" --listen 127.0.0.1:0 --port-file "$tmp/fport" 2>/dev/null & fpid=$!; pids="$pids $fpid"
while [ ! -s "$tmp/fport" ]; do sleep 0.05; done
sleep 1
fport=$(cat "$tmp/fport")
http_line() { # label server-pid client-command...
  label=$1; pid=$2; shift 2
  before=$(cpu_of "$pid"); out=$("$@"); after=$(cpu_of "$pid")
  echo "$out" | python3 -c 'import json,sys
d=json.loads(sys.stdin.read().strip().splitlines()[-1]); n=d["calls"]
print(d["calls_per_s"], d["cpu_ms_per_call"], "%.4f" % ((float(sys.argv[2]) - float(sys.argv[1])) / n))' "$before" "$after" |
    { read a b c; line "$label" "$a" "$b" "$c"; }
}
http_line "sdk -> sdk (http)" $spid node "$tmp/sdk_client.mjs" "$n" http "http://127.0.0.1:$port/mcp"
http_line "sdk -> forge (http)" $fpid node "$tmp/sdk_client.mjs" "$n" http "http://127.0.0.1:$fport/mcp"
http_line "forge -> sdk (http)" $spid sh -c "'$forge' mcp call echo '{\"text\":\"hi\"}' --repeat $n http://127.0.0.1:$port/mcp 2>&1 >/dev/null | tail -1"
http_line "forge -> forge (http)" $fpid sh -c "'$forge' mcp call echo '{\"text\":\"hi\"}' --repeat $n http://127.0.0.1:$fport/mcp 2>&1 >/dev/null | tail -1"

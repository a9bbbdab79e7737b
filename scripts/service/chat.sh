#!/bin/sh
# Talks to `forge serve --agent scripts/service/agent.lua --auth none` (docs/service.md):
# a plain answer, a streamed one, and an e-mail that waits for approval and is then approved.
# usage: scripts/service/chat.sh [BASE_URL]     (default http://127.0.0.1:8080)
set -e
base=${1:-http://127.0.0.1:8080}
post() { curl -sS -X POST "$base$1" -H 'Content-Type: application/json' -d "$2"; echo; }
echo "== chat-sync"
post /agent-api/chat-sync '{"message": "What is the weather in Paris?"}'
echo "== chat (SSE)"
curl -sS -N -X POST "$base/agent-api/chat" -H 'Content-Type: application/json' \
  -d '{"message": "weather in Oslo"}'
echo "== a call that needs approval: 409 with a resume token"
paused=$(post /agent-api/chat-sync '{"message": "email bob@example.org see you at noon"}')
echo "$paused"
token=$(printf '%s' "$paused" | sed -n 's/.*"resumeToken":"\([0-9a-f]*\)".*/\1/p')
echo "== approved: the call runs"
post /agent-api/chat/resume "{\"resumeToken\": \"$token\", \"confirmed\": true}"
echo "== the same token again: 410"
post /agent-api/chat/resume "{\"resumeToken\": \"$token\", \"confirmed\": true}"

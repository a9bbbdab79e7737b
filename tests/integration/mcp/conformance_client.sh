#!/bin/sh
# forge's MCP client as the MCP conformance suite's client under test: the suite runs this with
# the server's URL last and the scenario in $MCP_CONFORMANCE_SCENARIO. FORGE names the binary.
url=$(eval echo \${$#})
case "$MCP_CONFORMANCE_SCENARIO" in
initialize) exec "$FORGE" mcp list "$url" ;;
tools_call) exec "$FORGE" mcp call add_numbers '{"a": 5, "b": 3}' "$url" ;;
*) echo "forge's client has no step for scenario $MCP_CONFORMANCE_SCENARIO" >&2; exit 1 ;;
esac

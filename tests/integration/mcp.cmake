# MCP end to end: the protocol by hand over stdio and HTTP (always), and the official SDK and
# reference servers from tests/npm (skipped, naming tests/npm/install.sh, when not installed).
foreach(group protocol sdk conformance)
  add_test(NAME integration.mcp.${group} COMMAND python3 ${FORGE_SRC}/tests/integration/mcp_test.py ${FORGE_BIN} ${group})
  set_tests_properties(integration.mcp.${group} PROPERTIES LABELS integration TIMEOUT 600 SKIP_RETURN_CODE 77)
endforeach()

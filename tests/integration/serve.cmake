# forge serve end to end: the wire by hand (always), and agents on the official SDKs (when
# tests/npm/install.sh has installed them; skipped with that command otherwise).
foreach(group http sdk)
  add_test(NAME integration.serve.${group}
           COMMAND python3 ${FORGE_SRC}/tests/integration/serve_test.py ${FORGE_BIN} ${group})
  set_tests_properties(integration.serve.${group} PROPERTIES LABELS integration TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()

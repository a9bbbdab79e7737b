# CLI cases of the Lua host: forge script, version, help, sandbox limits.
add_test(NAME integration.host
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cases.py ${FORGE_BIN}
                 ${CMAKE_CURRENT_LIST_DIR}/host/cases.json)
set_tests_properties(integration.host PROPERTIES LABELS integration TIMEOUT 300)

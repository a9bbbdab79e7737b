# `forge schema validate` end to end: output, verdicts and exit codes.
add_test(NAME integration.schema_validate
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/schema/run.py ${FORGE_BIN})
set_tests_properties(integration.schema_validate PROPERTIES LABELS integration TIMEOUT 60)

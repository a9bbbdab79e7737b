# forge bfcl score end to end on evals/bfcl: score files, table, flags and exit codes.
add_test(NAME integration.bfcl_cli
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/bfcl_cli.py ${FORGE_BIN} ${FORGE_SRC}
                 ${CMAKE_CURRENT_BINARY_DIR}/bfcl_cli)
set_tests_properties(integration.bfcl_cli PROPERTIES LABELS integration TIMEOUT 120)

# forge bfcl run against the fake provider: requests, result files, scoring them, exit codes.
add_test(NAME integration.bfcl_run
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/bfcl_run.py ${FORGE_BIN} ${FORGE_SRC}
                 ${CMAKE_CURRENT_BINARY_DIR}/bfcl_run)
set_tests_properties(integration.bfcl_run PROPERTIES LABELS integration TIMEOUT 120)

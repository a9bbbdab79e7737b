# forge check end to end: exit codes, malformed lines, formats, streaming order.
add_test(NAME integration.check
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/check_cli.py ${FORGE_BIN} ${FORGE_SRC})
set_tests_properties(integration.check PROPERTIES LABELS integration TIMEOUT 300)

# forge check on random, often malformed trajectories: no crash, every line accounted for.
add_test(NAME integration.check_random
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/check_random.py ${FORGE_BIN})
set_tests_properties(integration.check_random PROPERTIES LABELS integration TIMEOUT 600)

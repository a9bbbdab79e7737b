# Whole suites on the scripted model: exact trajectories and reports, limits, HTTP tools.
add_test(NAME integration.agent
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/agent/check.py ${FORGE_BIN})
set_tests_properties(integration.agent PROPERTIES LABELS integration TIMEOUT 300
                     ENVIRONMENT "ANTHROPIC_API_KEY=")

# HTTP tool definitions and the environment: header injection refused, headers_from_env limited
# to the variables --allow-env names.
add_test(NAME integration.sandbox
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cases.py ${FORGE_BIN}
                 ${CMAKE_CURRENT_LIST_DIR}/sandbox/cases.json)
set_tests_properties(integration.sandbox PROPERTIES LABELS integration TIMEOUT 120)

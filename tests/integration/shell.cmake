# Man pages and shell completion against forge's help text.
add_test(NAME integration.shell
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/shell/check.py ${FORGE_BIN}
                 ${CMAKE_BINARY_DIR}/man ${FORGE_SRC})
set_tests_properties(integration.shell PROPERTIES LABELS integration TIMEOUT 120)

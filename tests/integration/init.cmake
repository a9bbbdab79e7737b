# forge init: the scaffold, suites from tool definitions, and refusals.
add_test(NAME integration.init
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/init/check.py ${FORGE_BIN} ${FORGE_SRC})
set_tests_properties(integration.init PROPERTIES LABELS integration TIMEOUT 120)

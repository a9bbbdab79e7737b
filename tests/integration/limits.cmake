# Every entry point into Lua (a script's top level, require, tools/rules/assertions files of
# forge run, tool, template, verifier, custom assertion, scripted rule and approval functions,
# and converting a returned value) under each limit: the exact limit error, every time.
add_test(NAME integration.limits
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cases.py ${FORGE_BIN}
                 ${CMAKE_CURRENT_LIST_DIR}/limits/cases.json)
set_tests_properties(integration.limits PROPERTIES LABELS integration TIMEOUT 300)

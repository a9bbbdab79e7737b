# Input handling: unbounded inputs (/dev/zero, pipes, 10 GB lines as sparse files), the file,
# line and JSON value limits, invalid UTF-8, bytes after a value, folders given as files
# (tests/integration/input/cases.json).
add_test(NAME integration.input
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cases.py ${FORGE_BIN}
                 ${CMAKE_CURRENT_LIST_DIR}/input/cases.json)
set_tests_properties(integration.input PROPERTIES LABELS integration TIMEOUT 300)

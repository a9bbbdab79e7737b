# Flat memory: reports read back from the results file equal in-memory ones whatever -j, eval
# files read a case at a time keep their file:line:col errors, peak RSS does not grow with cases.
add_test(NAME integration.flatmem COMMAND python3 ${FORGE_SRC}/tests/integration/flatmem_test.py ${FORGE_BIN})
set_tests_properties(integration.flatmem PROPERTIES LABELS integration TIMEOUT 600)

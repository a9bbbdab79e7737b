# The install tree: `cmake --install` into a temporary prefix, the demo run from there.
add_test(NAME integration.install
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/install/check.py ${CMAKE_BINARY_DIR})
set_tests_properties(integration.install PROPERTIES LABELS integration TIMEOUT 120)

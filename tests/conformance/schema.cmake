# JSON Schema Test Suite: every required test of drafts 4, 6, 7, 2019-09 and 2020-12 must pass;
# optional tests (format assertions and the rest) are counted and printed.
add_executable(schema_suite ${CMAKE_CURRENT_LIST_DIR}/schema_suite.c)
target_link_libraries(schema_suite PRIVATE forge_core)
forge_shared_suite(conformance.json_schema_suite testdata/json-schema-test-suite)
if(FORGE_SHARED_OK)
  add_test(NAME conformance.json_schema_suite
           COMMAND schema_suite ${SHARED}/testdata/json-schema-test-suite
                   draft4 draft6 draft7 draft2019-09 draft2020-12)
  set_tests_properties(conformance.json_schema_suite PROPERTIES LABELS conformance TIMEOUT 300)
endif()

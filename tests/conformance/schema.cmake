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

# First-error mode's two paths (the verdict walk's trail replayed, the recording walk) give the
# same errors, byte for byte: over the benchmark cases, and over every instance of the suite.
add_executable(schema_paths ${CMAKE_CURRENT_LIST_DIR}/schema_paths.c)
target_link_libraries(schema_paths PRIVATE forge_core)
add_test(NAME conformance.schema_paths_bench
         COMMAND schema_paths ${CMAKE_SOURCE_DIR}/tests/bench/schema/cases)
set_tests_properties(conformance.schema_paths_bench PROPERTIES LABELS conformance TIMEOUT 300)
forge_shared_suite(conformance.schema_paths_suite testdata/json-schema-test-suite)
if(FORGE_SHARED_OK)
  set(jsts ${SHARED}/testdata/json-schema-test-suite)
  add_test(NAME conformance.schema_paths_suite
           COMMAND schema_paths --remotes ${jsts}/remotes --draft 4 ${jsts}/tests/draft4
                   --draft 6 ${jsts}/tests/draft6 --draft 7 ${jsts}/tests/draft7
                   --draft 2019 ${jsts}/tests/draft2019-09 --draft 2020 ${jsts}/tests/draft2020-12)
  set_tests_properties(conformance.schema_paths_suite PROPERTIES LABELS conformance TIMEOUT 300)
endif()

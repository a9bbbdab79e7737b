# forge check: agent-eval-harness tool-use conformance vectors (../shared/testdata/tool-use-conformance).
add_executable(tooluse_conformance ${CMAKE_CURRENT_LIST_DIR}/tooluse_conformance.c)
target_link_libraries(tooluse_conformance PRIVATE forge_core)
forge_shared_suite(conformance.tooluse testdata/tool-use-conformance)
if(FORGE_SHARED_OK)
  add_test(NAME conformance.tooluse_c
           COMMAND tooluse_conformance ${SHARED}/testdata/tool-use-conformance)
  set_tests_properties(conformance.tooluse_c PROPERTIES LABELS conformance TIMEOUT 120)

  # The same vectors through the Lua API (forge.check), as scripts call it.
  add_test(NAME conformance.tooluse_lua
           COMMAND ${FORGE_BIN} script --allow-read ${SHARED}/testdata/tool-use-conformance
                   ${CMAKE_CURRENT_LIST_DIR}/tooluse_conformance.lua ${SHARED}/testdata/tool-use-conformance)
  set_tests_properties(conformance.tooluse_lua PROPERTIES LABELS conformance TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "68 passed, 0 failed, 68 cases")
endif()

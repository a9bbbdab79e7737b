# BFCL conformance: forge's score files for the dev oracle (../shared/testdata/bfcl/dev, outputs
# of two model settings with the verdicts BFCL's own checker gave) must equal BFCL's, entry for
# entry, field for field.
forge_shared_suite(conformance.bfcl_dev testdata/bfcl/dev)
if(FORGE_SHARED_OK)
  add_test(NAME conformance.bfcl_dev
           COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/bfcl_compare.py ${FORGE_BIN}
                   ${SHARED}/testdata/bfcl/dev ${CMAKE_CURRENT_BINARY_DIR}/bfcl_dev_scores)
  set_tests_properties(conformance.bfcl_dev PROPERTIES LABELS conformance TIMEOUT 300)
endif()

# `forge run`: eval-file validation errors, offline scoring of transcripts, reports, gates,
# baseline comparison (tests/integration/run/cases.json).
add_test(NAME integration.run
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cases.py ${FORGE_BIN}
                 ${CMAKE_CURRENT_LIST_DIR}/run/cases.json)
set_tests_properties(integration.run PROPERTIES LABELS integration TIMEOUT 300)

# forge doctor: the environment checks, in controlled environments.
add_test(NAME integration.doctor
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/doctor/check.py ${FORGE_BIN})
set_tests_properties(integration.doctor PROPERTIES LABELS integration TIMEOUT 120)

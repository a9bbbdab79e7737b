# The JSON Schema and pattern units again under valgrind's memcheck, which sees what ASan and
# UBSan do not: a read of memory never written (the validators keep hand-made state, such as
# the verdict walk's trail, on the stack). Skipped without valgrind, naming the install command;
# FORGE_REQUIRE_VALGRIND=1 (CI) makes that a failure. Not in the sanitizer build, whose programs
# valgrind cannot run.
if(NOT FORGE_SANITIZE)
  foreach(unit test_schema test_ecmare)
    add_test(NAME integration.memcheck.${unit}
             COMMAND sh ${FORGE_SRC}/tests/integration/memcheck.sh $<TARGET_FILE:${unit}>
             WORKING_DIRECTORY ${FORGE_SRC}/tests)
    set_tests_properties(integration.memcheck.${unit} PROPERTIES LABELS integration TIMEOUT 600
                         SKIP_RETURN_CODE 77)
  endforeach()
endif()

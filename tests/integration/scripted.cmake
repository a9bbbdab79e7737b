# The scripted model's C engine gives the Lua engine's answers, transcript for transcript.
add_test(NAME integration.scripted
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/scripted/check.py ${FORGE_BIN})
set_tests_properties(integration.scripted PROPERTIES LABELS integration TIMEOUT 120)

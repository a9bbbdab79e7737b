# The agent service end to end (forge serve --agent): the API on SQLite, and the auth tiers
# with JWTs minted by the openssl command line, two replicas on one PostgreSQL, and a provider
# model (the fake provider) cancelled in flight and streamed token by token, and the user's
# hitlLevel preference.
foreach(group api auth pg provider hitl)
  add_test(NAME integration.service.${group}
           COMMAND python3 ${FORGE_SRC}/tests/integration/service_test.py ${FORGE_BIN} ${group})
  set_tests_properties(integration.service.${group} PROPERTIES LABELS integration TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()

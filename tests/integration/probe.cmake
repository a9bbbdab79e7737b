# forge probe end to end: built-in probes over every dialect's wire (forge serve with scripted
# models that pass and fail them), user probes for each outcome class against the fake provider.
add_test(NAME integration.probe COMMAND python3 ${FORGE_SRC}/tests/integration/probe_test.py ${FORGE_BIN})
set_tests_properties(integration.probe PROPERTIES LABELS integration TIMEOUT 600)

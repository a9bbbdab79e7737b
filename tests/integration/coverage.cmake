# forge coverage and forge gen on a hand-made tool set with known gaps (exact reports, the
# scripted model drafting cases, verifier stubs run in a suite, bad input).
add_test(NAME integration.coverage COMMAND python3 ${FORGE_SRC}/tests/integration/coverage_test.py ${FORGE_BIN})
set_tests_properties(integration.coverage PROPERTIES LABELS integration TIMEOUT 300)

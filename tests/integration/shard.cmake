# Sharded runs merged equal one run (N = 1, 2, 3, 7; offline and live), and what merge refuses.
add_test(NAME integration.shard COMMAND python3 ${FORGE_SRC}/tests/integration/shard_test.py ${FORGE_BIN})
set_tests_properties(integration.shard PROPERTIES LABELS integration TIMEOUT 600)

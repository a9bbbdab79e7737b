# YAML beside JSON: YAML eval files score as JSON ones, forge.evals and forge.yaml read YAML,
# PromptKit tool descriptors run as tools (mock, template, live HTTP), refusals at file:line:col.
add_test(NAME integration.yaml COMMAND python3 ${FORGE_SRC}/tests/integration/yaml_test.py ${FORGE_BIN})
set_tests_properties(integration.yaml PROPERTIES LABELS integration TIMEOUT 300)

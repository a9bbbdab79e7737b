# Model providers end to end: forge model complete|batch against the fake provider server
# (tests/support/fake_provider.py), one test per dialect and per concern.
foreach(group openai openai-responses anthropic gemini ollama transport hygiene cache replay batch)
  add_test(NAME integration.providers.${group}
           COMMAND python3 ${FORGE_SRC}/tests/integration/providers_test.py ${FORGE_BIN} ${group})
  set_tests_properties(integration.providers.${group} PROPERTIES LABELS integration TIMEOUT 240)
endforeach()

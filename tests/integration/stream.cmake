# Streamed answers end to end, per dialect: the fake provider's event sequences and forge serve's,
# assembled into the same normalized responses as whole answers; cut, stalled and broken streams.
foreach(d openai openai-responses anthropic gemini ollama)
  add_test(NAME integration.stream.${d}
           COMMAND python3 ${FORGE_SRC}/tests/integration/stream_test.py ${FORGE_BIN} ${d})
  set_tests_properties(integration.stream.${d} PROPERTIES LABELS integration TIMEOUT 300)
endforeach()

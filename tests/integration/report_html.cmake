# The offline HTML report: its structure and escaping with Python's standard library (always),
# and the page in headless Chromium driven by playwright-core (skipped, naming the install
# command, without /usr/bin/chromium or tests/npm/node_modules; FORGE_REQUIRE_BROWSER=1 and
# FORGE_REQUIRE_NPM=1 make that a failure).
foreach(mode structure browser)
  add_test(NAME integration.report_html.${mode}
           COMMAND python3 ${FORGE_SRC}/tests/integration/report_html_test.py ${FORGE_BIN} ${mode})
  set_tests_properties(integration.report_html.${mode} PROPERTIES LABELS integration TIMEOUT 600 SKIP_RETURN_CODE 77)
endforeach()

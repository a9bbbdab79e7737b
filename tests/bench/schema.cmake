# Benchmark driver of the JSON Schema validator (built, not run by ctest; see
# tests/bench/schema/run.sh, which compares it with ajv).
add_executable(bench_schema ${CMAKE_CURRENT_LIST_DIR}/schema/bench_schema.c)
target_link_libraries(bench_schema PRIVATE forge_core)

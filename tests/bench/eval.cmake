# Benchmark program of the eval engine (built, not run by ctest; see tests/bench/eval/run.sh).
add_executable(bench_eval ${CMAKE_CURRENT_LIST_DIR}/eval/bench_eval.c)
target_link_libraries(bench_eval PRIVATE forge_core)

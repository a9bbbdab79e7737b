# Benchmark programs of the Lua host (built, not run by ctest; see tests/bench/host/run.sh).
add_executable(bench_vm ${CMAKE_CURRENT_LIST_DIR}/host/bench_vm.c)
target_link_libraries(bench_vm PRIVATE forge_core)
# Reading streamed answers against whole ones, parsing only (see tests/bench/probe/run.sh).
add_executable(bench_stream ${CMAKE_CURRENT_LIST_DIR}/probe/bench_stream.c)
target_link_libraries(bench_stream PRIVATE forge_core)

# Fuzz targets (tests/fuzz/fuzz_<target>.c, see docs/internals.md "Fuzzing"). Each target is
# built with tests/fuzz/replay.c into fuzz_replay_<target>, and the ctest fuzz.<target> (label
# fuzz) replays its corpus tests/fuzz/corpus/<target>/ with any compiler. Configured with
# -DFORGE_FUZZ=ON under clang (tests/fuzz/run.sh does this in build-fuzz/), each target is also
# linked with libFuzzer as fuzz_<target>.
set(FORGE_FUZZ_TARGETS json lua_json evalfile trajectory dialect stream schema bfcl ecmare lua_api serve yaml jwt jpack)
foreach(t ${FORGE_FUZZ_TARGETS})
  add_executable(fuzz_replay_${t} ${FORGE_SRC}/tests/fuzz/fuzz_${t}.c ${FORGE_SRC}/tests/fuzz/replay.c)
  target_link_libraries(fuzz_replay_${t} PRIVATE forge_core)
  add_test(NAME fuzz.${t} COMMAND fuzz_replay_${t} ${FORGE_SRC}/tests/fuzz/corpus/${t})
  set_tests_properties(fuzz.${t} PROPERTIES LABELS fuzz TIMEOUT 120)
  if(FORGE_FUZZ)
    add_executable(fuzz_${t} ${FORGE_SRC}/tests/fuzz/fuzz_${t}.c)
    target_compile_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_${t} PRIVATE forge_core)
  endif()
endforeach()

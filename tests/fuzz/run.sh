#!/bin/sh
# Builds forge's libFuzzer targets with clang (address + undefined sanitizers, coverage
# instrumentation) in build-fuzz/ and runs each for N seconds on a scratch copy of its corpus,
# so new inputs never land in the repository by themselves.
#
#   tests/fuzz/run.sh [-t SECONDS] [-j JOBS] [TARGET...]
#
# SECONDS defaults to 60 per target, JOBS (targets run at once) to 1; TARGET defaults to all
# of json lua_json evalfile trajectory dialect schema bfcl ecmare lua_api serve yaml jwt. Crashes, leaks and timeouts
# are written as build-fuzz/findings/<target>/crash-* (or leak-*, timeout-*); minimize one with
#   build-fuzz/tests/fuzz_<target> -minimize_crash=1 -runs=20000 FILE
# and add it to tests/fuzz/corpus/<target>/ so the replay ctest keeps it fixed.
set -eu
secs=60
jobs=1
while getopts t:j: opt; do
    case $opt in
    t) secs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) echo "usage: $0 [-t SECONDS] [-j JOBS] [TARGET...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$src/build-fuzz
targets=${*:-json lua_json evalfile trajectory dialect schema bfcl ecmare lua_api serve yaml jwt}

CC=${CC:-clang} cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Debug -DFORGE_SANITIZE=ON \
    -DFORGE_FUZZ=ON -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link -O1" >/dev/null
cmake --build "$out" -j2 --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done)

run_one() {
    t=$1
    work=$out/corpus-work/$t
    mkdir -p "$work" "$out/findings/$t"
    cp -n "$src/tests/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
    echo "== fuzz_$t: ${secs}s"
    (cd "$out/findings/$t" &&
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
            "$out/tests/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
            -max_len=8192 -print_final_stats=1 "$work" >"$out/findings/$t/log.txt" 2>&1) ||
        echo "!! fuzz_$t stopped with a finding: see $out/findings/$t/log.txt"
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$out/findings/$t/log.txt" |
        sed "s/^/   $t /" || true
}

running=0
for t in $targets; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait

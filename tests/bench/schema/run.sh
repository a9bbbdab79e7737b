#!/bin/sh
# JSON Schema validation throughput: forge beside ajv 8 on the same schemas and instances
# (tests/bench/schema/cases, plus the JSON Schema Test Suite's draft 2020-12 tests as a mixed
# set when ../shared/testdata is present), in first-error and all-errors modes, with the errors
# as structured records and (for the invalid sets) with their text made too. ajv is the
# version pinned in tests/npm/package.json, taken from tests/npm/node_modules when
# tests/npm/install.sh has run, else installed (the same version) from the npm registry into
# tests/bench/.scratch on first use. Builds an optimized forge in build-bench and runs both
# validators on each case file side by side, in short alternating slices (slices.py: one process
# each, calibrated, warmed up, then a slice of forge, a slice of ajv, and so on for about
# SECONDS_PER_FIGURE each), so a load that comes and goes on a shared machine falls on both
# alike. Prints validations per second, their ratio, the median of the slices' own ratios and
# their tenth percentile. With --before REV it also builds forge's library at git revision REV
# (build-bench-before, from `git archive`, with this driver) and runs it as a third side,
# printing its ratio to ajv beside the current one. Asserts nothing.
# usage: [SLICE_MS=20] tests/bench/schema/run.sh [--before REV] [SECONDS_PER_FIGURE]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
before=
if [ "$1" = "--before" ]; then
  before=$2
  shift 2
fi
secs=${1:-1}
scratch=$root/tests/bench/.scratch
mkdir -p "$scratch"
# the pinned version (tests/npm/package.json), from tests/npm/node_modules or the scratch folder
ajv_pin=$(node -e "console.log(require('$root/tests/npm/package.json').dependencies.ajv)")
modules=$root/tests/npm/node_modules
if [ "$(node -e "try{console.log(require('$modules/ajv/package.json').version)}catch(e){}")" != "$ajv_pin" ]; then
  modules=$scratch/node_modules
  if [ "$(node -e "try{console.log(require('$modules/ajv/package.json').version)}catch(e){}")" != "$ajv_pin" ]; then
    (cd "$scratch" && npm install --silent --no-audit --no-fund --no-save --prefix "$scratch" \
      "ajv@$ajv_pin" >/dev/null)
  fi
fi
# older revisions' -O3 builds warn of a maybe-uninitialized variable in code the benchmark does
# not run (data/jscan.c before 1991d6d): that warning must not stop the --before build
relflags=-DCMAKE_C_FLAGS=-Wno-error=maybe-uninitialized
cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build-bench" -j2 --target bench_schema >/dev/null
if [ -n "$before" ]; then
  rm -rf "$scratch/before-src"
  mkdir -p "$scratch/before-src"
  # extracted files take the time of extraction (tar -m), not the commit's: the build folder is
  # kept from run to run, and make would otherwise keep objects built from another revision
  # whose sources are newer than this one's commit
  (cd "$root" && git archive "$before") | tar -x -m -C "$scratch/before-src"
  # REV's library with this driver (its serve mode): REV must have the driver's target
  cp "$here/bench_schema.c" "$scratch/before-src/tests/bench/schema/bench_schema.c"
  cmake -S "$scratch/before-src" -B "$root/build-bench-before" -DCMAKE_BUILD_TYPE=Release \
    "$relflags" >/dev/null
  cmake --build "$root/build-bench-before" -j2 --target bench_schema >/dev/null
fi
cases=$(ls "$here"/cases/*.json)
suite=$root/../shared/testdata/json-schema-test-suite
if [ -d "$suite/tests/draft2020-12" ]; then
  # the suite's required draft 2020-12 tests, less the groups ajv cannot compile or answers
  # differently from the suite (both tools then run the same groups)
  python3 "$here/suite_cases.py" "$suite" "$scratch/suite_all.json" 2>/dev/null
  node "$here/ajv_bench.js" "$modules" filter "$scratch/suite_all.json" \
    "$scratch/test_suite.json" 2>/dev/null
  cases="$cases $scratch/test_suite.json"
else
  echo "(no ../shared/testdata: the JSON Schema Test Suite set is skipped)"
fi
ajv_version=$(node -e "console.log(require('$modules/ajv/package.json').version)")
echo "forge vs ajv $ajv_version (node $(node --version)), validations per second, about ${secs}s per figure"
echo "in ${SLICE_MS:-20} ms slices, forge and ajv in turn (tests/bench/schema/slices.py)"
# first, all: errors as records (forge's until rendered; ajv's objects without messages);
# first-text, all-text: every error's text made too (forge renders, ajv builds its messages; the
# valid sets, which have no errors, run as in the first two)
for mode in first all first-text all-text; do
  out=$scratch/slices.$mode.jsonl
  : > "$out"
  for c in $cases; do
    python3 "$here/slices.py" "$mode" "$secs" "$c" "$root/build-bench/tests/bench_schema" "$modules" \
      ${before:+"$root/build-bench-before/tests/bench_schema"} >> "$out"
  done
  python3 - "$mode" "$out" <<'PY'
import json, sys
mode, path = sys.argv[1:]
rows = [json.loads(line) for line in open(path)]
before = "before" in rows[0]
head = f"\n{'errors: ' + mode:<34} {'forge/s':>12} {'ajv/s':>12} {'forge/ajv':>10} {'slices':>7} {'low':>6}"
print(head + (f" {'before/ajv':>11}" if before else ""))
for r in rows:
    name = f"{r['case'][:-5]} ({r['set']})"
    line = (f"{name:<34} {r['forge']:>12,} {r['ajv']:>12,} {r['forge'] / r['ajv']:>9.2f}x"
            f" {r['slices']:>6.2f}x {r['low']:>5.2f}x")
    if before:
        line += f" {r['before'] / r['ajv']:>10.2f}x"
    print(line)
PY
done

#!/bin/sh
# JSON Schema validation throughput: forge beside ajv 8 on the same schemas and instances
# (tests/bench/schema/cases, plus the JSON Schema Test Suite's draft 2020-12 tests as a mixed
# set when ../shared/testdata is present), in first-error and all-errors modes, with the errors
# as structured records and (for the invalid sets) with their text made too. ajv is the
# version pinned in tests/npm/package.json, taken from tests/npm/node_modules when
# tests/npm/install.sh has run, else installed (the same version) from the npm registry into
# tests/bench/.scratch on first use. Builds an optimized forge in
# build-bench, prints validations per second (best of ROUNDS interleaved rounds, 3 unless the
# environment sets ROUNDS), the ratio of the two bests, and the median of the rounds' own ratios
# (forge's figure over ajv's measured just after it, in the same round: robust to a machine
# whose load changes between rounds). With --before REV it also builds forge at git revision REV (build-bench-before,
# from `git archive`) and prints its ratio to ajv beside the current one. Asserts nothing.
# usage: tests/bench/schema/run.sh [--before REV] [SECONDS_PER_MEASURE]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
before=
if [ "$1" = "--before" ]; then
  before=$2
  shift 2
fi
secs=${1:-0.5}
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
echo "forge vs ajv $ajv_version (node $(node --version)), validations per second, ${secs}s per figure"
rounds=${ROUNDS:-3}
# first, all: errors as records (forge's until rendered; ajv's objects without messages);
# first-text, all-text: every error's text made too (forge renders, ajv builds its messages; the
# valid sets, which have no errors, run as in the first two). The "before" build is run in the
# first two modes only.
for mode in first all first-text all-text; do
  : > "$scratch/forge.$mode.jsonl"
  : > "$scratch/ajv.$mode.jsonl"
  : > "$scratch/before.$mode.jsonl"
  # interleaved rounds; each figure is the best of its rounds (the machine may be shared)
  for r in $(seq $rounds); do
    for c in $cases; do
      "$root/build-bench/tests/bench_schema" "$mode" "$secs" "$c" >> "$scratch/forge.$mode.jsonl"
      node "$here/ajv_bench.js" "$modules" "$mode" "$secs" "$c" >> "$scratch/ajv.$mode.jsonl"
      if [ -n "$before" ] && [ "${mode%-text}" = "$mode" ]; then
        # the old driver reads single-schema cases only
        "$root/build-bench-before/tests/bench_schema" "$mode" "$secs" "$c" \
          >> "$scratch/before.$mode.jsonl" 2>/dev/null || true
      fi
    done
  done
  python3 - "$mode" "$scratch/forge.$mode.jsonl" "$scratch/ajv.$mode.jsonl" "$scratch/before.$mode.jsonl" <<'PY'
import json, sys
mode, ff, af, bf = sys.argv[1:]
def rounds(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        out.setdefault((r["case"], r["set"]), []).append(r["per_sec"])
    return out
fr, ar, br = rounds(ff), rounds(af), rounds(bf)
f, a, b = ({k: max(v) for k, v in d.items()} for d in (fr, ar, br))
def paired(k):
    # each round's forge figure over the ajv figure measured next to it
    rs = sorted(x / y for x, y in zip(fr[k], ar[k]))
    n = len(rs)
    return rs[n // 2] if n % 2 else (rs[n // 2 - 1] + rs[n // 2]) / 2
head = f"\n{'errors: ' + mode:<34} {'forge/s':>12} {'ajv/s':>12} {'forge/ajv':>10} {'paired':>7}"
print(head + (f" {'before/ajv':>11}" if b else ""))
for k in f:
    name = f"{k[0][:-5]} ({k[1]})"
    line = f"{name:<34} {f[k]:>12,.0f} {a[k]:>12,.0f} {f[k] / a[k]:>9.2f}x {paired(k):>6.2f}x"
    if b:
        line += f" {b[k] / a[k]:>10.2f}x" if k in b else f" {'-':>11}"
    print(line)
PY
done

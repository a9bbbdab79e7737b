#!/bin/sh
# JSON Schema validation throughput: forge beside ajv 8 on the same tool schemas and instances
# (tests/bench/schema/cases), in first-error and all-errors modes. Installs ajv@8 from the npm
# registry into tests/bench/.scratch on first use, builds an optimized forge in build-bench,
# prints validations per second (best of 3 interleaved rounds) and the ratio forge/ajv.
# Asserts nothing.
# usage: tests/bench/schema/run.sh [SECONDS_PER_MEASURE]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
secs=${1:-0.5}
scratch=$root/tests/bench/.scratch
if [ ! -d "$scratch/node_modules/ajv" ]; then
  mkdir -p "$scratch"
  (cd "$scratch" && npm install --silent --no-audit --no-fund --prefix "$scratch" ajv@8 >/dev/null)
fi
cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build-bench" -j2 --target bench_schema >/dev/null
ajv_version=$(node -e "console.log(require('$scratch/node_modules/ajv/package.json').version)")
echo "forge vs ajv $ajv_version (node $(node --version)), validations per second, ${secs}s per figure"
rounds=3
for mode in first all; do
  : > "$scratch/forge.$mode.jsonl"
  : > "$scratch/ajv.$mode.jsonl"
  # interleaved rounds; each figure is the best of its rounds (the machine may be shared)
  for r in $(seq $rounds); do
    "$root/build-bench/tests/bench_schema" "$mode" "$secs" "$here"/cases/*.json >> "$scratch/forge.$mode.jsonl"
    node "$here/ajv_bench.js" "$scratch/node_modules" "$mode" "$secs" "$here"/cases/*.json >> "$scratch/ajv.$mode.jsonl"
  done
  python3 - "$mode" "$scratch/forge.$mode.jsonl" "$scratch/ajv.$mode.jsonl" <<'PY'
import json, sys
mode, ff, af = sys.argv[1:]
def best(path):
    out = {}
    for r in map(json.loads, open(path)):
        k = (r["case"], r["set"])
        out[k] = max(out.get(k, 0), r["per_sec"])
    return out
f, a = best(ff), best(af)
print(f"\n{'errors: ' + mode:<34} {'forge/s':>12} {'ajv/s':>12} {'forge/ajv':>10}")
for k in f:
    name = f"{k[0][:-5]} ({k[1]})"
    print(f"{name:<34} {f[k]:>12,.0f} {a[k]:>12,.0f} {f[k] / a[k]:>9.2f}x")
PY
done

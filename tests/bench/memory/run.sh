#!/bin/sh
# Flat memory: peak RSS and wall time of forge runs of 10,000 / 100,000 / 1,000,000 generated
# cases (a live run on the scripted model, and a run scoring recorded transcripts, each writing
# JUnit and Markdown reports), and of `forge report merge` over 16 shards. Prints figures side by
# side with an older forge when OLD names its binary; asserts nothing.
#
# usage: tests/bench/memory/run.sh [BUILD_DIR] [N...]
#   N defaults to "10000 100000 1000000"; the live run of 1,000,000 cases takes minutes.
# environment:
#   OLD=/path/to/forge   an older binary to compare with, e.g. main before flat memory:
#                          git worktree add /tmp/forge-7c4733b 7c4733b
#                          cmake -S /tmp/forge-7c4733b -B /tmp/forge-7c4733b/build -DCMAKE_BUILD_TYPE=Release
#                          cmake --build /tmp/forge-7c4733b/build -j2 --target forge
#   OLD_MAX=100000       largest N run with OLD (it holds every case and result in memory)
#   LIVE_MAX=1000000     largest N run live (the scripted model: about 3,000 cases/s)
#   MERGE_N=100000       cases of the sharded run that is merged; MERGE_SHARDS=16
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build}
[ $# -gt 0 ] && shift
sizes=${*:-10000 100000 1000000}
forge=$build/forge
old=${OLD:-}
old_max=${OLD_MAX:-100000}
live_max=${LIVE_MAX:-1000000}
merge_n=${MERGE_N:-100000}
shards=${MERGE_SHARDS:-16}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export SOURCE_DATE_EPOCH=1700000000
# a million cases is a 300 MB eval file of 20 million JSON values: over the default input limits
limits="--max-file-mb 4096 --max-json-nodes 1000000000"

# measure LABEL BINARY ARGS...: "peak-RSS-MiB wall-s" of one run (exit status ignored)
measure() {
  /usr/bin/time -f "%M %e" -o "$data/time" "$@" >/dev/null 2>"$data/stderr" || true
  tail -n 1 "$data/time" | awk '{ printf "%.1f %.2f", $1 / 1024, $2 }'
}

row() { # label n new old
  printf "%-9s %9s cases  forge: %8s MiB %8s s" "$1" "$2" "${3% *}" "${3#* }"
  if [ -n "$4" ]; then
    printf "   old: %8s MiB %8s s   RSS old/new %6.1fx" "${4% *}" "${4#* }" \
      "$(awk -v a="${4% *}" -v b="${3% *}" 'BEGIN { print a / b }')"
  fi
  printf "\n"
}

echo "flat memory: peak RSS (MiB) and wall time (s); reports junit + md (load average: $(cut -d' ' -f1 /proc/loadavg))"
for n in $sizes; do
  python3 "$here/gen.py" "$data/s$n" "$n"
  d=$data/s$n
  if [ "$n" -le "$live_max" ]; then
    new=$(measure "$forge" run "$d/cases.json" --model "scripted:$d/rules.lua" --tools "$d/tools.lua" -q $limits \
          --report "junit=$d/live.xml" --report "md=$d/live.md")
    o=
    if [ -n "$old" ] && [ "$n" -le "$old_max" ]; then
      o=$(measure "$old" run "$d/cases.json" --model "scripted:$d/rules.lua" --tools "$d/tools.lua" -q $limits \
          --report "junit=$d/old-live.xml" --report "md=$d/old-live.md")
    fi
    row live "$n" "$new" "$o"
  fi
  new=$(measure "$forge" run "$d/cases.json" --transcripts "$d/transcripts.jsonl" -q $limits \
        --report "junit=$d/rec.xml" --report "md=$d/rec.md")
  o=
  if [ -n "$old" ] && [ "$n" -le "$old_max" ]; then
    o=$(measure "$old" run "$d/cases.json" --transcripts "$d/transcripts.jsonl" -q $limits \
        --report "junit=$d/old-rec.xml" --report "md=$d/old-rec.md")
    if cmp -s "$d/rec.xml" "$d/old-rec.xml" && cmp -s "$d/rec.md" "$d/old-rec.md"; then same="(reports equal)"; else same="(REPORTS DIFFER)"; fi
  else
    same=
  fi
  row recorded "$n" "$new" "$o"
  [ -n "$same" ] && echo "                          $same"
  rm -rf "$d"
done

# merge: one run of MERGE_N cases in MERGE_SHARDS shards, each shard a process
python3 "$here/gen.py" "$data/m" "$merge_n"
d=$data/m
i=1
while [ "$i" -le "$shards" ]; do
  "$forge" run "$d/cases.json" --transcripts "$d/transcripts.jsonl" -q $limits --shard "$i/$shards" \
    --report "jsonl=$d/shard$i.jsonl" >/dev/null 2>&1 || true
  i=$((i + 1))
done
new=$(measure "$forge" report merge "$d"/shard*.jsonl -q --report "json=$d/m.json" --report "junit=$d/m.xml" --report "md=$d/m.md")
o=
if [ -n "$old" ]; then
  o=$(measure "$old" report merge "$d"/shard*.jsonl -q --report "json=$d/o.json" --report "junit=$d/o.xml" --report "md=$d/o.md")
fi
row "merge/$shards" "$merge_n" "$new" "$o"
if [ -n "$old" ]; then
  if cmp -s "$d/m.json" "$d/o.json" && cmp -s "$d/m.xml" "$d/o.xml" && cmp -s "$d/m.md" "$d/o.md"; then
    echo "                          (merged reports equal)"
  else
    echo "                          (MERGED REPORTS DIFFER)"
  fi
fi

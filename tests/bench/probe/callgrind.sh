#!/bin/sh
# Section 0 of run.sh in instructions, which repeat on a busy machine where microseconds do not:
# for each dialect and answer, callgrind counts the instructions of read_whole and read_stream in
# bench_stream (N answers each) and prints them per answer with the ratio stream / whole. With a
# second bench_stream (BEFORE=path, e.g. built from an older commit with this bench's source), the
# ratios are printed side by side.
# usage: tests/bench/probe/callgrind.sh BENCH_STREAM [N]      (BEFORE=OLD_BENCH_STREAM optional)
set -e
bench=$1
n=${2:-10}
count() { # bench dialect answer -> "whole stream"
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$1" "$n" "$2" "$3" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
    awk -v n="$n" '/bench_stream.c:read_whole /{gsub(",","",$1); w=$1} /bench_stream.c:read_stream /{gsub(",","",$1); s=$1}
                   END{printf "%d %d\n", w/n, s/n}'
  rm -f "$out"
}
if [ -n "$BEFORE" ]; then
  printf '%-18s %-6s %12s %14s %8s %14s %8s\n' dialect answer "whole Ir" "before str Ir" before "after str Ir" after
else
  printf '%-18s %-6s %12s %12s %8s\n' dialect answer "whole Ir" "stream Ir" ratio
fi
for a in text calls; do
  for d in openai openai-responses anthropic gemini ollama; do
    set -- $(count "$bench" $d $a)
    if [ -n "$BEFORE" ]; then
      w=$1 s=$2
      set -- $(count "$BEFORE" $d $a)
      printf '%-18s %-6s %12d %14d %7.2fx %14d %7.2fx\n' $d $a "$w" "$2" "$(echo "$2 $1" | awk '{print $1/$2}')" "$s" \
        "$(echo "$s $w" | awk '{print $1/$2}')"
    else
      printf '%-18s %-6s %12d %12d %7.2fx\n' $d $a "$1" "$2" "$(echo "$2 $1" | awk '{print $1/$2}')"
    fi
  done
done

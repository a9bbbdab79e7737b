#!/bin/sh
# Runs a unit test program under valgrind's memcheck: a read of memory that was never written
# (which the sanitizers do not see) or an invalid access fails it. Skipped (exit 77, naming the
# install command) without valgrind, unless FORGE_REQUIRE_VALGRIND=1 makes that a failure.
# usage: memcheck.sh PROGRAM [ARG...]
if ! command -v valgrind >/dev/null 2>&1; then
  msg="valgrind is not installed: apt-get install -y valgrind"
  if [ "$FORGE_REQUIRE_VALGRIND" = 1 ]; then
    echo "FAIL $msg"
    exit 1
  fi
  echo "SKIPPED: $msg"
  exit 77
fi
exec valgrind -q --error-exitcode=9 --leak-check=no "$@"

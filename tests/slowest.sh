#!/bin/sh
# After `make check`: the ten slowest of the tests it ran, with their
# times (tests/NAME.ms, written by tests/timed-driver.sh), slowest first.
#   tests/slowest.sh TEST...      from the build tree
for t; do
  ms=${t%.sh}.ms
  [ -f "$ms" ] && printf '%s %s\n' "$(cat "$ms")" "${t#tests/}"
done | sort -rn | head -10 | awk '
  NR == 1 { print "the ten slowest tests:" }
  { printf "  %7.1f s  %s\n", $1 / 1000, $2 }'

#!/bin/sh
# The test driver of `make check`: automake's own (the rest of the command
# line), timed.  How long the test ran goes beside its results, in
# milliseconds (tests/NAME.ms), for `make check`'s list of the slowest
# (tests/slowest.sh).
trs= prev=
for arg; do
  [ "$prev" = --trs-file ] && trs=$arg
  prev=$arg
done
start=$(date +%s%N)
"$@"
status=$?
end=$(date +%s%N)
[ -z "$trs" ] || echo $(((end - start) / 1000000)) >"${trs%.trs}.ms"
exit $status

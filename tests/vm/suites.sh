#!/usr/bin/env bash
# Runs inside the test VM (tests/vm/check-vm.sh boots it): several suites
# one after the other in one boot, each bounded by its own timeout, their
# output on standard output between markers the host splits again:
#
#   jc-vm-suite begin SUITE
#   ... the suite's standard output and error ...
#   jc-vm-suite end SUITE STATUS SECONDS
#
# A suite that hangs is killed at PER_SUITE seconds (status 124) and the
# next one runs; one that takes the kernel down leaves no end line, and
# the host boots again for those after it.
#   suites.sh PER_SUITE SUITE...
set -u
per_suite=$1
shift
for suite; do
  echo "jc-vm-suite begin $suite"
  start=$SECONDS
  timeout -k 10 "$per_suite" bash "$suite" </dev/null 2>&1
  status=$?
  echo # the end marker on a line of its own, whatever the suite's last byte
  echo "jc-vm-suite end $suite $status $((SECONDS - start))"
done

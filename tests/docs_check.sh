#!/usr/bin/env bash
# The user documentation as a reader follows it (tests/docs_check.py):
# README.md, CHANGELOG.md and every page of docs/ have closed code fences,
# relative links and anchors that resolve, repository paths and commands
# that exist; the README stays within 250 lines and starts with the two
# commands (joule_cgroup(5) against the code: tests/reference_check.sh).
. "$(dirname "$0")/lib/common.sh"
need "python3" -- command -v python3
python3 -B "$top_srcdir/tests/docs_check.py" "$top_srcdir" >"$T/tap"
status=$?
tap_relay "$T/tap"
[ "$TAP_N" -ge 40 ] && [ "$status" -le 1 ]
ok $? "docs_check.py ran its checks on every page (exit status $status)"
tap_done

#!/usr/bin/env bash
# The fixture trees agree with their expected files (parent sums, formats,
# instance lists): tests/fixtures/check_expected.py on a private copy.
. "$(dirname "$0")/lib/common.sh"
need "python3" -- command -v python3
cp -r "$FIXTURES" "$T/fixtures"
sh "$T/fixtures/make-hostile.sh"
out=$(cd "$T/fixtures" && python3 check_expected.py 2>&1)
ok $? "check_expected.py: ${out##*$'\n'}"
echo "$out" | grep -vE '^check_expected: [0-9]+ passed' | head -20 | diag
tap_done

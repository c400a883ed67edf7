#!/usr/bin/env bash
# src/core drawn as rooms (scripts/core-graph.py): no circle of includes
# between its files, at most 3 arrows back up between its folders,
# docs/development.md's map naming every folder and module of it, each in
# its folder, no write to a field of struct jc_collector outside
# src/core/pass, and every step its folder and its entry in the list.  Each fault is planted in a copy of the tree to prove the
# check sees it.
. "$(dirname "$0")/lib/common.sh"
need "python3" -- command -v python3
graph=$top_srcdir/scripts/core-graph.py

python3 -B "$graph" --check "$top_srcdir" >"$T/tap"
status=$?
tap_relay "$T/tap"
[ "$status" -le 1 ] && grep -q '^1\.\.' "$T/tap"
ok $? "core-graph.py --check ran to its end (exit status $status)"
python3 -B "$graph" "$top_srcdir" | diag

# A copy of what the script reads: src/core and the map.
copy() {
  rm -rf "$T/top"
  mkdir -p "$T/top/docs" "$T/top/src"
  cp -R "$top_srcdir/src/core" "$T/top/src/"
  cp "$top_srcdir/docs/development.md" "$T/top/docs/"
}
planted() { # planted WHAT PATTERN: --check fails, saying PATTERN
  python3 -B "$graph" --check "$T/top" >"$T/planted" 2>&1
  local s=$?
  [ "$s" -eq 1 ] && grep -q -- "$2" "$T/planted"
  ok $? "a planted $1 is caught" || diag <"$T/planted"
}

copy # two headers that include each other
printf '#include "jc_log.h"\n' >"$T/top/src/core/base/jc_clock.h"
printf '#include "jc_clock.h"\n' >>"$T/top/src/core/base/jc_log.h"
planted "circle of includes" "^not ok .* no circle"

copy # five rooms below the pass using it: five circles of rooms, each
# needing an arrow back up (from .c files: no circle of files)
for f in base/jc_name.c figures/jc_parse.c kernel/jc_hier.c config/jc_config.c \
  managed/jc_managed.c; do
  printf '#include "jc_internal.h"\n' >>"$T/top/src/core/$f"
done
planted "set of arrows back up" "^not ok .* arrows back up"

copy # a module the map does not name
printf '/* x */\n' >"$T/top/src/core/kernel/jc_planted.c"
planted "module missing from the map" "missing: jc_planted"

copy # a folder the map does not name
mkdir "$T/top/src/core/steps/planted"
printf '/* x */\n' >"$T/top/src/core/steps/planted/jc_planted.c"
planted "folder missing from the map" "^not ok .* names every folder"

copy # a step that writes the collector
printf 'static void planted(jc_collector *c) { c->sample.cpuset = NULL; }\n' \
  >>"$T/top/src/core/steps/energy/jc_energy.c"
planted "write to a field of jc_collector by a step" "jc_energy.c:[0-9]*: static void planted"

copy # a step folder, in the map, without its entry in the list of steps
mkdir "$T/top/src/core/steps/planted"
printf '#include "jc_step.h"\nconst jc_step jc_planted_step = {.name = "planted"};\n' \
  >"$T/top/src/core/steps/planted/jc_planted.c"
sed -i 's|^  steps/peak/ |  steps/planted/ a step\n    jc_planted a step\n&|' "$T/top/docs/development.md"
planted "step without its entry" "jc_planted_step has no entry in jc_step_list.h"
tap_done

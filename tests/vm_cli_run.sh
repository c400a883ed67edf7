#!/usr/bin/env bash
# joule-cgroup run with every controller (make check-vm).  The command
# writes to N = 128 MiB and holds them for a while, then writes 16 MiB to
# the scratch disk with O_DIRECT: the report has memory.peak >= N MiB, the
# largest memory.current sampled >= N MiB and io write bytes = 16 MiB
# (±2 %); the cgroup is gone afterwards.  Independent source: what the
# command did (memhog's pages, dd's bytes).
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3
need_kernel
need_controllers memory io
need_memhog
need_disk
N=128 W=16
MIB=1048576

make_run_parent vm-clirun
hand_down_controllers
# Held for 30 samples at the interval below: counted in samples, since the
# report must have seen the memory (the kernel's peak needs no sample).
"$JC" run --root "$parent" --interval 0.05 -- bash -c \
  '"$1" --hold-ms 1500 "$2" >/dev/null && dd if=/dev/zero of="$3" bs=1M count="$4" oflag=direct status=none' \
  run "$HOG" "$N" "$VM_DISK" "$W" >"$T/report" 2>"$T/err"
ok $? "run exits with the command's status 0"
diag <"$T/err"
# One JSON document; its figures read at once (python3 starts slowly in a VM).
figures=$(python3 -c 'import json, shlex, sys
r = json.load(open(sys.argv[1]))
m, io = r.get("memory") or {}, r.get("io") or {}
v = dict(peak=m.get("peak"), cmax=(m.get("current") or {}).get("max"),
         samples=r.get("samples"), wb=io.get("write_bytes"),
         wo=io.get("write_ops"), cg=r.get("cgroup"))
print(" ".join("%s=%s" % (k, shlex.quote(str(x))) for k, x in v.items()))' "$T/report")
ok $? "the report is one JSON document"
diag <"$T/report"
eval "$figures"
[ "${peak:-0}" -ge $((N * MIB)) ] 2>/dev/null
ok $? "memory.peak $peak >= $N MiB"
[ "${cmax:-0}" -ge $((N * MIB)) ] 2>/dev/null
ok $? "memory current max $cmax >= $N MiB ($samples samples)"
awk -v v="${wb:-0}" -v w=$((W * MIB)) 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= w * 0.02) }'
ok $? "io write_bytes $wb = $W MiB ±2 % (dd wrote $((W * MIB)) with O_DIRECT)"
[ "${wo:-0}" -ge "$W" ] 2>/dev/null
ok $? "io write_ops $wo >= $W"
[ -n "${cg:-}" ] && [ ! -e "$cg" ]
ok $? "the run's cgroup $cg is gone afterwards"
tap_done

#!/usr/bin/env bash
# make-corpus.sh — writes the seed corpus of the fuzz targets,
# tests/fuzz/corpus/<target>/, from the fixture trees and the edge cases
# below.  The corpus is committed; this script says where each seed comes
# from and rebuilds it byte for byte (it removes seeds it does not write).
# libFuzzer never writes here: scripts/fuzz.sh fuzzes a copy.
#   tests/fuzz/make-corpus.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/../fixtures
out=$here/corpus

# seed TARGET NAME: stdin → corpus/TARGET/NAME
seed() { mkdir -p "$out/$1"; cat >"$out/$1/$2"; }
# sample_seed TARGET NAME LETTER CAP FILE: "<letter><cap>" + FILE's bytes
sample_seed() { { printf '%s%s' "$3" "$4"; cat "$5"; } | seed "$1" "$2"; }
long() { head -c "$1" /dev/zero | tr '\0' "$2"; }

rm -rf "$out"
# trees captured from Debian's 6.1 and 6.12 kernels (capture-vm.sh)
d61=$fx/k6.1-debian
d612=$fx/k6.12-debian

# ---- single: memory.current, memory.peak, memory.swap.current, pids.current
cp_single() { seed single "$1" <"$2"; }
cp_single memory.current-k6.1 "$fx/k6.1-systemd/system.slice/memory.current"
cp_single memory.peak-no-newline "$fx/hostile/no-newline/memory.peak"
cp_single pids.current-k6.8 "$fx/k6.8-kubernetes/kubepods.slice/pids.current"
cp_single memory.peak-k6.12-real "$d612/system.slice/db.service/memory.peak"
cp_single memory.current-k6.1-real "$d61/limited.slice/batch.service/memory.current"
printf 'max\n' | seed single max
printf '0\n' | seed single zero
printf '18446744073709551615\n' | seed single u64-max
printf '18446744073709551616\n' | seed single u64-max-plus-1
printf '99999999999999999999999999\n' | seed single overflow-long
printf -- '-1\n' | seed single negative
printf '' | seed single empty
printf '12' | seed single no-newline
printf ' \t7 \t\n' | seed single blanks
printf '12 13\n' | seed single two-words
printf '1\0002\n' | seed single nul-inside
printf 'maxi\n' | seed single not-max
printf '0x10\n+5\n' | seed single hex-and-plus
printf '4096\r\n' | seed single crlf
printf '\377\376garbage\001\n' | seed single binary
{ long 600 9; printf '\n'; } | seed single long-line

# ---- flat: cpu.stat, memory.stat, memory.events
seed flat cpu.stat-k5.10 <"$fx/k5.10-basic/cpu.stat"
seed flat cpu.stat-k6.1 <"$fx/k6.1-systemd/cpu.stat"
seed flat memory.stat-k6.8 <"$fx/k6.8-kubernetes/memory.stat"
seed flat memory.events-k6.1 <"$fx/k6.1-systemd/system.slice/memory.events"
seed flat cpu.stat-k6.1-real-no-core-sched <"$d61/cpu.stat"
seed flat cpu.stat-k6.12-real-nice <"$d612/limited.slice/cpu.stat"
seed flat cpu.stat-k6.12-real-no-cpu <"$d612/user.slice/user-1000.slice/session-2.scope/cpu.stat"
seed flat memory.stat-k6.12-real <"$d612/system.slice/db.service/memory.stat"
seed flat memory.stat-k6.1-real-reclaim <"$d61/limited.slice/batch.service/memory.stat"
seed flat memory.events-k6.12-real-high <"$d612/limited.slice/batch.service/memory.events"
seed flat cpu.stat-huge <"$fx/hostile/huge/cpu.stat"
seed flat memory.stat-u64-slab <"$fx/hostile/u64-slab/memory.stat"
seed flat cpu.stat-garbage <"$fx/hostile/garbage/cpu.stat"
seed flat memory.stat-garbage <"$fx/hostile/garbage/memory.stat"
seed flat memory.events-no-newline <"$fx/hostile/no-newline/memory.events"
printf '' | seed flat empty
printf '\n\n \n\t\n' | seed flat blank-lines
printf 'key\nkey 1 2\nkey -3\n 9\nok 1\n' | seed flat malformed-lines
printf 'usage_usec 100\r\nuser_usec 5\n' | seed flat crlf
{ printf 'anon 1\n'; long 1000 k; printf ' 2\nfile 3'; } | seed flat long-key

# ---- io: io.stat
seed io io.stat-k5.10 <"$fx/k5.10-basic/io.stat"
seed io io.stat-k6.1-cost <"$fx/k6.1-systemd/io.stat"
seed io io.stat-huge <"$fx/hostile/huge/io.stat"
seed io io.stat-partial <"$fx/hostile/partial-io/io.stat"
seed io io.stat-no-newline <"$fx/hostile/no-newline/io.stat"
printf '' | seed io empty
printf '8:0\n' | seed io device-only
printf '8:0 rbytes=\n8:0 =5\n8:0 rbytes\n' | seed io bad-fields
printf '4294967295:4294967295 rbytes=1\n4294967296:0 rbytes=1\n' | seed io devno-limits
printf '8 rbytes=1\n:1 rbytes=1\n8: rbytes=1\n8:0:1 rbytes=1\n' | seed io bad-devno
printf '8:0 rbytes=18446744073709551616 wbytes=1\n' | seed io overflow
printf '8:0 rbytes=-1\n' | seed io negative
printf '\n\n259:0 rbytes=1 cost.vrate=99.50 cost.usage=0\n\n' | seed io empty-lines
# io.stat as real kernels write it (docs/metrics.md): merged device lines,
# "(unknown)", keyless lines, unknown and float keys; bad known values
seed io io.stat-k6.6-merged-unknown <"$fx/k6.6-docker/io.stat"
seed io io.stat-k6.6-keyless <"$fx/k6.6-docker/system.slice/docker.service/io.stat"
seed io io.stat-forms <"$fx/hostile/io-forms/io.stat"
seed io io.stat-malformed-values <"$fx/hostile/io-malformed/io.stat"
seed io io.stat-keyless-only <"$fx/hostile/io-keyless/io.stat"
seed io io.stat-k6.1-real-keyless <"$d61/system.slice/cron.service/io.stat"
seed io io.stat-k6.12-real-vrate <"$d612/io.stat"
seed io io.stat-k6.12-real-cost-only <"$d612/system.slice/cron.service/io.stat"
printf '8:0 rbytes=1 wbytes=2\n7:7 7:6 ' | seed io merged-run-at-end
{ for i in $(seq 0 63); do printf '7:%d ' "$i"; done; printf 'rbytes=5 wios=1\n'; } | seed io merged-64-devices
printf '(unknown)\n(unknown) rbytes=1\n(unknown rbytes=1\n(unknown)rbytes=1\n() rbytes=1\n' | seed io unknown-spellings
printf '8:0 cost.vrate=100.00 rbytes=5 x= =y cost.usage=1.5e3\n8:0 rbytes=1.5\n8:0 wios=0x10\n' | seed io float-and-odd-keys
printf '8:0 rbytes=1 8:16 rbytes=2\n7:1 7:2\t7:3 rios=4\n' | seed io device-after-keys

# ---- pressure: {cpu,memory,io}.pressure
seed pressure cpu.pressure-k5.10-some-only <"$fx/k5.10-basic/cpu.pressure"
seed pressure cpu.pressure-k6.1 <"$fx/k6.1-systemd/cpu.pressure"
seed pressure memory.pressure-k6.1 <"$fx/k6.1-systemd/memory.pressure"
seed pressure cpu.pressure-k6.12-real <"$d612/limited.slice/batch.service/cpu.pressure"
seed pressure io.pressure-no-newline <"$fx/hostile/no-newline/io.pressure"
printf '' | seed pressure empty
printf 'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' | seed pressure full-only
printf 'some avg10=1.00 avg60=2.00 avg300=3.00\n' | seed pressure no-total
printf 'some avg10=100.00 avg60=.5 avg300=5. total=18446744073709551616\n' | seed pressure bad-numbers
printf 'some avg10=1.1234567890 avg60=18446744073709551615.999999999 avg300=0 total=18446744073709551615\n' | seed pressure long-fractions
printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0 extra=7\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\nnone x=1\n' | seed pressure unknown-line

# ---- mountinfo: lines of /proc/self/mountinfo, without their newline
mi() { printf '%s' "$2" | seed mountinfo "$1"; }
# This build machine (Debian 12 container, hybrid v1 + v2):
mi host-cgroup2-unified '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw'
mi host-cgroup-v1 '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu'
mi host-tmpfs '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755'
mi host-root-ext4 '27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534'
# A systemd host (optional "shared:" field), a container's view, escapes:
mi systemd-cgroup2 '35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot'
mi container-cgroup2 '1285 1280 0:30 /system.slice/docker-6e928e8a9ee5.scope /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime master:9 - cgroup2 cgroup rw'
mi escaped-space-tab '40 22 0:38 / /mnt/my\040cgroup\011v2\134x rw shared:1 master:2 - cgroup2 none rw'
mi bad-escapes '40 22 0:38 / /mnt/a\04\400\999\\ rw - cgroup2 none rw'
mi no-separator '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime cgroup2 cgroup2 rw'

# ---- proc: a GPU process's /proc/PID/cgroup ('C') and stat ('S', field byte)
printf 'C0::/kubepods.slice/pod1/cri-containerd-abc.scope\n' | seed proc cgroup-v2
printf 'C12:pids:/x\n1:name=systemd:/y\n0::/system.slice/job.service\n' | seed proc cgroup-hybrid
printf 'C0::\n' | seed proc cgroup-empty
printf 'S\023201 (python3 (x) y) S 1 201 201 0 -1 4194560 10 0 0 0 5 2 0 0 20 0 4 0 712345 9999 100 18446744073709551615\n' | seed proc stat-start
printf 'S\006201 (a) S' | seed proc stat-short
mi nothing-after-separator '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime -'
mi too-few-fields '41 31 0:38 /'
mi empty ''
mi long-mount-point "41 31 0:38 / /$(long 3000 a) rw - cgroup2 cgroup2 rw"
mi tabs-and-blanks $'  41\t31 0:38   /   /x\trw - \tcgroup2 cgroup2'

# ---- pattern: "pattern\0path\0path..."
pt() { local name=$1; shift; { printf '%s' "$1"; shift; for p in "$@"; do printf '\0%s' "$p"; done; } | seed pattern "$name"; }
pt service-glob 'system.slice/*.service' system.slice/nginx.service system.slice user.slice/user-1000.slice
pt globstar-k8s 'kubepods.slice/**/*.scope' 'kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pode63e6211_e9ee_5ea2_9453_af137f4472e7.slice/cri-containerd-26eda36863810f1f00f42af8622f014140678f680c4388dce8fcb3a4fac08a4b.scope' kubepods.slice kubepods.slice/x.scope
pt regex-k8s '/^kubepods\.slice/.*\.scope$/' kubepods.slice/a/b.scope system.slice/x.scope
pt bracket-escape 'system.slice/system-systemd\\x2dfsck.slice/[a-z]*@?*.service' 'system.slice/system-systemd\x2dfsck.slice/systemd-fsck@dev-disk-by\x2dlabel-boot.service'
pt globstar-only '**' a a/b/c ''
pt globstar-limit '**/a/**/b/**/c/**/d/**' a/b/c/d x/a/y/b/z/c/w/d
pt too-many-globstars '**/a/**/b/**/c/**/d/**/e' a/b/c/d/e
pt dotdot '../etc' etc
pt dot-level 'a/./b' a/b
pt absolute '/sys/fs/cgroup/x' x
pt empty-level 'a//b' a/b
pt bad-regex '/(/' a
pt bad-bracket '[a-' '[a-'
pt regex-backref '/^(a*)*\1$/' aaaaaaaaaaaaaaaaaaaaaaaaaaaaab
pt stars-level '*a*a*a*a*a*b' aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac
pt empty-pattern '' a
pt single-slash '/' a
pt deep "$(for i in $(seq 70); do printf 'l%d/' "$i"; done)x" "$(for i in $(seq 70); do printf 'l%d/' "$i"; done)x"

# ---- name: relative paths
nm() { printf '%s' "$2" | seed name "$1"; }
nm root ''
nm first-level 'init.scope'
nm service 'system.slice/nginx.service'
nm systemd-escape 'system.slice/system-systemd\x2dfsck.slice/systemd-fsck@dev-disk-by\x2dlabel-boot.service'
nm k8s-208 'kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pode04aa1a7_ada9_5951_980e_1e1f9372c098.slice/cri-containerd-c5a895d0b9e9fc50bc8185f9984c605eb97d5236eb47fbd6d026f64eb8cecb54.scope'
nm exactly-127 "$(long 127 x)"
nm exactly-128 "$(long 128 x)"
nm trailing-slash 'a/b/'
nm only-slashes '///'
# A multibyte character (é, then a 4-byte emoji) across the 118-byte cut:
nm utf8-at-cut "$(long 100 a)/$(long 10 b)$(printf '\303\251\360\237\230\200')$(long 112 c)"
nm continuation-bytes "$(long 20 x)$(head -c 200 /dev/zero | tr '\0' '\200')"

# ---- utf8: "<escape buffer size - 1, one byte><bytes>"
u8() { { printf "$2"; printf '%s' "$3"; } | seed utf8 "$1"; }
u8 ascii '\377' 'web-1_nginx'
u8 two-three-four '\377' "caf$(printf '\303\251 \342\202\254 \360\237\230\200')"
u8 edges '\377' "$(printf '\302\200\355\237\277\356\200\200\364\217\277\277\360\220\200\200')"
u8 overlong-slash '\377' "web$(printf '\300\257')x"
u8 overlong-three '\377' "$(printf '\340\200\257\360\200\200\257')"
u8 surrogates '\377' "p$(printf '\355\240\200')q_s$(printf '\355\277\277')v"
u8 past-10ffff '\377' "web$(printf '\364\220\200\200')x$(printf '\370\210\200\200\200')"
u8 cut-short '\377' "ab$(printf '\342\202')"
u8 continuation '\377' "$(printf '\200\277\200')"
u8 controls '\377' "we b$(printf '\001\t\177')\"q\\"
u8 small-room '\007' "ab$(printf '\303\251')cd$(printf '\377')"
u8 room-one '\000' 'x'
printf '\377ab\000\355\240\200' | seed utf8 nul-inside

# ---- sample: "<file letter><device capacity digit><file text>"
# Letters: fuzz_sample.c's opening comment; the limit files follow
# pids.current (l cpu.max, m memory.max, n memory.high, o pids.max).
sample_seed sample cpu.stat-k6.1 a 4 "$fx/k6.1-systemd/cpu.stat"
sample_seed sample cpu.stat-garbage a 4 "$fx/hostile/garbage/cpu.stat"
sample_seed sample cpu.stat-huge a 4 "$fx/hostile/huge/cpu.stat"
sample_seed sample memory.current-huge b 0 "$fx/hostile/huge/memory.current"
sample_seed sample memory.peak-overflow c 0 "$fx/hostile/huge/memory.peak"
sample_seed sample memory.swap.current-negative d 0 "$fx/hostile/huge/memory.swap.current"
sample_seed sample memory.stat-k6.8 e 0 "$fx/k6.8-kubernetes/memory.stat"
sample_seed sample memory.stat-garbage e 0 "$fx/hostile/garbage/memory.stat"
sample_seed sample io.stat-k6.1-cost f 4 "$fx/k6.1-systemd/io.stat"
sample_seed sample io.stat-partial-cap1 f 1 "$fx/hostile/partial-io/io.stat"
sample_seed sample io.stat-huge f 4 "$fx/hostile/huge/io.stat"
# every u64 a value: a slab beyond 2^63 (below's test data), counters beyond DERIVE
sample_seed sample memory.stat-u64-slab e 0 "$fx/hostile/u64-slab/memory.stat"
sample_seed sample cpu.stat-beyond-derive a 0 "$fx/hostile/u64-counters/cpu.stat"
sample_seed sample io.stat-beyond-derive f 2 "$fx/hostile/u64-counters/io.stat"
sample_seed sample cpu.pressure-beyond-derive g 0 "$fx/hostile/u64-counters/cpu.pressure"
sample_seed sample memory.events-beyond-derive j 0 "$fx/hostile/u64-counters/memory.events"
sample_seed sample cpu.pressure-k6.1 g 0 "$fx/k6.1-systemd/cpu.pressure"
sample_seed sample memory.pressure-k6.1 h 0 "$fx/k6.1-systemd/memory.pressure"
sample_seed sample io.pressure-k5.10 i 0 "$fx/k5.10-basic/io.pressure"
sample_seed sample memory.events-k6.1 j 0 "$fx/k6.1-systemd/system.slice/memory.events"
sample_seed sample pids.current-k6.8 k 0 "$fx/k6.8-kubernetes/kubepods.slice/pids.current"
sample_seed sample bad-file-id s 0 "$fx/k6.1-systemd/cpu.stat"
printf 'a4' | seed sample cpu.stat-empty
sample_seed sample cpu.stat-k6.1-real a 4 "$d61/limited.slice/cpu.stat"
sample_seed sample cpu.stat-k6.12-real-nice a 4 "$d612/limited.slice/cpu.stat"
sample_seed sample memory.stat-k6.12-real e 0 "$d612/system.slice/db.service/memory.stat"
sample_seed sample memory.stat-k6.12-real-7keys e 7 "$d612/limited.slice/batch.service/memory.stat"
sample_seed sample memory.peak-k6.12-real c 0 "$d612/system.slice/db.service/memory.peak"
sample_seed sample memory.peak-interval-k6.12-real p 0 "$d612/limited.slice/batch.service/memory.peak"
sample_seed sample io.stat-k6.12-real-vrate f 4 "$d612/io.stat"
sample_seed sample io.stat-k6.12-real-cost-only f 1 "$d612/system.slice/cron.service/io.stat"
sample_seed sample io.stat-k6.1-real-keyless f 1 "$d61/system.slice/cron.service/io.stat"
sample_seed sample io.stat-real-empty f 0 "$d61/machine.slice/io.stat"
sample_seed sample memory.events-k6.1-real-high j 0 "$d61/limited.slice/batch.service/memory.events"
sample_seed sample io.stat-k6.6-merged-unknown f 4 "$fx/k6.6-docker/io.stat"
sample_seed sample io.stat-forms-cap2 f 2 "$fx/hostile/io-forms/io.stat"
sample_seed sample io.stat-malformed-values f 4 "$fx/hostile/io-malformed/io.stat"
sample_seed sample io.stat-keyless-only f 1 "$fx/hostile/io-keyless/io.stat"
sample_seed sample cpu.max-max l 0 "$fx/k6.1-systemd/system.slice/cpu.max"
sample_seed sample cpu.max-quota l 0 "$fx/k6.1-systemd/system.slice/system-postgresql.slice/cpu.max"
sample_seed sample cpu.max-no-newline l 0 "$fx/k6.1-systemd/system.slice/systemd-journald.service/cpu.max"
sample_seed sample cpu.max-u64-quota l 0 "$fx/hostile/huge/cpu.max"
sample_seed sample cpu.max-one-word l 0 "$fx/hostile/garbage/cpu.max"
sample_seed sample cpu.max-zero-period l 0 "$fx/hostile/bad-limits/cpu.max"
sample_seed sample cpu.max-k6.12-real l 0 "$d612/limited.slice/cpu.max"
sample_seed sample memory.high-k6.12-real n 0 "$d612/limited.slice/batch.service/memory.high"
cm() { printf '%s' "$2" | { printf 'l0'; cat; } | seed sample "cpu.max-$1"; }
cm max-only 'max'
cm zero-quota '0 100000'
cm three-words '50000 100000 1'
cm tab $'50000\t100000\n'
cm two-spaces '50000  100000'
cm leading-space ' 50000 100000'
cm two-newlines $'50000 100000\n\n'
cm crlf $'max 100000\r\n'
cm negative '-1 100000'
cm overflow '18446744073709551616 100000'
cm max-max 'max max'
cm tiny-period '1 1'
sample_seed sample memory.max-max m 0 "$fx/k6.1-systemd/system.slice/memory.max"
sample_seed sample memory.max-bytes m 0 "$fx/k6.8-kubernetes/kubepods.slice/memory.max"
sample_seed sample memory.max-zero m 0 "$fx/hostile/bad-limits/memory.max"
sample_seed sample memory.max-u64 m 0 "$fx/hostile/huge/memory.max"
sample_seed sample memory.max-suffix m 0 "$fx/hostile/garbage/memory.max"
sample_seed sample memory.high-bytes n 0 "$fx/k6.1-systemd/system.slice/nginx.service/memory.high"
sample_seed sample memory.high-overflow n 0 "$fx/hostile/huge/memory.high"
sample_seed sample memory.high-crlf n 0 "$fx/hostile/garbage/memory.high"
sample_seed sample memory.high-no-newline n 0 "$fx/hostile/no-newline/memory.high"
sample_seed sample pids.max-max o 0 "$fx/k6.1-systemd/system.slice/pids.max"
sample_seed sample pids.max-number o 0 "$fx/k6.1-systemd/system.slice/nginx.service/pids.max"
sample_seed sample pids.max-negative o 0 "$fx/hostile/huge/pids.max"
sample_seed sample pids.max-two-words o 0 "$fx/hostile/bad-limits/pids.max"
printf 'o0' | seed sample pids.max-empty

# ---- metrics: NUL-separated records (see fuzz_metrics.c)
mt() { local name=$1; shift; local first=1 r; for r in "$@"; do [ $first = 1 ] || printf '\0'; first=0; printf '%s' "$r"; done | seed metrics "$name"; }
f() { printf '%s%s' "$1" "$(cat "$2")"; }
k61=$fx/k6.1-systemd
mt two-reads-k6.1 '@4' "$(f a "$k61/cpu.stat")" "$(f b "$k61/system.slice/memory.current")" \
  "$(f e "$k61/system.slice/memory.stat")" "$(f f "$k61/io.stat")" "$(f g "$k61/cpu.pressure")" \
  "$(f j "$k61/system.slice/memory.events")" "$(f k "$k61/system.slice/pids.current")" '+1000' \
  'ausage_usec 1316502444
user_usec 953697388
system_usec 358484056' "$(f f "$k61/io.stat")"
mt per-device '@p2' "$(f f "$fx/hostile/partial-io/io.stat")" "$(f f "$k61/io.stat")" '+10' "$(f f "$k61/io.stat")"
mt counter-backwards 'ausage_usec 5000000' '+1000' 'ausage_usec 100' '+1000' 'ausage_usec 200'
mt clock-backwards 'ausage_usec 100' '-1000' 'ausage_usec 200' '+0' 'ausage_usec 300' '+5' 'ausage_usec 400'
# limits over two reads: percent-cpu_limit and percent-memory_max
kpg=$k61/system.slice/system-postgresql.slice
mt limits-two-reads "$(f a "$kpg/cpu.stat")" "$(f b "$kpg/memory.current")" "$(f l "$kpg/cpu.max")" \
  "$(f m "$kpg/memory.max")" "$(f n "$k61/system.slice/nginx.service/memory.high")" \
  "$(f o "$k61/system.slice/nginx.service/pids.max")" '+1000' \
  'ausage_usec 999999999
user_usec 555555555
system_usec 444444444' "$(f l "$kpg/cpu.max")" "$(f m "$fx/hostile/bad-limits/memory.max")"
# two reads of a real 6.12 cgroup: the captured files, then its cpu.stat
# a second later (nice_usec included)
r612=$d612/limited.slice
mt two-reads-k6.12-real '@2' "$(f a "$r612/cpu.stat")" "$(f b "$r612/memory.current")" \
  "$(f e "$r612/memory.stat")" "$(f f "$r612/io.stat")" "$(f l "$r612/cpu.max")" \
  "$(f m "$r612/memory.max")" "$(f o "$r612/pids.max")" '+1000' \
  "a$(sed 's/^usage_usec .*/usage_usec 10710163/; s/^user_usec .*/user_usec 5421627/' "$r612/cpu.stat")"
mt huge-values "$(f a "$fx/hostile/huge/cpu.stat")" "$(f f "$fx/hostile/huge/io.stat")" '+1000' \
  'ausage_usec 18446744073709551615' '@p'

# ---- energy: 'S' + USER_HZ byte + /proc/stat, 'Z' + a powercap entry name,
# 'A' + the split's numbers (see fuzz_energy.c)
st() { { printf 'S%b%b' "$2" "$3"; } | seed energy "stat-$1"; }
st k6.x '\0' 'cpu  43404 0 38911 71906 935 0 1089 0 0 0\ncpu0 19763 0 17247 40483 55 0 635 0 0 0\nintr 12 0 9\n'
st guest '\0' 'cpu  100 20 30 400 50 6 7 8 90 10\n'
st old-four-fields '\0' 'cpu 1 2 3 4\n'
st hz-1024 '\3' 'cpu  1024 0 0 1\n'
st hz-zero '\6' 'cpu  1 2 3 4\n'
st overflow '\0' 'cpu  18446744073709551615 1 0 0\n'
st three-fields '\0' 'cpu  1 2 3\n'
st cpu0-first '\0' 'cpu0 1 2 3 4\ncpu  1 2 3 4\n'
st crlf '\0' 'cpu  1 2 3 4\r\n'
st twelve-fields '\2' 'cpu  1 2 3 4 5 6 7 8 9 10 11 12\n'
pc=$fx/powercap
for id in $(ls "$pc/intel-spr-psys/sys/class/powercap" "$pc/intel-laptop-psys/sys/class/powercap" | grep '^intel-rapl' | sort -u); do
  printf 'Z%s' "$id" | seed energy "zone-$(printf '%s' "$id" | tr ':' '_')"
done
for bad in intel-rapl:01 intel-rapl:1:2:3 intel-rapl:1234567 'intel-rapl:+1' intel-rapl: dtpm:0; do
  printf 'Z%s' "$bad" | seed energy "zone-bad-$(printf '%s' "$bad" | tr ':+' '_p')"
done
# split: energy, total, idle, covered, usage (8 bytes each, little-endian)
le() { local v; for v; do printf "$(printf '\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o' \
  $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)) \
  $((v >> 32 & 255)) $((v >> 40 & 255)) $((v >> 48 & 255)) $((v >> 56 & 255)))"; done; }
{ printf A; le 1000000 2000000 500000 1500000 1000000; } | seed energy split-covering
{ printf A; le 1000000 2000000 500000 2000000 1200000; } | seed energy split-over-busy
{ printf A; le 262143328850 230400000000 144000000000 10800123457 10800123457; } | seed energy split-full-range
{ printf A; le 1000000 0 0 0 0; } | seed energy split-no-time
{ printf A; le 5 100 200 1 1; } | seed energy split-idle-above-total
# cpuset lists; CPU lines of /proc/stat (the rate byte, 0: 100 Hz); two
# packages' total and idle time, then parties: usage, mask, parent + 1
printf 'L0-3,8,10-11\n' | seed energy list-ranges
printf 'L1,3,5,7,9,11,13,15' | seed energy list-interleaved
printf 'P\000cpu13 1200 3 400 88812 52 0 7 0 0 0\n' | seed energy line-cpu13
{ printf D; le 8000000 6000000 7000000 4000000
  le 2500000; printf '\003\000'; le 1000000; printf '\001\001'
  le 1000000; printf '\002\001'; le 500000; printf '\000\000'; } | seed energy domains-nested
sample_seed sample cpuset.cpus.effective-list r 0 /dev/stdin <<<'0-12,14-15'

# ---- kmsg: records of /dev/kmsg as the kernels write an OOM kill (6.1 and
# 6.12 as the VM test's kernels logged it; the older forms as 4.5 to 4.18
# print them), another subsystem's record with continuation lines, cut ones
k() { printf '%b' "$2" | seed kmsg "$1"; }
k k6.1-memcg '6,1234,5272344,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/p,task_memcg=/p/c,task=memhog,pid=132,uid=0\n3,1235,5273757,-;Memory cgroup out of memory: Killed process 132 (memhog) total-vm:104736kB, anon-rss:65324kB, file-rss:1140kB, shmem-rss:0kB, UID:0 pgtables:164kB oom_score_adj:0\n'
k global '6,5,6,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/job/worker,task=memhog,pid=7,uid=1000\n'
k k4.14-task-in '6,100,1000,-;Task in /job/worker killed as a result of limit of /job\n6,101,1001,-;memory: usage 65536kB, limit 65536kB, failcnt 12\n3,110,1010,-;Memory cgroup out of memory: Kill process 4242 (memhog) score 999 or sacrifice child\n3,111,1011,-;Killed process 4243 (child) total-vm:70216kB, anon-rss:65280kB, file-rss:1024kB, shmem-rss:0kB\n'
k continuation '6,1236,56789015,-,caller=T9;usb 1-1: new high-speed USB device number 2\n SUBSYSTEM=usb\n DEVICE=c189:1\n'
k escapes '6,5,6,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/a\\x5cb,c,task_memcg=/a\\x5cb,c/w,task=x\\x20y),pid=z,pid=8,uid=5\n'
k cut '6,1,2,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/job,task_memcg=/job/worker,task=memhog'

# ---- cconf: collectd configuration files, the shipped ones and what
# collectd's scanner does at the edges (tests/unit_cconf.c has the trees)
for f in "$here"/../../conf/*.conf "$here"/../../debian/snippet-head.conf; do
  seed cconf "conf-$(basename "$f")" <"$f"
done
c() { printf '%b' "$2" | seed cconf "$1"; }
c values 'Zz "a\\"b" 1.5 true on yes off no True 0x10 010 -3 +.5 1e5 1.2e+3 abc_9\n'
c addresses 'Zz 1.2.3.4 1.2.3.456 1.2.3.4:99999 fe80::1 [::1]:80 :: 1::2 ::ffff:1.2.3.4 1:2:3:4:5:6:7:8\n'
c skipped 'Zz a-b c:d e.f ; x\n'
c numbers 'Zz 1.5e3 .5 5. 08 0x 0xg -x +1\n'
c continued 'Zz "multi\\\n   line" "a\\\n  b\\\n c"\nZz foo \\\n bar\n'
c spanning 'Zz "multi\n   line"\n'
c crlf 'A 1\r\n<B x>\r\n  C "y\\\r\n  z"\r\n</B>\r\n'
c comments '# c\nZz foo # comment "x"\n\n  \n'
c empty-blocks '<Plugin a>\n</Plugin>\n<P>\n</P>\n<Q>\n  <R>\n  </R>\n</Q>\n'
c include '<Include "/etc/collectd/collectd.conf.d">\n  Filter "*.conf"\n</Include>\nInclude "/etc/x.conf"\n'
c nested '<Plugin joule_cgroup>\n  <Cgroup "joule/batch">\n    Instance "batch"\n    AttachPid 4242\n  </Cgroup>\n</Plugin>\n'
c no-newline 'Interval 10'
c unclosed '<Plugin a>\n  K 1\n'
c mismatched '<Plugin a>\n</plugin>\n'
c lost-string '<Plugin "a\\\n'
c nul 'Zz "a\0b" c\n'
# ---- report: reports of joule-cgroup run, read back and drawn
# (fuzz_report.c): real ones (tests/fixtures/reports/: the host's with
# phases and samples, with a fixture powercap tree's energy, and Debian
# 6.12's in the VM with memory, its interval peak and io), then edge cases
for f in "$fx"/reports/*.json; do seed report "$(basename "$f" .json)" <"$f"; done
r() { printf '%s' "$2" | seed report "$1"; }
r minimal '{"wall_seconds": 1}'
r two-points '{"wall_seconds": 1, "interval": 0.1, "series": [{"t": 0, "kind": "start", "cpu_usage_usec": 0}, {"t": 1, "kind": "end", "cpu_usage_usec": 500000}]}'
r unsorted-negative '{"wall_seconds": 2, "interval": 0, "series": [{"t": 2, "cpu_usage_usec": 9e15, "memory_current": 1.7e308}, {"t": -1, "cpu_usage_usec": 5}, {"t": 0.5, "cpu_usage_usec": -3, "io_read_bytes": 1e300, "io_write_bytes": 1}, {"t": 0.5000001, "cpu_usage_usec": 1e300, "energy_j": 3, "host_energy_j": 1e-300}]}'
r iterations-other-markers '{"iterations": 2, "runs": [{"command": ["a", 1, null], "wall_seconds": 1, "phases": [{"name": "START -> __A__", "start_seconds": 0, "wall_seconds": 0.5}, {"name": "__A__ -> END", "start_seconds": 0.5, "wall_seconds": 0.5}], "series": [{"t": 0}, {"t": 1}]}, {"wall_seconds": 3, "phases": [{"name": "START -> END", "start_seconds": 0, "wall_seconds": 3}]}]}'
r phases-out-of-range '{"wall_seconds": 1, "phases": [{"name": "<&\"\u0001\u00e9>", "start_seconds": -5, "wall_seconds": 1e300}, {"name": "", "start_seconds": 1e300, "wall_seconds": -1}], "series": [{"t": 0}, {"t": 1e-9}]}'
{ printf '{"wall_seconds": 6, "interval": 0.1, "phases": ['
  for i in $(seq 0 59); do printf '%s{"name": "__P%d__ -> __P%d__", "start_seconds": %d.%02d, "wall_seconds": 0.1}' "${i:+$([ "$i" -gt 0 ] && echo ,)}" "$i" $((i + 1)) $((i / 10)) $((i % 10 * 10)); done
  printf '], "series": [{"t": 0, "cpu_usage_usec": 0}, {"t": 6, "cpu_usage_usec": 6000000}]}'; } | seed report sixty-phases
{ printf '{"wall_seconds": 1, "x": '; printf '[%.0s' $(seq 62); printf '%.0s]' $(seq 62); printf '}'; } | seed report nested-63
{ printf '['; printf '[%.0s' $(seq 70); } | seed report nested-71-cut
r not-json 'joule-cgroup: energy: no powercap tree'

# ---- netdev: /proc/<pid>/net/dev (Linux 2.6 to 6.12 print the same
# sixteen columns), then edge cases
nd_head='Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
'
n() { printf '%s' "$2" | seed netdev "$1"; }
n k6-pod "${nd_head}    lo:    1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0
  eth0:  312600     300    1    2    0     0          0         0   108400     200    3    4    0     0       0          0
"
n old-no-space "${nd_head}eth0:5 1 0 0 0 0 0 0 6 2 0 0 0 0 0 0
"
n reordered 'Inter-|Receive|Transmit
 face |packets bytes drop errs|drop errs bytes packets
veth1: 7 700 1 2 3 4 900 9
'
n malformed "${nd_head}abcdefghijklmnop: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0
eth1: 99999999999999999999 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0
eth2 1 1
: 1
eth3: 1 x
  eth0: 3 1 0 0 0 0 0 0 4 1 0 0 0 0 0 0"
{ printf '%s' "$nd_head"; printf 'eth9: '; long 600 1; printf '\n'; } | seed netdev long-line
n snmp-pairs 'Tcp: RtoAlgorithm RetransSegs
Tcp: 1 40
Udp: RcvbufErrors
Udp: 2
'

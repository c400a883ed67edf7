#!/usr/bin/env python3
"""Compares what collectd's csv plugin wrote for one cgroup with the
[values PATH] section of a fixture's expected file (tests/fixtures/expected).

    csv_expect.py EXPECTED_FILE PATH CSV_INSTANCE_DIR GROUPS [MEMSTAT_KEYS]
    csv_expect.py --instances EXPECTED_FILE "SECTION"

GROUPS is a comma list of Collect groups (cpu,memory,io,pressure,events,pids).
Every expected figure of those groups must be in the newest csv line of its
SPEC section 3 series, exactly; prints one line per mismatch, exits 1 if any.
With --instances, prints the sorted instance names a [select SECTION] lists,
computing the SPEC's hashed form for names over 127 bytes.
"""
import glob
import os
import sys

DEFAULT_MEMSTAT = ["anon", "file", "kernel", "kernel_stack", "slab", "shmem"]
CPU_DERIVE = ["usage_usec", "nr_periods", "nr_throttled", "throttled_usec",
              "nr_bursts", "burst_usec"]
EVENT_PREFIXES = ("pg", "workingset_", "thp_", "zswp")


def read_section(path, want):
    values, inside = {}, False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("["):
            inside = line == "[values %s]" % want
            continue
        if inside and line and not line.startswith("#"):
            key, value = line.split("\t")[:2]
            values[key] = value
    return values


def expectations(values, groups, memstat):
    """(series file prefix, data source index, expected number)."""
    out = []
    def add(series, idx, key):
        if key not in values:
            return
        value = values[key]
        # "(absent)", "(empty)", "(malformed)", "(invalid)": nothing is sent.
        # A counter past INT64_MAX cannot be a collectd DERIVE: not sent.
        derive = series.startswith(("derive-", "ps_cputime", "disk_"))
        number = None if value.startswith("(") else (
            int(value) if value.isdigit() else float(value))
        if number is None or (derive and number > 2**63 - 1) \
                or number > 2**64 - 1:
            if series not in ("ps_cputime", "disk_octets", "disk_ops") or \
                    not value.startswith("("):
                out.append((series, idx, None, key))  # must not be sent
            return
        out.append((series, idx, float(value), key))
    if "cpu" in groups:
        add("ps_cputime", 0, "cpu.stat:user_usec")
        add("ps_cputime", 1, "cpu.stat:system_usec")
        for k in CPU_DERIVE:
            add("derive-cpu_" + k, 0, "cpu.stat:" + k)
    if "memory" in groups:
        add("memory-current", 0, "memory.current")
        add("memory-peak", 0, "memory.peak")
        add("memory-swap_current", 0, "memory.swap.current")
        for k in memstat:
            series = ("derive-memory_" if k.startswith(EVENT_PREFIXES)
                      else "memory-") + k
            add(series, 0, "memory.stat:" + k)
    if "io" in groups:
        add("disk_octets", 0, "io.stat:sum:rbytes")
        add("disk_octets", 1, "io.stat:sum:wbytes")
        add("disk_ops", 0, "io.stat:sum:rios")
        add("disk_ops", 1, "io.stat:sum:wios")
    if "pressure" in groups:
        for res in ("cpu", "memory", "io"):
            for kind in ("some", "full"):
                base = "%s.pressure:%s:" % (res, kind)
                for avg in ("avg10", "avg60", "avg300"):
                    add("pressure-%s_%s_%s" % (res, kind, avg), 0, base + avg)
                add("derive-%s_%s_stall_usec" % (res, kind), 0, base + "total")
    if "events" in groups:
        for key in values:
            if key.startswith("memory.events:"):
                add("derive-memory_events_" + key.split(":")[1], 0, key)
    if "pids" in groups:
        add("count-pids", 0, "pids.current")
    return out


def newest(csv_dir, series):
    files = sorted(glob.glob(os.path.join(csv_dir, series + "-[0-9]*")))
    if not files:
        return None
    lines = open(files[-1]).read().split("\n")
    lines = [l for l in lines if l and not l.startswith("epoch")]
    return [float(x) for x in lines[-1].split(",")[1:]] if lines else None


def fnv1a32(text):
    h = 0x811C9DC5
    for b in text.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def instance(column, path):
    if column == "(root)":
        return "root"
    if column != "(long: hashed)":
        return column
    flat = path.replace("/", "_")
    return "%08x~%s" % (fnv1a32(path), flat[-(127 - 9):])


def instances(expected_file, section):
    names, inside = [], False
    for line in open(expected_file, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("["):
            inside = line == "[select %s]" % section
            continue
        if inside and line and not line.startswith("#"):
            cols = line.split("\t")
            names.append(instance(cols[0], cols[1]))
    print(" ".join(sorted(names, key=lambda n: n.encode())))
    return 0 if names else 1


def main():
    if sys.argv[1] == "--instances":
        return instances(sys.argv[2], sys.argv[3])
    expected_file, path, csv_dir, groups = sys.argv[1:5]
    memstat = sys.argv[5].split(",") if len(sys.argv) > 5 else DEFAULT_MEMSTAT
    values = read_section(expected_file, path)
    if not values:
        print("no [values %s] in %s" % (path, expected_file))
        return 1
    checks = expectations(values, groups.split(","), memstat)
    # A two-value series (disk_octets) with one impossible value is not sent
    # at all: its other value is then not expected either.
    refused = {c[0] for c in checks if c[2] is None}
    checks = [c for c in checks if c[2] is None or c[0] not in refused]
    bad = 0
    for series, idx, want, key in checks:
        got = newest(csv_dir, series)
        if want is None:
            if got is not None:
                print("%s: %s sent, but %s is absent" % (path, series, key))
                bad += 1
            continue
        if got is None or len(got) <= idx or abs(got[idx] - want) > 1e-6 * max(1, abs(want)):
            print("%s: %s[%d] = %s, want %s (%s)" % (path, series, idx,
                  None if got is None else got[idx:idx + 1], want, key))
            bad += 1
    print("%d figures checked, %d wrong" % (len(checks), bad))
    return 1 if bad or not checks else 0


sys.exit(main())

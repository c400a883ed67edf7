#!/usr/bin/env python3
"""Compares what collectd's csv plugin wrote for one cgroup with the
[values PATH] section of a fixture's expected file (tests/fixtures/expected),
and of its companions (<tree>.<topic>.txt: the limits).

    csv_expect.py EXPECTED_FILE PATH CSV_INSTANCE_DIR GROUPS [MEMSTAT_KEYS] [VALUES]
    csv_expect.py --instances EXPECTED_FILE "SECTION"

GROUPS is a comma list of Collect groups (cpu,memory,io,pressure,events,pids,
limits), or "perdevice" for io with PerDevice true. VALUES is "all" (the
default: the configuration has Values "*", every list of those groups) or
"default" (no Values option: the lean default of docs/metrics.md, and
MemoryStat lists only when MEMSTAT_KEYS is given, "-" for none). Every
expected figure of a list sent must be in the newest csv line of its
series, exactly, and a series whose figure is absent, invalid or "(none)",
or whose list is not chosen, must not be there at all; prints one line per
mismatch, exits 1 if any.

limits: gauge-cpu_limit_cores = limit:cpu_cores; gauge-cpu_limit_percent = 0
(the fixture stands still); memory-max, memory-high = limit:memory_max,
limit:memory_high (a limit of 2^48 or more is none); gauge-memory_max_percent
= 100 * memory.current / limit:memory_max (not sent without memory.current or
with a limit of 0);
count-pids_max = limit:pids_max, and only with "pids" too. perdevice: one
disk_octets/disk_ops pair per device of io.stat:devices, named as the host's
/sys/dev/block/MAJ:MIN/uevent DEVNAME (else "MAJ:MIN"; "unknown" for the
"(unknown)" device), with that device's figures, and no other disk series.

With --instances, prints the sorted instance names a [select SECTION] lists,
computing the hashed form of docs/configuration.md for names over 127 bytes.
"""
import glob
import os
import re
import sys

DEFAULT_MEMSTAT = ["anon", "file", "kernel", "kernel_stack", "slab", "shmem"]
CPU_DERIVE = ["usage_usec", "nr_periods", "nr_throttled", "throttled_usec",
              "nr_bursts", "burst_usec"]
EVENT_PREFIXES = ("pg", "workingset_", "thp_", "zswp", "swpin", "swpout", "numa_")


def section_rows(files, header):
    """the TAB-separated rows of the sections HEADER of FILES"""
    for f in files:
        inside = False
        for line in open(f, encoding="utf-8"):
            line = line.rstrip("\n")
            if line.startswith("["):
                inside = line == header
            elif inside and line and not line.startswith("#"):
                yield line.split("\t")


def read_section(path, want):
    files = [path] + sorted(glob.glob(path[:-len(".txt")] + ".*.txt"))
    return {c[0]: c[1] for c in section_rows(files, "[values %s]" % want)}


def devname(dev):
    """the device name PerDevice uses: the host's, else MAJ:MIN"""
    try:
        for line in open("/sys/dev/block/%s/uevent" % dev):
            if line.startswith("DEVNAME=") and line.strip() != "DEVNAME=":
                return line.strip()[len("DEVNAME="):]
    except OSError:
        pass
    return dev


def number(values, key):
    """an expected figure as a number, or None ("(none)", "(absent)"...)"""
    value = values.get(key, "(absent)")
    return None if value.startswith("(") else int(value) if value.isdigit() else float(value)


MEMORY_TYPE_MAX = 2 ** 48  # types.db: memory 0..281474976710656


def memory_limit(values, key):
    limit = number(values, key)
    return None if limit is None or limit >= MEMORY_TYPE_MAX else limit


def limits(values, groups, out):
    if "limit:cpu_cores" in values:
        cores = number(values, "limit:cpu_cores")
        out.append(("gauge-cpu_limit_cores", 0, cores, "limit:cpu_cores"))
        # a rate of cpu.stat's usage: with Collect "cpu" only
        out.append(("gauge-cpu_limit_percent", 0,
                    None if cores is None or "cpu" not in groups else 0.0,
                    "limit:cpu_cores, no CPU used"))
    if "limit:memory_max" in values:
        limit = memory_limit(values, "limit:memory_max")
        out.append(("memory-max", 0, limit, "limit:memory_max"))
        current = number(values, "memory.current")
        share = None
        if limit and current is not None and "memory" in groups:
            share = 100 * current / limit
        out.append(("gauge-memory_max_percent", 0, share,
                    "memory.current %s / limit:memory_max" % values.get("memory.current")))
    if "limit:memory_high" in values:
        out.append(("memory-high", 0, memory_limit(values, "limit:memory_high"),
                    "limit:memory_high"))
    if "limit:pids_max" in values:
        out.append(("count-pids_max", 0, number(values, "limit:pids_max")
                    if "pids" in groups else None, "limit:pids_max, Collect pids"))


# Lists of docs/metrics.md outside the default set (VALUES "default").
OPT_IN = ("derive-cpu_usage_usec", "percent-cpu", "derive-cpu_nr_bursts",
          "derive-cpu_burst_usec", "memory-swap_current")
OPT_IN_PREFIXES = ("load-", "pressure-")
THROTTLING = ("derive-cpu_nr_periods", "derive-cpu_nr_throttled", "derive-cpu_throttled_usec")


def expectations(values, groups, memstat, mode="all"):
    """(series file prefix, data source index, expected number)."""
    out = []
    quota_seen = (number(values, "cpu.stat:nr_periods") or 0) > 0

    def chosen(series):
        if mode == "all":
            return True
        if series in OPT_IN or series.startswith(OPT_IN_PREFIXES):
            return False
        return series not in THROTTLING or quota_seen

    def add(series, idx, key):
        if key not in values:
            return
        value = values[key]
        # "(absent)", "(empty)", "(malformed)", "(invalid)": nothing is sent.
        # A counter past INT64_MAX cannot be a collectd DERIVE: not sent.
        # Every u64 is a gauge's value, sizes past types.db's memory range
        # too (docs/metrics.md).
        derive = series.startswith(("derive-", "ps_cputime", "disk_"))
        number = None if value.startswith("(") else (
            int(value) if value.isdigit() else float(value))
        if not chosen(series) or number is None or (derive and number > 2**63 - 1) \
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
    if "perdevice" in groups:
        for dev in device_list(values):
            for idx, (octets, ops) in enumerate((("rbytes", "rios"), ("wbytes", "wios"))):
                add("disk_octets-" + devname(dev), idx, "io.stat:%s:%s" % (dev, octets))
                add("disk_ops-" + devname(dev), idx, "io.stat:%s:%s" % (dev, ops))
    if "pressure" in groups:
        for res in ("cpu", "memory", "io"):
            for kind in ("some", "full"):
                base = "%s.pressure:%s:" % (res, kind)
                for i, avg in enumerate(("avg10", "avg60", "avg300")):
                    add("pressure-%s_%s_%s" % (res, kind, avg), 0, base + avg)
                    add("load-%s_%s" % (res, kind), i, base + avg)
                add("derive-%s_%s_stall_usec" % (res, kind), 0, base + "total")
    if "events" in groups:
        for key in values:
            if key.startswith("memory.events:"):
                add("derive-memory_events_" + key.split(":")[1], 0, key)
    if "pids" in groups:
        add("count-pids", 0, "pids.current")
    if "limits" in groups:
        limits(values, groups, out)
    return out


def device_list(values):
    devices = values.get("io.stat:devices", "(none)")
    return [] if devices.startswith("(") else devices.split(",")


def series_names(csv_dir, prefix):
    """the series of a csv instance directory whose names start with PREFIX"""
    names = set()
    for f in glob.glob(os.path.join(csv_dir, prefix + "*")):
        names.add(re.sub(r"-[0-9]{4}-[0-9]{2}-[0-9]{2}$", "", os.path.basename(f)))
    return names


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
    names = [instance(c[0], c[1])
             for c in section_rows([expected_file], "[select %s]" % section)]
    print(" ".join(sorted(names, key=lambda n: n.encode())))
    return 0 if names else 1


def main():
    if sys.argv[1] == "--instances":
        return instances(sys.argv[2], sys.argv[3])
    expected_file, path, csv_dir, groups = sys.argv[1:5]
    mode = sys.argv[6] if len(sys.argv) > 6 else "all"
    given = sys.argv[5] if len(sys.argv) > 5 else ""
    memstat = given.split(",") if given not in ("", "-") else []
    if mode == "all" and given == "":
        memstat = DEFAULT_MEMSTAT
    if mode == "default" and given == "":
        # the default keys exist, but their lists are opt-in: never sent
        memstat = []
        absent_memstat = DEFAULT_MEMSTAT
    else:
        absent_memstat = []
    values = read_section(expected_file, path)
    if not values:
        print("no [values %s] in %s" % (path, expected_file))
        return 1
    checks = expectations(values, groups.split(","), memstat, mode)
    if "memory" in groups.split(","):
        checks += [("memory-" + k, 0, None, "MemoryStat not given") for k in absent_memstat]
    # A two-value series (disk_octets) with one impossible value is not sent
    # at all: its other value is then not expected either.
    refused = {c[0] for c in checks if c[2] is None}
    checks = [c for c in checks if c[2] is None or c[0] not in refused]
    bad = 0
    if "perdevice" in groups.split(","):
        want = {"%s-%s" % (t, devname(d)) for d in device_list(values)
                for t in ("disk_octets", "disk_ops")}
        for series in sorted(series_names(csv_dir, "disk_") - want):
            print("%s: %s sent, but no io.stat line counts for it" % (path, series))
            bad += 1
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

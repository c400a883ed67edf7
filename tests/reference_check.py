#!/usr/bin/env python3
"""reference_check.py - holds the reference to the code, and prints TAP.

docs/configuration.md and docs/metrics.md are the reference, and
joule_cgroup(5) is made from them (scripts/mkman.py).  Against what the
code knows:

  * the keys: every key the configuration code matches
    (strcasecmp(key, "Name") in src/plugin and src/core) has its entry in
    configuration.md (a ### heading, or a row of the <Cgroup> table), and
    every entry is a key the code knows; each ### entry says its default
    and gives an example;
  * the Collect groups (tests/reference_lists): one row each in the table
    of configuration.md's Collect entry, its default column as the code's;
  * the value lists (tests/reference_lists): one row each in metrics.md's
    catalogue, no other, with the type and data sources of collectd's
    types.db, the code's groups and default, and the names InfluxDB,
    Graphite and Prometheus show, as their rules make them from the type,
    type instance and data sources.

    python3 tests/reference_check.py TOP_SRCDIR LISTS TYPES_DB
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docs_check import ok  # noqa: E402  (the TAP of the docs tests)
import docs_check  # noqa: E402


def types_db(path):
    """type -> [(data source, DERIVE|GAUGE|...)]"""
    out = {}
    for line in open(path, encoding='utf-8'):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        name, _, rest = line.partition(' ')
        out[name] = [tuple(ds.strip().split(':')[:2]) for ds in rest.split(',')]
    return out


def receiver_names(typ, ti, ds):
    """The cells of the catalogue for one list: Prometheus (write_prometheus
    of collectd 5.12), InfluxDB 1.x (its collectd listener, "split"),
    Graphite (write_graphite as conf/graphite.conf sets it), as
    docs/fleet.md describes them."""
    label = '{type="%s"}' % ti if ti else ''
    prom = ', '.join('`collectd_joule_cgroup_%s%s%s%s`' % (
        typ, '' if d == 'value' else '_' + d,
        '_total' if t in ('DERIVE', 'COUNTER') else '', label) for d, t in ds)
    influx = ', '.join('`joule_cgroup_%s`' % d for d, _ in ds)
    influx += '; `type=%s`' % typ + (', `type_instance=%s`' % ti if ti else '')
    graphite = ', '.join('`….%s%s%s`' % (typ, '.' + ti if ti else '',
                                         '.' + d if len(ds) > 1 else '') for d, _ in ds)
    return prom, influx, graphite


def cells(row):
    row = row.strip().strip('|')
    return [c.strip() for c in re.split(r'(?<!\\)\|', row)]


def section(text, heading):
    """The lines below a heading, to the next heading of its level or above."""
    level = len(heading.split(' ')[0])
    lines = text.split('\n')
    start = lines.index(heading) + 1
    out = []
    for line in lines[start:]:
        m = re.match(r'^(#+) ', line)
        if m and len(m.group(1)) <= level:
            break
        out.append(line)
    return out


def table(lines):
    rows = [cells(l) for l in lines if l.startswith('|')]
    return rows[0], rows[2:]


def code_keys(top):
    keys = set()
    for d in ('src/plugin', 'src/core'):
        for root, _, files in sorted(os.walk(os.path.join(top, d))):
            for f in sorted(n for n in files if n.endswith('.c')):
                text = open(os.path.join(root, f), encoding='utf-8').read()
                keys |= set(re.findall(r'strcasecmp\(\s*[\w>.-]+\s*,\s*"([A-Z]\w+)"\s*\)', text))
    return keys


# ---- counts of lists per cgroup, from the catalogue ---------------------

# The kernel the counts are given for: Debian 12's (docs/compatibility.md);
# a list whose file a later kernel added is counted as "on <kernel>".
BASE_KERNEL = (6, 1)

PER = (('<instance>', 'GPU instance'), ('<gpu>', 'GPU'), ('<zone>', 'zone'),
       ('<interface>', 'interface'))


def kernel_of(text):
    return tuple(int(x) for x in text.split('.')) if text != '-' else None


def catalogue(lists, tdb):
    """The default lists as dicts: name, groups, when (a set), kernel,
    root (the root may send it), files, per (placeholder), series."""
    out = []
    for l in lists:
        name, typ, ti, grp, dflt, when, kernel, root, files = l
        if dflt != 'default':
            continue
        out.append({
            'name': name, 'groups': set(grp.split('+')),
            'when': set() if when == 'always' else set(when.split('+')),
            'kernel': kernel_of(kernel), 'root': root == 'root',
            'files': set() if files == '-' else set(files.split(',')),
            'per': next((p for k, p in PER if k in ti), None),
            'series': len(tdb.get(typ, [()])),
        })
    return out


def of_group(cat, group):
    """A group's lists, as configuration.md counts them: a list of limits
    and another group is the limits group's."""
    return [l for l in cat if group in l['groups'] and
            (group == 'limits' or 'limits' not in l['groups'])]


def group_phrase(cat, group):
    """"2, + 3 under its own quota": the lists per cgroup a group sends, in
    the words of configuration.md's Collect table."""
    ls = of_group(cat, group)
    parts = []

    def add(n, text):
        if n:
            parts.append(text % n)
    def per(l):
        return ' per %s' % l['per'] if l['per'] else ''
    base = [l for l in ls if not l['when'] - {'used', 'owner'} and
            not (l['kernel'] and l['kernel'] > BASE_KERNEL)]
    if base:
        used = ' its processes used' if any('used' in l['when'] for l in base) else ''
        parts.append('%d%s%s' % (len(base), per(base[0]), used))
    add(len([l for l in ls if 'quota' in l['when']]), '+ %d under its own quota')
    newer = sorted({l['kernel'] for l in ls if l['kernel'] and l['kernel'] > BASE_KERNEL})
    for k in newer:
        add(len([l for l in ls if l['kernel'] == k]), '+ %%d on %s' % '.'.join(map(str, k)))
    limited = [l for l in ls if 'limit' in l['when']]
    if limited:
        parts.append(('0 without a limit, up to %d' if not parts else 'up to %d with limits') % len(limited))
    root = [l for l in ls if 'root' in l['when'] and 'mig' not in l['when']]
    if root:
        parts.append('+ %d%s on `root`' % (len(root), per(root[0])))
    mig = [l for l in ls if 'mig' in l['when'] and 'root' not in l['when']]
    if mig:
        parts.append('+ %d%s in MIG mode' % (len(mig), per(mig[0])))
    mig_root = [l for l in ls if 'mig' in l['when'] and 'root' in l['when']]
    if mig_root:
        parts.append('+ %d%s on `root`' % (len(mig_root), per(mig_root[0])))
    for where in ('container', 'pod'):
        add(len([l for l in ls if where in l['when']]), '%%d per %s' % where)
    text = ', '.join(parts) or '0'
    if ls and all('owner' in l['when'] for l in ls):
        text += ", on the namespace's owner only"
    return text


def sent(cat, groups, kernel=BASE_KERNEL, root=False, limits=(),
         quota=False):
    """The default lists of groups one cgroup sends: of a kernel, the root
    or not, with the limit files `limits` (its own or an ancestor's) and a
    quota of its own or not; lists per zone, GPU and interface left out."""
    out = []
    for l in cat:
        if not l['groups'] <= set(groups) or l['per']:
            continue
        w = l['when']
        if (root and not l['root']) or ('root' in w and not root) or \
                (l['kernel'] and l['kernel'] > kernel) or \
                ('quota' in w and not quota) or \
                ('limit' in w and not l['files'] & set(limits)) or \
                w & {'used', 'mig', 'owner', 'container', 'pod'}:
            continue
        out.append(l)
    return out


def counts(cat, groups, **facts):
    """(lists, series) of sent()."""
    ls = sent(cat, groups, **facts)
    return len(ls), sum(l['series'] for l in ls)


def count_checks(cat, conf, metrics, top):
    text = ' '.join(metrics.split())
    readme = ' '.join(open(os.path.join(top, 'README.md'), encoding='utf-8').read().split())
    compat = open(os.path.join(top, 'docs/compatibility.md'), encoding='utf-8').read()
    default = ('cpu', 'memory', 'io', 'limits')
    bad = []

    def row(label, want):
        m = re.search(r'\| %s[^|]*\| \+? ?(\d+) \| \+? ?(\d+) \|' % re.escape(label), text)
        got = m and (int(m.group(1)), int(m.group(2)))
        if got != want:
            bad.append('metrics.md "%s": %s, the catalogue: %s' % (label, got, want))
    service = counts(cat, default)
    row('a service with no limit:', service)
    row('the same on Linux 6.12, collectd as root:', counts(cat, default, kernel=(6, 12)))
    row('the root cgroup (`root`):', counts(cat, default, root=True))
    for group, label in (('pressure', '`pressure`: the stall counters'),
                         ('events', '`events`')):
        row(label, tuple(a - b for a, b in zip(counts(cat, default + (group,)), service)))
    pids = tuple(a - b for a, b in zip(counts(cat, default + ('pids',)), service))
    pids_limited = tuple(a - b for a, b in zip(counts(cat, default + ('pids',), limits=('pids.max',)),
                                               counts(cat, default, limits=('pids.max',))))
    want = '| + %d, + %d | + %d, + %d |' % (pids[0], pids_limited[0], pids[1], pids_limited[1])
    if want not in text:
        bad.append('metrics.md `pids`: no "%s"' % want)
    own = counts(cat, default, limits=('cpu.max', 'memory.max'), quota=True)
    want = ('%d value lists for a cgroup without a limit, stored as %d series' % service)
    if want not in readme:
        bad.append('README: no "%s"' % want)
    want = '%d lists and %d series for one with its own `cpu.max` and `memory.max`' % own
    if want not in readme:
        bad.append('README: no "%s"' % want)
    energy = [l for l in cat if 'energy' in l['groups']]
    want = 'Value lists, each of one value (one series): %d per zone for the host, %d per zone for each cgroup' % (
        len(energy), len([l for l in energy if 'root' not in l['when']]))
    if want not in text:
        bad.append('metrics.md, energy: no "%s"' % want)
    # a hybrid host: the cpu lists that need no controller (cpu.stat is in
    # every cgroup)
    hybrid = ', '.join('`%s`' % l['name'] for l in of_group(cat, 'cpu') if not l['when'])
    if '| cpu | %s (cpu.stat' % hybrid not in compat:
        bad.append('compatibility.md: the hybrid host\'s cpu row is not "%s"' % hybrid)
    ok(not bad, 'the counts of lists per cgroup in metrics.md, the README and compatibility.md are the catalogue\'s '
       '(a service: %d lists, %d series; with its own cpu.max and memory.max: %d, %d)' % (service + own), bad)


def main(top, lists_path, types_path):
    conf = open(os.path.join(top, 'docs/configuration.md'), encoding='utf-8').read()
    metrics = open(os.path.join(top, 'docs/metrics.md'), encoding='utf-8').read()
    tdb = types_db(types_path)
    groups, lists = [], []
    for line in open(lists_path, encoding='utf-8'):
        f = line.rstrip('\n').split('\t')
        (groups if f[0] == 'group' else lists).append(f[1:])

    # keys
    keys = code_keys(top)
    entries = re.findall(r'^### (\w+)$', conf, re.M)
    _, cg_rows = table(section(conf, '### Cgroup'))
    inner = [re.match(r'`(\w+)', r[0]).group(1) for r in cg_rows]
    documented = set(entries) | set(inner)
    ok(len(keys) >= 15, 'the configuration code matches %d keys' % len(keys))
    missing = sorted(keys - documented)
    ok(not missing, 'every key the code knows has its entry in docs/configuration.md',
       ['no entry: %s' % ' '.join(missing)])
    unknown = sorted(documented - keys)
    ok(not unknown, 'every key docs/configuration.md describes is one the code knows',
       ['not in the code: %s' % ' '.join(unknown)])
    bad = []
    for k in entries:
        body = '\n'.join(section(conf, '### ' + k))
        for word in ('Default', 'Example'):
            if word + ':' not in body:
                bad.append('### %s: no "%s:"' % (k, word))
    ok(not bad, 'every key entry of docs/configuration.md says its default and gives an example', bad)

    # Collect groups
    head, rows = table(section(conf, '### Collect'))
    shown = {r[0].strip('`'): r for r in rows}
    shown_rows = dict(shown)
    dcol = head.index('default')
    bad = []
    for word, dflt in groups:
        r = shown.pop(word, None)
        if r is None:
            bad.append('%s: no row' % word)
        elif (r[dcol] == 'yes') != (dflt == 'default'):
            bad.append('%s: default "%s", the code: %s' % (word, r[dcol], dflt))
    bad += ['%s: not a group of the code' % w for w in shown]
    ok(len(groups) >= 8 and not bad,
       'the Collect table of docs/configuration.md: one row per group of the code (%d), its default' % len(groups), bad)

    # the counts of lists per cgroup: configuration.md's Collect table (and
    # so joule_cgroup(5)), metrics.md, the README and compatibility.md,
    # each made from the catalogue
    cat = catalogue(lists, tdb)
    head, rows = table(section(conf, '### Collect'))
    ccol = head.index('lists per cgroup')
    bad = []
    for word, _ in groups:
        r = shown_rows.get(word)
        want = group_phrase(cat, word)
        if r is not None and r[ccol] != want:
            bad.append('%s: "%s", the catalogue: "%s"' % (word, r[ccol], want))
    ok(not bad, 'the Collect table of docs/configuration.md: each group\'s lists per cgroup as the catalogue counts them', bad)
    count_checks(cat, conf, metrics, top)

    # value lists
    head, rows = table(section(metrics, '## The catalogue'))
    names = [r[0].strip('`') for r in rows]
    code_names = [l[0] for l in lists]
    dup = sorted(n for n in set(names) if names.count(n) > 1)
    missing = [n for n in code_names if n not in names]
    unknown = [n for n in names if n not in code_names]
    ok(len(code_names) >= 60 and not missing,
       'every value list the code knows (%d) has its row in the catalogue of docs/metrics.md' % len(code_names),
       ['no row: %s' % ' '.join(missing)])
    ok(not unknown and not dup, 'every row of the catalogue is one value list the code knows',
       ['not in the code: %s' % ' '.join(unknown)] + ['twice: %s' % ' '.join(dup)])
    col = {h: i for i, h in enumerate(head)}
    bad = []
    for name, typ, ti, grp, dflt in (l[:5] for l in lists):
        if name not in names:
            continue
        r = rows[names.index(name)]
        ti = '' if ti == '-' else ti
        ds = tdb.get(typ)
        if ds is None:
            bad.append('%s: type %s is not in types.db' % (name, typ))
            continue
        want = {
            'type': '%s: %s' % (typ, ', '.join('`%s` (%s)' % d for d in ds)),
            'group': ' + '.join(grp.split('+')),
            'default': {'default': 'yes', 'opt-in': 'opt-in'}.get(dflt, 'when `MemoryStat` names it'),
        }
        want['Prometheus'], want['InfluxDB'], want['Graphite'] = receiver_names(typ, ti, ds)
        for h, w in want.items():
            if r[col[h]] != w:
                bad.append('%s: %s is "%s", should be "%s"' % (name, h, r[col[h]], w))
    ok(not bad, 'each row: the type and data sources of types.db, the groups and default of the code, '
       'the names each receiver shows', bad)
    print('1..%d' % docs_check.N)
    return 1 if docs_check.FAILED else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:4]))

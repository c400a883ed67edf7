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
    for name, typ, ti, grp, dflt in lists:
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

#!/usr/bin/env python3
"""fleet_docs.py - the queries of the docs, run against the real receivers
that tests/fleet_docs.sh started and fed, with each answer checked.

    fleet_docs.py queries TOP                   # the queries the docs show, by language
    fleet_docs.py check TOP LANG INFLUX PROM WHISPER HOST
    fleet_docs.py promtool-test TOP PROM HOST OUT.yml

Every query of a ```promql, ```sql (InfluxQL) or ```graphite fence of
README.md and docs/*.md is a line that is not a comment.  CHECKS below says
what each must answer on the fixture host (a copy of the Linux 6.12 tree
whose system.slice has a memory limit db.service is at 95 % of, a CPU
quota, and whose db.service then had an OOM kill, throttled periods,
memory stalls and 10 MB read; for Prometheus it also owns a network
namespace, through the test's ProcRoot).  A query in the docs that
CHECKS does not know fails (a doc example no test runs), and so does a
check whose query is in no doc (a check of nothing).  Prints TAP lines
without a plan.
"""
import glob
import json
import math
import os
import re
import sys
import urllib.parse
import urllib.request

DB = 'system.slice_db.service'
CRON = 'system.slice_cron.service'
DB_MEM = 71385088          # the fixture's db.service memory.current
CRON_MEM = 163840
LIMIT = 75000000           # the system.slice memory.max the test writes
# The containerd host's containers (tests/fixtures/hosts/containerd-systemd,
# its nginx pod renamed web.v2-…), by namespace: their memory.current.
K8S = 'k8shost'
K8S_MEM = {'db': 609673216, 'kube-system': 2 * 170684416,
           'shop': 352256 + 2 * 1903333376 + 69496832}
NGINX_POD = 'web.v2-7d9f8c6b5-x2x9q'
N = [0, 0]


def ok(cond, what, detail=''):
    N[0] += 1
    if not cond:
        N[1] += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', N[0], what))
    if detail and not cond:
        for line in str(detail).split('\n')[:20]:
            print('# ' + line)
    return cond


def doc_queries(top):
    """{lang: [(page, query)]} from the fences of the docs"""
    out = {'promql': [], 'sql': [], 'graphite': []}
    for page in ['README.md'] + sorted(glob.glob(os.path.join(top, 'docs', '*.md'))):
        path = page if os.path.isabs(page) else os.path.join(top, page)
        lang = None
        for line in open(path, encoding='utf-8'):
            s = line.strip()
            if lang is None:
                m = re.match(r'^```(promql|sql|graphite)$', s)
                lang = m.group(1) if m else None
                continue
            if s == '```':
                lang = None
                continue
            if not s or s.startswith('#') or s.startswith('--'):
                continue
            out[lang].append((os.path.relpath(path, top), s))
    return out


def near(a, b, rel=1e-6):
    return a is not None and b is not None and abs(a - b) <= rel * max(1.0, abs(b))


# ---- receivers ---------------------------------------------------------------
def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


def prom(port, q):
    """{joule_cgroup: value} of the instant query q (host given by the caller)"""
    a = get('http://127.0.0.1:%s/api/v1/query?%s' % (port, urllib.parse.urlencode({'query': q})))
    if a.get('status') != 'success':
        raise ValueError(a.get('error'))
    def key(m):     # (host, cgroup), or an aggregate's labels
        if 'joule_cgroup' in m:
            return (m.get('instance'), m['joule_cgroup'])
        return (m.get('instance'), ','.join('%s=%s' % kv for kv in sorted(m.items()) if kv[0] != '__name__'))
    return {key(r['metric']): float(r['value'][1]) for r in a['data']['result']}


def influx(port, q):
    """{instance: [values of the last column]} of an InfluxQL query"""
    a = get('http://127.0.0.1:%s/query?%s' % (port, urllib.parse.urlencode({'db': 'collectd', 'q': q, 'epoch': 's'})))
    out = {}
    for res in a.get('results', []):
        if 'error' in res:
            raise ValueError(res['error'])
        for s in res.get('series', []):
            tags = s.get('tags', {})
            vals = [row[-1] for row in s.get('values', []) if row[-1] is not None]
            out.setdefault((tags.get('host'), tags.get('instance')), []).extend(vals)
    return out


def graphite(whisper_dir, target):
    """{path: [values]} of the whisper files a Graphite path pattern names
    (globs within a node, {a,b} alternatives), as carbon's finder does"""
    import fnmatch
    import time
    import whisper
    alts = [target]
    while any('{' in a for a in alts):
        nxt = []
        for a in alts:
            m = re.search(r'\{([^{}]*)\}', a)
            if not m:
                nxt.append(a)
                continue
            for opt in m.group(1).split(','):
                nxt.append(a[:m.start()] + opt + a[m.end():])
        alts = nxt
    out = {}
    for a in alts:
        nodes = a.split('.')
        for root, dirs, files in os.walk(whisper_dir):
            rel = os.path.relpath(root, whisper_dir)
            parts = [] if rel == '.' else rel.split(os.sep)
            for f in files:
                if not f.endswith('.wsp'):
                    continue
                path = parts + [f[:-4]]
                if len(path) == len(nodes) and all(fnmatch.fnmatchcase(p, n) for p, n in zip(path, nodes)):
                    (_, _, _), vals = whisper.fetch(os.path.join(root, f), time.time() - 3600)
                    out['.'.join(path)] = [v for v in vals if v is not None]
    return out


# ---- what each query must answer -----------------------------------------------
def by_cgroup(result, host):
    return {k[1]: v for k, v in result.items() if k[0] == host}


def prom_checks(host):
    def exact(want):        # {cgroup: value}: those cgroups (of the host), those values
        return lambda r: (set(by_cgroup(r, host)) == set(want)
                          and all(near(by_cgroup(r, host).get(k), v) for k, v in want.items()))
    zeros = lambda names: exact({n: 0.0 for n in names})
    pct = 100.0 * DB_MEM / LIMIT
    return {
        'collectd_joule_cgroup_gauge{type="cpu_cores"}': zeros(['root', DB, CRON]),
        '(rate(collectd_joule_cgroup_ps_cputime_user_total[5m]) + rate(collectd_joule_cgroup_ps_cputime_syst_total[5m])) / 1e6': zeros(['root', DB, CRON]),
        'collectd_joule_cgroup_memory{type="current"} / 2^20': exact({DB: DB_MEM / 2**20, CRON: CRON_MEM / 2**20}),
        'collectd_joule_cgroup_gauge{type="memory_max_percent"}': exact({DB: pct, CRON: 100.0 * CRON_MEM / LIMIT}),
        'collectd_joule_cgroup_gauge{type="memory_max_percent"} > 90': exact({DB: pct}),
        'collectd_joule_cgroup_gauge{type="cpu_limit_percent"}': zeros([DB, CRON]),
        'rate(collectd_joule_cgroup_disk_octets_read_total[5m])': lambda r: (
            set(by_cgroup(r, host)) == {'root', DB, CRON} and by_cgroup(r, host)[DB] > 0
            and by_cgroup(r, host)[CRON] == 0 and by_cgroup(r, host)['root'] == 0),
        'increase(collectd_joule_cgroup_derive_total{type="memory_events_oom_kill"}[5m]) > 0': lambda r: (
            set(by_cgroup(r, host)) == {DB} and by_cgroup(r, host)[DB] >= 1),
        'rate(collectd_joule_cgroup_derive_total{type="cpu_nr_throttled"}[5m]) / ignoring(type) rate(collectd_joule_cgroup_derive_total{type="cpu_nr_periods"}[5m])': exact({DB: 0.5}),
        'rate(collectd_joule_cgroup_derive_total{type="memory_full_stall_usec"}[1m]) / 1e4': lambda r: (
            set(by_cgroup(r, host)) == {'root', DB, CRON} and by_cgroup(r, host)[DB] > 0
            and by_cgroup(r, host)[CRON] == 0),
        # Kubernetes labels (ContainerNames "prefixed", the shipped relabelling)
        'sum by (namespace) (collectd_joule_cgroup_memory{type="current",container!=""})':
            lambda r: r == {(None, 'namespace=' + ns): float(v) for ns, v in K8S_MEM.items()},
        'count by (namespace, pod, container) (collectd_joule_cgroup_memory{type="current",namespace="shop"})':
            lambda r: r == {(None, 'container=app,namespace=shop,pod=cart-0'): 2.0,
                            (None, 'container=log-shipper,namespace=shop,pod=cart-0'): 1.0,
                            (None, 'container=nginx,namespace=shop,pod=' + NGINX_POD): 1.0},
    }


def influx_checks(host):
    def got(r):
        return {k[1]: v for k, v in r.items() if k[0] == host}
    pct = 100.0 * DB_MEM / LIMIT

    def shop(r):        # ContainerNames "prefixed": the four of namespace shop
        k = {i: v[-1] for (h, i), v in r.items() if h == K8S}
        return (set(n for n in k if not n.startswith('k8s_shop_cart-0_app~')) ==
                {'k8s_shop_cart-0_log-shipper', 'k8s_shop_' + NGINX_POD + '_nginx'}
                and len(k) == 4 and near(sum(k.values()) * 1048576, K8S_MEM['shop']))
    return {
        'SELECT last("value") / 1048576 FROM "joule_cgroup_value" WHERE "type" = \'memory\' AND "type_instance" = \'current\' AND "instance" =~ /^k8s_shop_/ GROUP BY "host", "instance"': shop,
        'SELECT mean("value") FROM "joule_cgroup_value" WHERE "type" = \'gauge\' AND "type_instance" = \'cpu_cores\' AND time > now() - 1h GROUP BY time(1m), "host", "instance"':
            lambda r: set(got(r)) == {'root', DB, CRON} and all(v == 0 for vs in got(r).values() for v in vs),
        'SELECT last("value") / 1048576 FROM "joule_cgroup_value" WHERE "type" = \'memory\' AND "type_instance" = \'current\' GROUP BY "host", "instance"':
            lambda r: set(got(r)) == {DB, CRON} and near(got(r)[DB][-1], DB_MEM / 2**20) and near(got(r)[CRON][-1], CRON_MEM / 2**20),
        'SELECT * FROM (SELECT last("value") AS "percent" FROM "joule_cgroup_value" WHERE "type" = \'gauge\' AND "type_instance" = \'memory_max_percent\' GROUP BY "host", "instance") WHERE "percent" > 90 GROUP BY "host", "instance"':
            lambda r: set(got(r)) == {DB} and near(got(r)[DB][-1], pct),
        'SELECT non_negative_derivative("value", 1s) FROM "joule_cgroup_read" WHERE "type" = \'disk_octets\' AND time > now() - 1h GROUP BY "host", "instance"':
            lambda r: set(got(r)) == {'root', DB, CRON} and max(got(r)[DB]) > 0 and max(got(r)[CRON]) == 0,
        'SELECT spread("value") FROM "joule_cgroup_value" WHERE "type" = \'derive\' AND "type_instance" = \'memory_events_oom_kill\' AND time > now() - 1h GROUP BY "host", "instance"':
            lambda r: set(got(r)) == {DB, CRON} and got(r)[DB][-1] == 1 and got(r)[CRON][-1] == 0,
    }


def graphite_checks(host):
    h = host.replace('.', '_')
    g = lambda inst: 'collectd.%s.joule_cgroup.%s' % (h, inst.replace('.', '_'))
    db, cron, root = g(DB), g(CRON), g('root')

    def paths(want):
        return lambda r: set(p for p in r if p.startswith('collectd.%s.' % h)) == set(want)
    pct = 100.0 * DB_MEM / LIMIT
    return {
        'collectd.*.joule_cgroup.*.gauge.cpu_cores': lambda r: paths([root + '.gauge.cpu_cores', db + '.gauge.cpu_cores', cron + '.gauge.cpu_cores'])(r)
            and all(v == 0 for p, vs in r.items() for v in vs if p.startswith('collectd.%s.' % h)),
        'collectd.*.joule_cgroup.*.ps_cputime.{user,syst}': lambda r: paths([x + '.ps_cputime.' + d for x in (root, db, cron) for d in ('user', 'syst')])(r),
        'collectd.*.joule_cgroup.*.memory.current': lambda r: paths([db + '.memory.current', cron + '.memory.current'])(r)
            and r[db + '.memory.current'][-1] == DB_MEM and r[cron + '.memory.current'][-1] == CRON_MEM,
        'collectd.*.joule_cgroup.*.gauge.memory_max_percent': lambda r: paths([db + '.gauge.memory_max_percent', cron + '.gauge.memory_max_percent'])(r)
            and near(r[db + '.gauge.memory_max_percent'][-1], pct),
        'collectd.*.joule_cgroup.*.disk_octets.{read,write}': lambda r: paths([x + '.disk_octets.' + d for x in (root, db, cron) for d in ('read', 'write')])(r)
            and max(r[db + '.disk_octets.read']) > 0 and max(r[cron + '.disk_octets.read']) == 0,
        'collectd.*.joule_cgroup.*.derive.memory_events_oom_kill': lambda r: paths([db + '.derive.memory_events_oom_kill', cron + '.derive.memory_events_oom_kill'])(r)
            and max(r[db + '.derive.memory_events_oom_kill']) > 0 and max(r[cron + '.derive.memory_events_oom_kill']) == 0,
        # Kubernetes levels (ContainerNames "levels", PreserveSeparator true)
        'collectd.*.joule_cgroup.k8s.shop.*.*.memory.current': k8s_shop,
        'collectd.*.joule_cgroup.k8s.*.*.*.memory.current': k8s_namespaces,
    }


def k8s_levels(r):
    """{(namespace, pod, container): last value} of the k8shost paths"""
    out = {}
    for p, vs in r.items():
        n = p.split('.')
        if n[1] == K8S and vs:
            out[(n[4], n[5], n[6])] = vs[-1]
    return out


def k8s_shop(r):
    got = k8s_levels(r)
    apps = sorted(c for (_, pod, c) in got if pod == 'cart-0' and c.startswith('app~'))
    return (set(ns for ns, _, _ in got) == {'shop'} and len(got) == 4 and len(apps) == 2
            and all(re.match(r'^app~[0-9a-f]{8}$', a) for a in apps)
            and ('shop', 'cart-0', 'log-shipper') in got
            and ('shop', NGINX_POD.replace('.', '_'), 'nginx') in got
            and sum(got.values()) == K8S_MEM['shop'])


def k8s_namespaces(r):
    got = k8s_levels(r)
    by_ns = {}
    for (ns, _, _), v in got.items():
        by_ns[ns] = by_ns.get(ns, 0) + v
    return by_ns == K8S_MEM


def check(top, lang, influx_port, prom_port, whisper_dir, host):
    queries = doc_queries(top)[lang]
    checks = {'promql': prom_checks, 'sql': influx_checks, 'graphite': graphite_checks}[lang](host)
    run = {'promql': lambda q: prom(prom_port, q), 'sql': lambda q: influx(influx_port, q),
           'graphite': lambda q: graphite(whisper_dir, q)}[lang]
    ok(len(queries) > 0, '%s: the docs show %d queries' % (lang, len(queries)))
    for page, q in queries:
        if not ok(q in checks, '%s (%s): a check knows the query %s' % (lang, page, q)):
            continue
        try:
            r = run(q)
        except Exception as e:          # an error of the receiver is a failed check
            ok(False, '%s (%s): %s' % (lang, page, q), 'error: %s' % e)
            continue
        shown = r if lang != 'graphite' else {k: v[-3:] for k, v in r.items()}
        ok(bool(r) and checks[q](r), '%s: %s answers right' % (lang, q), json.dumps({str(k): v for k, v in shown.items()}, indent=1))
    shown_q = set(q for _, q in queries)
    for q in checks:
        ok(q in shown_q, '%s: the checked query is in the docs: %s' % (lang, q))


# ---- promtool test rules on the series of a real scrape ---------------------------
def series(prom_port, match):
    a = get('http://127.0.0.1:%s/api/v1/series?%s' % (prom_port, urllib.parse.urlencode({'match[]': match})))
    return a['data']


def selector(labels):
    name = labels['__name__']
    rest = ','.join('%s="%s"' % (k, v) for k, v in sorted(labels.items()) if k != '__name__')
    return '%s{%s}' % (name, rest)


def promtool_test(top, prom_port, host, out):
    pick = lambda name, typ, cg: [s for s in series(prom_port, '%s{instance="%s",joule_cgroup="%s",type="%s"}' % (name, host, cg, typ))]
    need = {}
    for key, name, typ in (('mem', 'collectd_joule_cgroup_gauge', 'memory_max_percent'),
                           ('oom', 'collectd_joule_cgroup_derive_total', 'memory_events_oom_kill'),
                           ('periods', 'collectd_joule_cgroup_derive_total', 'cpu_nr_periods'),
                           ('throttled', 'collectd_joule_cgroup_derive_total', 'cpu_nr_throttled'),
                           ('stall', 'collectd_joule_cgroup_derive_total', 'memory_full_stall_usec')):
        for cg in (DB, CRON):
            s = pick(name, typ, cg)
            if s:
                need[(key, cg)] = s[0]
    want = [('mem', DB), ('mem', CRON), ('oom', DB), ('oom', CRON), ('periods', DB), ('throttled', DB),
            ('stall', DB), ('stall', CRON)]
    # the drops rule's series: db.service owns a network namespace (the
    # test's ProcRoot), cron.service none
    drops = pick('collectd_joule_cgroup_if_dropped_rx_total', 'eth0', DB)
    if drops:
        need[('drops', DB)] = drops[0]
    want.append(('drops', DB))
    # the layer rule's: a container of the containerd host (Collect "+disk")
    for key, name, typ in (('layer', 'collectd_joule_cgroup_bytes', 'layer'),
                           ('age', 'collectd_joule_cgroup_duration_seconds', 'layer_age')):
        s = series(prom_port, '%s{instance="%s",type="%s",container="log-shipper"}' % (name, K8S, typ))
        if s:
            need[(key, K8S)] = s[0]
        want.append((key, K8S))
    missing = [w for w in want if w not in need]
    if not ok(not missing, 'the scrape has the series the alerts use, for %s and %s' % (DB, CRON), 'missing: %s' % missing):
        return
    common = lambda s: {k: v for k, v in s.items() if k not in ('__name__', 'type')}

    def alert(s, severity, summary):     # an alert keeps the series' labels
        labels = dict({k: v for k, v in s.items() if k != '__name__'}, severity=severity)
        return {'exp_labels': labels, 'exp_annotations': {'summary': summary}}
    db = need[('mem', DB)]
    lines = ['rule_files:', '  - %s' % os.path.join(top, 'conf', 'prometheus-alerts.yml'),
             'evaluation_interval: 15s', 'tests:']

    def case(interval, inputs, name, at, exp):
        lines.append('  - interval: %s' % interval)
        lines.append('    input_series:')
        for s, values in inputs:
            lines.append("      - series: '%s'" % selector(s))
            lines.append("        values: '%s'" % values)
        lines.append('    alert_rule_test:')
        lines.append('      - eval_time: %s' % at)
        lines.append('        alertname: %s' % name)
        lines.append('        exp_alerts:%s' % ('' if exp else ' []'))
        for e in exp:
            lines.append('          - exp_labels:')
            for k, v in sorted(e['exp_labels'].items()):
                lines.append('              %s: %s' % (k, json.dumps(v)))
            lines.append('            exp_annotations:')
            for k, v in e['exp_annotations'].items():
                lines.append('              %s: %s' % (k, json.dumps(v)))
    who = lambda s: '%s on %s' % (s['joule_cgroup'], s['instance'])
    # memory above 90 % for 5 minutes: db at 96 %, cron at 50 %
    case('1m', [(db, '96x20'), (need[('mem', CRON)], '50x20')], 'CgroupMemoryNearLimit', '10m',
         [alert(db, 'warning', '%s uses 96 %% of its memory limit' % who(db))])
    case('1m', [(db, '96x3')], 'CgroupMemoryNearLimit', '2m', [])     # not yet 5 minutes
    # an OOM kill: db's counter grows by one, cron's stays
    oom = need[('oom', DB)]
    case('15s', [(oom, '0x8 1x8'), (need[('oom', CRON)], '0x16')], 'CgroupOOMKill', '150s',
         [alert(oom, 'critical', 'the OOM killer killed a process in %s' % who(oom))])
    case('15s', [(oom, '1x16')], 'CgroupOOMKill', '150s', [])
    # half of the periods throttled for 10 minutes; a tenth does not alert
    per, thr = need[('periods', DB)], need[('throttled', DB)]
    case('1m', [(per, '0+100x40'), (thr, '0+50x40')], 'CgroupCPUThrottled', '20m',
         [{'exp_labels': dict(common(thr), severity='warning'),
           'exp_annotations': {'summary': '%s is throttled in 50%% of its CPU periods' % who(thr)}}])
    case('1m', [(per, '0+100x40'), (thr, '0+10x40')], 'CgroupCPUThrottled', '20m', [])
    # all tasks stalled on memory 20 % of the time (3 s every 15 s) for 5 minutes; cron 0.1 %
    st = need[('stall', DB)]
    case('15s', [(st, '0+3000000x40'), (need[('stall', CRON)], '0+15000x40')], 'CgroupMemoryPressureFull', '10m',
         [alert(st, 'warning', '%s is stalled on memory 20 %% of the time' % who(st))])
    # eth0 of db.service's namespace drops 2 received packets a second (30
    # every 15 s) for 20 minutes: the alert, at 2.0/s; 0.4 a second does
    # not alert, nor 2 a second for less than the rule's 10 minutes
    dr = need[('drops', DB)]
    case('15s', [(dr, '0+30x80')], 'CgroupNetworkDrops', '20m',
         [alert(dr, 'warning', '%s drops 2.0 received packets/s on eth0' % who(dr))])
    case('15s', [(dr, '0+6x80')], 'CgroupNetworkDrops', '20m', [])
    case('15s', [(dr, '0+30x32')], 'CgroupNetworkDrops', '8m', [])
    # a container's layer grows 25 MB every 15 s (6 GB an hour) with a
    # fresh figure: the alert, at 5.59 GiB an hour; 1 MB every 15 s (240 MB
    # an hour) does not alert, nor the same growth whose figure is two
    # hours old, nor 10 minutes of it (for: 15m)
    ly, ag = need[('layer', K8S)], need[('age', K8S)]
    case('15s', [(ly, '0+25000000x160'), (ag, '0x160')], 'ContainerLayerGrowing', '40m',
         [{'exp_labels': dict({k: v for k, v in ly.items() if k != '__name__'},
                              severity='warning'),
           'exp_annotations': {'summary': 'the writable layer of %s grows 5.588Gi'
                                          'B an hour' % who(ly)}}])
    case('15s', [(ly, '0+1000000x160'), (ag, '0x160')], 'ContainerLayerGrowing', '40m', [])
    case('15s', [(ly, '0+25000000x160'), (ag, '7200x160')], 'ContainerLayerGrowing', '40m', [])
    case('15s', [(ly, '0+25000000x40'), (ag, '0x40')], 'ContainerLayerGrowing', '10m', [])
    with open(out, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    ok(True, 'wrote %s from the series Prometheus scraped: %s' % (out, ', '.join(sorted(selector(s) for s in need.values()))[:400]))


def main():
    cmd = sys.argv[1]
    if cmd == 'queries':
        for lang, qs in doc_queries(sys.argv[2]).items():
            for page, q in qs:
                print('%s\t%s\t%s' % (lang, page, q))
        return 0
    if cmd == 'check':
        check(*sys.argv[2:8])
    elif cmd == 'promtool-test':
        promtool_test(*sys.argv[2:6])
    return 1 if N[1] else 0


if __name__ == '__main__':
    sys.exit(main())

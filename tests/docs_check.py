#!/usr/bin/env python3
"""docs_check.py - checks README.md, CHANGELOG.md and every page of docs/
as a reader would follow them, and prints TAP:

  * every code fence is closed (an open one swallows the rest of a page);
  * rendered by GitHub's renderer (cmark-gfm, Debian's package), no table
    ends early (rows after a blank line become a paragraph of pipes), no
    fenced block runs past where it was meant to close, and no heading
    lands inside code; each fault is planted in a copy of the README to
    prove the check sees it;
  * every relative link resolves to a file of the tree, and its #anchor to
    a heading of that page (GitHub's slugs);
  * every repository path it names in backquotes (conf/..., tests/...,
    scripts/..., docs/..., man/..., debian/..., src/...) exists;
  * every command of a shell fence that runs a file of the tree
    (./demo.sh, scripts/deps.sh, tests/vm/vm-run.sh...) names one that
    exists, and every `make TARGET` is a target of the Makefiles;
  * the README is at most 250 lines; its first screen says what it is,
    then the two commands, how to install on a fleet (the .deb, make
    install) and that man joule_cgroup is the reference; what test.sh
    installs comes below; its default configuration is
    conf/joule_cgroup.conf without comments;
  * the counts the tree changes: fuzz targets and seed corpus
    (reliability.md), the host kernel tests that also run in the VMs and
    the suites per kernel (development.md), against tests/.

joule_cgroup(5) against the code: tests/reference_check.sh.

    python3 tests/docs_check.py TOP_SRCDIR
"""
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
N = 0
FAILED = 0


def ok(cond, what, detail=None):
    global N, FAILED
    N += 1
    if not cond:
        FAILED += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', N, what))
    for line in (detail or []) if not cond else []:
        print('# ' + line)
    return cond


def pages():
    out = ['README.md', 'CHANGELOG.md']
    out += sorted('docs/' + f for f in os.listdir(os.path.join(TOP, 'docs')) if f.endswith('.md'))
    return out


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation but - and _
    dropped, spaces to -"""
    s = heading.strip().lower()
    s = re.sub(r'`', '', s)
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


def parse(text):
    """(lines outside fences, fences as (start line, info, lines), open fence)"""
    prose, fences, cur = [], [], None
    for n, line in enumerate(text.split('\n'), 1):
        stripped = line.strip()
        if cur is None:
            m = re.match(r'^(\s*)(```+)(.*)$', line)
            if m:
                cur = (n, m.group(3).strip(), [], m.group(2), len(m.group(1)))
                continue
            prose.append((n, line))
        else:
            if stripped.startswith(cur[3]) and stripped.strip('`') == '':
                fences.append(cur[:3])
                cur = None
            else:
                cur[2].append(line)
    return prose, fences, cur


def anchors(path):
    text = open(path, encoding='utf-8').read()
    prose, _, _ = parse(text)
    seen = {}
    out = set()
    for _, line in prose:
        m = re.match(r'^#{1,6} (.*)$', line)
        if m:
            s = slug(m.group(1))
            k = seen.get(s, 0)
            seen[s] = k + 1
            out.add(s if k == 0 else '%s-%d' % (s, k))
    return out


REPO_DIRS = ('conf/', 'tests/', 'scripts/', 'docs/', 'man/', 'debian/', 'src/', 'bench/', '.ci/')


def repo_path_ok(p):
    p = p.rstrip('/').split(' ')[0]
    if any(c in p for c in '*?{<…'):
        return True                     # a pattern or a placeholder, not a path
    full = os.path.join(TOP, p)
    # a test program (tests/unit_trust) is its source's name
    return os.path.exists(full) or os.path.exists(full + '.c')


def make_targets():
    targets = set()
    for f in ('Makefile.am', 'cli.am', 'tests/Makefile.inc'):
        for line in open(os.path.join(TOP, f), encoding='utf-8'):
            m = re.match(r'^([A-Za-z][\w.-]*)\s*:(?!=)', line)
            if m:
                targets.add(m.group(1))
    return targets | {'check', 'distcheck', 'install', 'all', 'clean'}


def check_page(page):
    path = os.path.join(TOP, page)
    text = open(path, encoding='utf-8').read()
    prose, fences, open_fence = parse(text)
    ok(open_fence is None, '%s: every code fence is closed' % page,
       ['fence opened at line %d is never closed' % open_fence[0]] if open_fence else None)

    bad = []
    for n, line in prose:
        for target in re.findall(r'\]\(([^)\s]+)\)', line):
            if re.match(r'^[a-z]+:', target):
                continue                # http:, https:, mailto:
            file_part, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                bad.append('line %d: %s: no such file' % (n, target))
                continue
            if anchor and dest.endswith('.md') and anchor not in anchors(dest):
                bad.append('line %d: %s: no heading with that anchor' % (n, target))
    ok(not bad, '%s: every relative link and anchor resolves' % page, bad)

    bad = []
    for n, line in prose:
        for code in re.findall(r'`([^`]+)`', line):
            for p in re.findall(r'(?:^|\s)((?:%s)[\w.@/+-]+)' % '|'.join(re.escape(d) for d in REPO_DIRS), code):
                if not repo_path_ok(p):
                    bad.append('line %d: %s' % (n, p))
    for start, info, lines in fences:
        for i, line in enumerate(lines):
            for p in re.findall(r'(?:^|[\s(])((?:%s)[\w.@/+-]+)' % '|'.join(re.escape(d) for d in REPO_DIRS), line):
                if not repo_path_ok(p):
                    bad.append('line %d: %s' % (start + 1 + i, p))
    ok(not bad, '%s: every repository path it names exists' % page, bad)

    bad = []
    targets = make_targets()
    for start, info, lines in fences:
        if info not in ('sh', 'shell', 'bash', ''):
            continue
        for i, line in enumerate(lines):
            cmd = line.split('#', 1)[0].strip()
            if not cmd:
                continue
            words = cmd.split()
            if words[0] in ('sudo', 'env') or '=' in words[0]:
                words = [w for w in words[1:] if '=' not in w] or ['']
            w = words[0]
            if re.match(r'^(\./|\.\./|scripts/|tests/)', w):
                w2 = w[3:] if w.startswith('../') else w
                if not os.path.exists(os.path.join(TOP, w2)):
                    bad.append('line %d: %s' % (start + 1 + i, w))
            if w == 'make':
                for t in words[1:]:
                    if not t.startswith('-') and '=' not in t and t not in targets:
                        bad.append('line %d: make %s: no such target' % (start + 1 + i, t))
    ok(not bad, '%s: every command it runs from the tree exists' % page, bad)


class Blocks(html.parser.HTMLParser):
    """The blocks cmark-gfm --sourcepos renders: (tag, first line, last
    line, text), for p, pre and h1-h6."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.open = [], []

    def handle_starttag(self, tag, attrs):
        pos = dict(attrs).get('data-sourcepos')
        if tag in ('p', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6') and pos:
            m = re.match(r'(\d+):\d+-(\d+):\d+', pos)
            self.open.append([tag, int(m.group(1)), int(m.group(2)), ''])

    def handle_endtag(self, tag):
        if self.open and self.open[-1][0] == tag:
            self.blocks.append(tuple(self.open.pop()))

    def handle_data(self, data):
        if self.open:
            self.open[-1][3] += data


def rendered_problems(path):
    """What GitHub would show wrong in the page at path (cmark-gfm)."""
    out = subprocess.run(['cmark-gfm', '--sourcepos', '-e', 'table', path],
                         capture_output=True, text=True, check=True).stdout
    lines = open(path, encoding='utf-8').read().split('\n')
    parser = Blocks()
    parser.feed(out)
    bad = []
    for tag, first, last, text in parser.blocks:
        rows = [l.strip() for l in text.split('\n') if l.strip()]
        if tag == 'p' and any(r.startswith('|') and r.endswith('|') and r.count('|') >= 3 for r in rows):
            bad.append('line %d: a table that ends early: its rows render as a paragraph of pipes' % first)
        if tag == 'pre' and re.match(r'^\s*(`{3,}|~{3,})', lines[first - 1]):
            end = lines[last - 1].strip() if last - 1 < len(lines) else ''
            if not re.match(r'^(`{3,}|~{3,})$', end):
                bad.append('line %d: a fence that does not close where it should: its code runs to line %d' % (first, last))
        if tag == 'pre':
            for i, l in enumerate(text.split('\n')):
                if re.match(r'^#{2,6} \S', l):
                    bad.append('line %d: a heading inside code: %s' % (first + 1 + i, l[:60]))
    return bad


def check_rendered(page):
    path = os.path.join(TOP, page)
    bad = rendered_problems(path)
    ok(not bad, '%s: as GitHub renders it (cmark-gfm): tables whole, fences closed, no heading in code' % page, bad)


def check_planted():
    """Each fault planted in a copy of the README: the check sees it."""
    text = open(os.path.join(TOP, 'README.md'), encoding='utf-8').read()
    lines = text.split('\n')
    table = [i for i, l in enumerate(lines) if l.startswith('| ') and i > 0 and lines[i - 1].startswith('|')]
    fence = [i for i, l in enumerate(lines) if l == '```' and i > 0]
    cut = lines[:table[len(table) // 2]] + [''] + lines[table[len(table) // 2]:]
    # a closing fence with a word after it closes nothing: the code runs on
    # over the headings to the next bare fence
    unclosed = lines[:fence[0]] + ['``` x'] + lines[fence[0] + 1:]
    heading = lines[:fence[0]] + ['## Quick start'] + lines[fence[0]:]
    faults = [('a table cut by a blank line', cut, 'a table that ends early'),
              ('an open fence', text.split('\n') + ['```sh', 'make'], 'does not close where it should'),
              ('a closing fence with a word after it', unclosed, 'a heading inside code'),
              ('a heading inside code', heading, 'a heading inside code')]
    tmp = tempfile.mkdtemp()
    try:
        for what, planted, want in faults:
            path = os.path.join(tmp, 'README.md')
            with open(path, 'w', encoding='utf-8') as f:
                f.write('\n'.join(planted))
            bad = rendered_problems(path)
            ok(any(want in b for b in bad), 'planted in a copy of README.md, %s: caught' % what, bad or ['nothing found'])
    finally:
        shutil.rmtree(tmp)


FIRST_SCREEN = 40  # lines of the README a reader sees first


def check_readme():
    text = open(os.path.join(TOP, 'README.md'), encoding='utf-8').read()
    lines = text.split('\n')
    ok(len(lines) <= 251, 'README.md: %d lines, at most 250' % (len(lines) - 1))
    screen = '\n'.join(lines[:FIRST_SCREEN])
    first = [l for l in lines[:FIRST_SCREEN] if l.startswith('sudo ./')]
    before = '\n'.join(lines[:lines.index(first[0])]) if first else ''
    ok('is a collectd plugin' in before and 'cgroup v2' in before,
       'README.md: its first screen says what it is, then its commands')
    ok(len(first) >= 2 and first[0].startswith('sudo ./demo.sh') and first[1].startswith('sudo ./test.sh'),
       'README.md: its first screen has the two commands: sudo ./demo.sh, sudo ./test.sh')
    ok('.deb' in screen and 'make install' in screen and '`man joule_cgroup`' in screen,
       'README.md: its first screen says how to install on a fleet (the .deb, make install) and '
       'names man joule_cgroup as the reference')
    installs = [i for i, l in enumerate(lines) if '/boot' in l]
    ok(installs and installs[0] >= FIRST_SCREEN and 'servers' in '\n'.join(lines[installs[0]:installs[0] + 3]),
       'README.md says what test.sh installs (kernels into /boot, servers) below its first screen')
    _, fences, _ = parse(text)
    shown = [f for f in fences if f[2] and f[2][0] == 'LoadPlugin joule_cgroup']
    conf = [l.rstrip() for l in open(os.path.join(TOP, 'conf/joule_cgroup.conf'), encoding='utf-8')]
    active = [l for l in conf if l.strip() and not l.strip().startswith('#')]
    ok(bool(shown) and [l.rstrip() for l in shown[0][2] if l.strip()] == active,
       'README.md: its default configuration is conf/joule_cgroup.conf without comments',
       ['README: %r' % (shown[0][2] if shown else None), 'conf:   %r' % active])


def make_list(name):
    """The words of a variable of tests/Makefile.inc (continuation lines)."""
    text = open(os.path.join(TOP, 'tests/Makefile.inc'), encoding='utf-8').read()
    m = re.search(r'^%s = ((?:.*\\\n)*.*)$' % re.escape(name), text, re.M)
    return [os.path.basename(w) for w in m.group(1).replace('\\\n', ' ').split()] if m else []


def check_counts():
    """The counts the pages give that the tree changes: checked here, so
    they are corrected when the tree grows."""
    rel = open(os.path.join(TOP, 'docs/reliability.md'), encoding='utf-8').read()
    fuzz = os.path.join(TOP, 'tests/fuzz')
    targets = sorted(f[:-2] for f in os.listdir(fuzz) if re.match(r'^fuzz_\w+\.c$', f))
    corpus = sum(len(files) for _, _, files in os.walk(os.path.join(fuzz, 'corpus')))
    m = re.search(r'(\d+) libFuzzer targets', rel)
    ok(m and int(m.group(1)) == len(targets),
       'docs/reliability.md: %s libFuzzer targets; tests/fuzz has %d' % (m and m.group(1), len(targets)))
    m = re.search(r'seed corpus \((\d[\d,]*)\s+files', rel)
    ok(m and int(m.group(1).replace(',', '')) == corpus,
       'docs/reliability.md: a seed corpus of %s files; tests/fuzz/corpus has %d' % (m and m.group(1), corpus))
    readme = open(os.path.join(fuzz, 'README.md'), encoding='utf-8').read()
    listed = sorted(re.findall(r'^\| `(fuzz_\w+)` \|', readme, re.M))
    ok(listed == targets, 'tests/fuzz/README.md: one row per target',
       ['rows: %s' % ' '.join(listed), 'targets: %s' % ' '.join(targets)])

    dev = open(os.path.join(TOP, 'docs/development.md'), encoding='utf-8').read()
    vm = make_list('vm_tests')
    kernel = make_list('kernel_tests')
    both = sorted(t for t in kernel if t in vm)
    m = re.search(r'; ((?:`\w+\.sh`(?:, | and ))*`\w+\.sh`) also under two real kernels', dev)
    said = sorted(re.findall(r'`(\w+\.sh)`', m.group(1))) if m else []
    ok(len(vm) >= 10 and said == both,
       'docs/development.md: the host kernel tests that also run in the VMs are those of vm_tests',
       ['the page: %s' % ' '.join(said), 'tests/Makefile.inc: %s' % ' '.join(both)])
    m = re.search(r'(\d+) suites under each\s+kernel', dev)
    newest = make_list('vm_tests_newest')
    each = [t for t in vm if t not in newest]
    ok(m and int(m.group(1)) == len(each),
       'docs/development.md: %s suites under each kernel; vm_tests has %d, and %d more or of them under the newest only' % (
           m and m.group(1), len(each), len(newest)))
    host_rows = [l for l in dev.split('\n') if l.startswith('| `kernel_')]
    said = sorted(re.findall(r'`(\w+\.sh)`', host_rows[-1].split('|')[1])) if host_rows else []
    ok(said == sorted(t for t in vm if not t.startswith('vm_')),
       "docs/development.md: the VM table's row of the host's tests is vm_tests less the vm_ suites",
       ['the page: %s' % ' '.join(said)])


def main():
    rendered = shutil.which('cmark-gfm') is not None
    ok(rendered or os.environ.get('CI') != 'true',
       'cmark-gfm renders the pages (scripts/deps.sh --tests installs it)')
    for page in pages():
        check_page(page)
        if rendered:
            check_rendered(page)
    if rendered:
        check_planted()
    check_readme()
    check_counts()
    print('1..%d' % N)
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main())

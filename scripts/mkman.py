#!/usr/bin/env python3
"""mkman.py - makes joule_cgroup(5) from docs/configuration.md and
docs/metrics.md, so that the man page and the two pages are one text
(docs/development.md#building).

    mkman.py [--set NAME=VALUE]... TEMPLATE PAGE.md... >joule_cgroup.5

TEMPLATE is man/joule_cgroup.5.in: roff with @NAME@ for every --set (the
installed paths, from make) and a line @REFERENCE@ where the pages go,
each under a .SH of its own.  Only the markdown the pages use is known:
headings (#: a section, ##: a subsection, ###: an entry), paragraphs,
"- " lists, tables (each row an entry: the first cell its tag, the
others "column: cell"), ``` fences and indented code, `code`, **bold**,
*emphasis* and [links] (the text; a page outside the man page is named).
Python 3's standard library only: the build runs it.
"""
import os
import re
import sys

SECTION = {'configuration.md': 'CONFIGURATION', 'metrics.md': 'VALUE LISTS'}


def esc(text):
    """Plain text to roff: backslashes, and every non-ASCII character as a
    named glyph, so the page needs no input encoding."""
    text = text.replace('\\', '\\e')
    return ''.join(c if ord(c) < 128 else '\\[u%04X]' % ord(c) for c in text)


def code(text):
    """A literal: minus signs that copy as '-', and a place to break a
    long name after each brace (a Prometheus series and its labels)."""
    return esc(text).replace('-', '\\-').replace('{', '{\\:')


def inline(text, pages):
    """One paragraph's markdown spans to roff, on one line."""
    out = []
    pos = 0
    pat = re.compile(r'`([^`]+)`|\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?!\w)|\[([^\]]+)\]\(([^)\s]+)\)|\\([\\`*_|<>\[\]#!-])')
    for m in pat.finditer(text):
        out.append(esc(text[pos:m.start()]))
        pos = m.end()
        if m.group(1) is not None:
            out.append('\\fB' + code(m.group(1)) + '\\fR')
        elif m.group(2) is not None:
            out.append('\\fB' + inline(m.group(2), pages) + '\\fR')
        elif m.group(3) is not None:
            out.append('\\fI' + inline(m.group(3), pages) + '\\fR')
        elif m.group(4) is not None:
            label = inline(m.group(4), pages)
            target = m.group(5).split('#', 1)[0]
            page = os.path.basename(target)
            if target and page not in pages and not re.match(r'^[a-z]+:', target):
                if page not in m.group(4):
                    label += ' (\\fI' + esc(page) + '\\fR)'
            out.append(label)
        else:
            out.append(esc(m.group(6)))
    out.append(esc(text[pos:]))
    line = ''.join(out).strip()
    # a line that starts with . or ' would be a request
    return '\\&' + line if line[:1] in ('.', "'") else line


def cells(row):
    row = row.strip()
    if row.startswith('|'):
        row = row[1:]
    if row.endswith('|') and not row.endswith('\\|'):
        row = row[:-1]
    return [c.strip() for c in re.split(r'(?<!\\)\|', row)]


def convert(text, pages, title):
    """One page's markdown to roff lines."""
    out = ['.SH ' + title]
    lines = text.split('\n')
    i = 0
    in_entry = False

    def close_entry():
        nonlocal in_entry
        if in_entry:
            out.append('.RE')
            in_entry = False

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        m = re.match(r'^(#{1,4}) (.*)$', line)
        if m:
            level = len(m.group(1))
            i += 1
            if level == 1:
                continue                    # the page's title: the .SH above
            close_entry()
            if level == 2:
                out.append('.SS ' + inline(m.group(2), pages))
            else:
                out.append('.PP')
                out.append('\\fB' + inline(m.group(2).strip('`'), pages) + '\\fR')
                out.append('.RS 4')
                in_entry = True
            continue
        if line.startswith('```'):
            fence = []
            i += 1
            while i < len(lines) and not lines[i].startswith('```'):
                fence.append(lines[i])
                i += 1
            i += 1
            out += ['.PP', '.in +4n', '.EX'] + [code(l) or '\\&' for l in fence] + ['.EE', '.in']
            continue
        if line.startswith('    '):
            block = []
            while i < len(lines) and (lines[i].startswith('    ') or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ['.PP', '.in +4n', '.EX'] + [code(l) or '\\&' for l in block] + ['.EE', '.in']
            continue
        if line.startswith('|'):
            rows = []
            while i < len(lines) and lines[i].startswith('|'):
                rows.append(cells(lines[i]))
                i += 1
            head, body = rows[0], [r for r in rows[2:]]
            for r in body:
                out.append('.TP 4')
                out.append(inline(r[0], pages))
                out.append('.br')           # the row's cells below its tag
                first = True
                for h, c in zip(head[1:], r[1:]):
                    if not c:
                        continue
                    if not first:
                        out.append('.br')
                    first = False
                    out.append('%s: %s' % (inline(h, pages), inline(c, pages)))
            continue
        if re.match(r'^- \[[^\]]+\]\(#[^)]+\)$', line):
            # the page's table of contents: the man page has its own
            while i < len(lines) and re.match(r'^- \[[^\]]+\]\(#[^)]+\)$', lines[i]):
                i += 1
            continue
        if re.match(r'^- ', line):
            while i < len(lines) and re.match(r'^- ', lines[i]):
                item = [lines[i][2:]]
                i += 1
                while i < len(lines) and lines[i].startswith('  ') and lines[i].strip():
                    item.append(lines[i].strip())
                    i += 1
                out += ['.IP \\(bu 2', inline(' '.join(item), pages)]
                while i < len(lines) and not lines[i].strip() and i + 1 < len(lines) \
                        and re.match(r'^- ', lines[i + 1]):
                    i += 1
            continue
        para = []
        while i < len(lines) and lines[i].strip() and not re.match(r'^(#{1,4} |```|\||- )', lines[i]):
            para.append(lines[i].strip())
            i += 1
        out += ['.PP', inline(' '.join(para), pages)]
    close_entry()
    return out


def main(argv):
    subst = {}
    args = []
    it = iter(argv)
    for a in it:
        if a == '--set':
            name, _, value = next(it).partition('=')
            subst[name] = value
        else:
            args.append(a)
    template, mds = args[0], args[1:]
    pages = {os.path.basename(p) for p in mds}
    body = []
    for p in mds:
        text = open(p, encoding='utf-8').read()
        body += convert(text, pages, SECTION.get(os.path.basename(p), os.path.basename(p).upper()))
    out = []
    for line in open(template, encoding='utf-8').read().split('\n'):
        if line == '@REFERENCE@':
            out += body
            continue
        for name, value in subst.items():
            line = line.replace('@%s@' % name, esc(value).replace('-', '\\-'))
        out.append(line)
    left = re.findall(r'@[A-Za-z_]+@', '\n'.join(out))
    if left:
        sys.stderr.write('mkman.py: no --set for %s\n' % ' '.join(sorted(set(left))))
        return 2
    sys.stdout.write('\n'.join(out).rstrip('\n') + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

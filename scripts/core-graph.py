#!/usr/bin/env python3
"""core-graph.py - src/core drawn as rooms: its folders, the arrows between
them (a file of one includes a header of the other), the floors they stand
on and the arrows that run back up.

    scripts/core-graph.py [TOP]                      the drawing
    scripts/core-graph.py --check [--max-back N] [TOP]
                                                     TAP: the rules below

A room is a folder of src/core (steps/<step> each its own); an arrow
A -> B says that A uses B.  The floors: the fewest arrows that would close
a circle (ties: the fewest includes behind them) are set aside as arrows
back up, and each room stands one floor above the highest room it uses
(floor 0 uses none).  What --check holds (tests/core_layout.sh):

  * no circle of includes between files (a header that comes back to
    itself through others);
  * at most N arrows back up (default 3: the seams docs/development.md
    names);
  * the map of docs/development.md names every folder of src/core and
    every module in it (jc_x for jc_x.c and jc_x.h), in the folder it
    is in, and nothing that is not there;
  * no file outside src/core/pass writes a field of struct jc_collector
    (c->FIELD assigned, incremented, or-ed...), in the files that see
    it (those that include jc_internal.h, at any depth);
  * a step is a folder and an entry: each folder below steps/ defines
    one jc_step, every jc_step has its entry in the list
    (steps/jc_step_list.h) and every entry its jc_step, and steps.am
    beside the list names each step folder's -I and every file of it.
"""
import collections
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def core_files(top):
    """{path relative to src/core: its folder} of every .c, .h and the
    steps' list."""
    core = os.path.join(top, 'src/core')
    out = {}
    for d, _, files in os.walk(core):
        for f in files:
            if f.endswith(('.c', '.h', '.def')):
                rel = os.path.relpath(os.path.join(d, f), core)
                out[rel] = os.path.dirname(rel)
    return out


def includes(top, files):
    """{file: [file it includes]}: every "header" found in src/core, by its
    name (the build's -I flags: one per folder)."""
    by_name = {}
    for rel in files:
        by_name.setdefault(os.path.basename(rel), []).append(rel)
    out = {}
    for rel in files:
        text = open(os.path.join(top, 'src/core', rel), encoding='utf-8').read()
        seen = []
        for name in INCLUDE.findall(text):
            here = os.path.join(os.path.dirname(rel), name)
            if here in files:  # the including file's folder first, as cc does
                seen.append(here)
            elif len(by_name.get(os.path.basename(name), [])) == 1:
                seen.append(by_name[os.path.basename(name)][0])
        out[rel] = seen
    return out


def file_circles(graph):
    """The circles of includes between files: each as a list of files."""
    found, state, stack = [], {}, []

    def visit(f):
        state[f] = 1
        stack.append(f)
        for g in graph[f]:
            if state.get(g) == 1:
                found.append(stack[stack.index(g):] + [g])
            elif g not in state:
                visit(g)
        stack.pop()
        state[f] = 2

    for f in sorted(graph):
        if f not in state:
            visit(f)
    return found


def rooms_graph(files, graph):
    """{(from room, to room): [(file, header)...]}: the arrows."""
    arrows = collections.defaultdict(list)
    for f, headers in graph.items():
        for h in headers:
            if files[f] != files[h]:
                arrows[(files[f], files[h])].append((f, h))
    return arrows


def strongly_connected(nodes, edges):
    """Tarjan's components, each a sorted list."""
    index, low, on, stack, out = {}, {}, set(), [], []
    succ = collections.defaultdict(list)
    for a, b in edges:
        succ[a].append(b)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def back_arrows(comp, arrows):
    """The fewest arrows of one component whose removal leaves no circle
    (ties: the fewest includes behind them): an exact search over the
    orders of its rooms, bottom up (a component is a handful of rooms)."""
    n = len(comp)
    if n == 1:
        return []
    pos = {r: i for i, r in enumerate(comp)}
    inner = {(a, b): len(v) for (a, b), v in arrows.items() if a in pos and b in pos}
    best = {0: ((0, 0), None)}
    for mask in range(1 << n):
        if mask not in best:
            continue
        cost = best[mask][0]
        for u in range(n):
            if mask & (1 << u):
                continue
            # u goes on top of mask: a room of mask that uses u points up.
            add = [0, 0]
            for v in range(n):
                w = inner.get((comp[v], comp[u]))
                if mask & (1 << v) and w:
                    add[0] += 1
                    add[1] += w
            nxt = mask | (1 << u)
            c = (cost[0] + add[0], cost[1] + add[1])
            if nxt not in best or c < best[nxt][0]:
                best[nxt] = (c, (mask, u))
    order, mask = [], (1 << n) - 1
    while mask:
        prev, u = best[mask][1]
        order.append(comp[u])
        mask = prev
    order.reverse()  # bottom first
    height = {r: i for i, r in enumerate(order)}
    return sorted((a, b) for (a, b) in inner if height[a] < height[b])


def floors(rooms, arrows, back):
    """{room: floor}: one above the highest room it uses, the arrows back
    up set aside."""
    uses = collections.defaultdict(set)
    for a, b in arrows:
        if (a, b) not in back:
            uses[a].add(b)
    floor = {}

    def of(r):
        if r not in floor:
            floor[r] = 1 + max((of(b) for b in uses[r]), default=-1)
        return floor[r]

    for r in rooms:
        of(r)
    return floor


def drawing(top):
    files = core_files(top)
    graph = includes(top, files)
    arrows = rooms_graph(files, graph)
    rooms = sorted(set(files.values()))
    back = []
    for comp in strongly_connected(rooms, arrows):
        back += back_arrows(comp, arrows)
    return files, graph, arrows, rooms, sorted(back), floors(rooms, arrows, set(back))


def show(top):
    files, graph, arrows, rooms, back, floor = drawing(top)
    n_floors = max(floor.values()) + 1
    print('src/core: %d rooms on %d floors, %d arrows, %d back up'
          % (len(rooms), n_floors, len(arrows), len(back)))
    for f in range(n_floors - 1, -1, -1):
        here = [r for r in rooms if floor[r] == f]
        print('floor %d: %s' % (f, '  '.join(
            '%s (-> %s)' % (r, ', '.join(sorted(b for a, b in arrows if a == r and (a, b) not in back)))
            if any(a == r for a, _ in arrows) else r for r in here)))
    for a, b in back:
        print('back up: %s -> %s: %s' % (a, b, ', '.join(
            '%s includes %s' % (os.path.basename(f), os.path.basename(h)) for f, h in arrows[(a, b)])))
    for c in file_circles(graph):
        print('circle: %s' % ' -> '.join(c))


def map_entries(top):
    """The map of docs/development.md's Layout: {folder: [modules]}."""
    text = open(os.path.join(top, 'docs/development.md'), encoding='utf-8').read()
    block = re.search(r'^```\n(src/core/.*?)^```', text, re.M | re.S)
    out, folder = {}, None
    for line in block.group(1).split('\n')[1:]:
        m = re.match(r'^  (\S+)/\s', line + ' ')
        if m:
            folder = m.group(1)
            out.setdefault(folder, [])
            continue
        m = re.match(r'^    (jc_\w+(?:\.\w+)?(?:, jc_\w+(?:\.\w+)?)*)(?:\s|$)', line)
        if m and folder is not None:
            out[folder] += [re.sub(r'\.h$', '', w.strip()) for w in m.group(1).split(',')]
            continue
        if not line.startswith(' '):
            break  # the map of src/core ends with the next part of the tree
    return out


def modules(files):
    """{folder: {module}}: jc_x for jc_x.c and jc_x.h (a header alone too);
    a file of another kind by its whole name (the steps' list)."""
    out = collections.defaultdict(set)
    for rel, folder in files.items():
        stem, ext = os.path.splitext(os.path.basename(rel))
        out[folder].add(stem if ext in ('.c', '.h') else stem + ext)
    return out


def steps_problems(top, files):
    """What keeps a step from being its folder and its entry: lines to
    say, none when every step folder is in the list and in steps.am."""
    core = os.path.join(top, 'src/core')
    listed = re.findall(r'^\s*X\((\w+), (\w+)\)', open(os.path.join(core, 'steps/jc_step_list.h'),
                                                       encoding='utf-8').read(), re.M)
    am = open(os.path.join(core, 'steps/steps.am'), encoding='utf-8').read()
    defined = collections.defaultdict(list)
    for rel, folder in files.items():
        if rel.endswith('.c'):
            text = open(os.path.join(core, rel), encoding='utf-8').read()
            for name in re.findall(r'^const jc_step jc_(\w+)_step\b', text, re.M):
                defined[folder].append(name)
    out = []
    folders = sorted(f for f in set(files.values()) if f.startswith('steps/'))
    names = [n for _, n in listed]
    for folder in folders:
        if len(defined[folder]) != 1:
            out.append('%s defines %d jc_step (one)' % (folder, len(defined[folder])))
        for name in defined[folder]:
            if name not in names:
                out.append('%s: jc_%s_step has no entry in jc_step_list.h' % (folder, name))
        if '-I$(top_srcdir)/src/core/%s' % folder not in am.split():
            out.append('steps.am: no -I for %s' % folder)
    every = set(n for v in defined.values() for n in v)
    for folder in sorted(defined):
        for name in defined[folder]:
            if not folder.startswith('steps/') and name not in names:
                out.append('%s: jc_%s_step has no entry in jc_step_list.h' % (folder, name))
    for name in names:
        if name not in every:
            out.append('jc_step_list.h: jc_%s_step is defined nowhere' % name)
    for rel in sorted(files):
        if rel.startswith('steps/') and 'src/core/' + rel not in am.split():
            out.append('steps.am: %s is not listed' % rel)
    return out


def collector_fields(top):
    """The fields of struct jc_collector (jc_internal.h)."""
    text = open(os.path.join(top, 'src/core/pass/jc_internal.h'), encoding='utf-8').read()
    body = re.search(r'^struct jc_collector \{\n(.*?)^\};', text, re.M | re.S).group(1)
    body = re.sub(r'/\*.*?\*/', '', body, flags=re.S)
    return sorted(set(re.findall(r'(\w+)\s*(?:\[[^]]*\])?\s*;', body)))


def collector_writes(top, files, graph):
    """Writes of a jc_collector field outside the pass: 'file:line: text'."""
    sees = set()
    for f in files:  # the files that include jc_internal.h, at any depth
        seen, todo = set(), [f]
        while todo:
            g = todo.pop()
            for h in graph.get(g, []):
                if h not in seen:
                    seen.add(h)
                    todo.append(h)
        if 'pass/jc_internal.h' in seen:
            sees.add(f)
    fields = '|'.join(collector_fields(top))
    write = re.compile(r'(?:(?:\+\+|--)\s*\bc->(?:%s)\b|(?<![\w.>])c->(?:%s)\b(?:\.\w+|->\w+|\[[^]\n]*\])*\s*'
                       r'(?:=(?!=)|[-+*/%%|&^]=|<<=|>>=|\+\+|--))' % (fields, fields))
    out = []
    for f in sorted(sees):
        if files[f] == 'pass':
            continue
        for i, line in enumerate(open(os.path.join(top, 'src/core', f), encoding='utf-8'), 1):
            if write.search(line):
                out.append('src/core/%s:%d: %s' % (f, i, line.strip()))
    return out


def check(top, max_back):
    n = [0, 0]

    def ok(cond, what, detail=()):
        n[0] += 1
        n[1] += not cond
        print('%s %d - %s' % ('ok' if cond else 'not ok', n[0], what))
        for line in detail if not cond else ():
            print('# ' + line)

    files, graph, arrows, rooms, back, floor = drawing(top)
    circles = file_circles(graph)
    ok(not circles, 'src/core: no circle of includes between files',
       [' -> '.join(c) for c in circles])
    ok(len(back) <= max_back,
       'src/core: %d arrows back up between its %d rooms (at most %d)' % (len(back), len(rooms), max_back),
       ['%s -> %s' % ab for ab in back])
    mapped = map_entries(top)
    have = modules(files)
    ok(sorted(mapped) == sorted(have),
       "docs/development.md's map names every folder of src/core, and no other",
       ['the map: %s' % ' '.join(sorted(mapped)), 'src/core: %s' % ' '.join(sorted(have))])
    for folder in sorted(have):
        said = set(mapped.get(folder, []))
        ok(said == have[folder],
           "docs/development.md's map of src/core/%s names its %d modules" % (folder, len(have[folder])),
           ['missing: %s' % ' '.join(sorted(have[folder] - said)),
            'not there: %s' % ' '.join(sorted(said - have[folder]))])
    writes = collector_writes(top, files, graph)
    ok(not writes, 'no file outside src/core/pass writes a field of struct jc_collector', writes)
    said = steps_problems(top, files)
    ok(not said, 'a step is its folder and its entry: jc_step_list.h and steps.am name every step folder', said)
    print('1..%d' % n[0])
    return 1 if n[1] else 0


def main(argv):
    args = argv[1:]
    max_back = 3
    do_check = False
    while args and args[0].startswith('--'):
        if args[0] == '--check':
            do_check = True
            args = args[1:]
        elif args[0] == '--max-back' and len(args) > 1:
            max_back = int(args[1])
            args = args[2:]
        else:
            sys.stderr.write(__doc__)
            return 2
    top = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), '..'))
    if do_check:
        return check(top, max_back)
    show(top)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

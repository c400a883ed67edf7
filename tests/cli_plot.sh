#!/usr/bin/env bash
# The picture of a run (run --plot FILE.svg) and of a comparison (compare
# --plot), on the real kernel, checked as a reader gets it: valid XML
# with nothing outside itself, rendered to PNG by a real renderer
# (rsvg-convert, Debian's librsvg2-bin), and the rendering looked at
# (tests/lib/png.py): a program that burns CPU between __BUSY__ and
# __IDLE__ and then sleeps has the busy phase's band where its times in
# the report say (pixel columns, to 1.5 px), the cores-busy curve at the
# phase's own cores_busy there and at 0 in the sleep; 50 phases get labels
# that do not overlap and a key that names each; names with <, & and >
# stay XML; a power panel where there is RAPL, the true peak where the
# kernel gives it (reports made for real, read back).  --samples puts
# every reading in the report.
# Everything lives under a parent named for this run, removed at the end.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3
need "rsvg-convert (Debian package librsvg2-bin)" -- command -v rsvg-convert
need_kernel

make_run_parent joule-plottest
hand_down_controllers
export PYTHONPATH=$top_srcdir/tests/lib

# render NAME: $T/NAME.svg to $T/NAME.png
render() {
  rsvg-convert "$T/$1.svg" -o "$T/$1.png" 2>"$T/rsvg.err"
  ok $? "rsvg-convert renders $1.svg to PNG"
  diag <"$T/rsvg.err"
}

# check_svg NAME DESCRIPTION CODE [ARGS...]: the code sees svg (the root
# element of $T/NAME.svg, ElementTree), r (the report $T/NAME.json when
# there is one), img (the PNG when rendered) and helpers.
check_svg() {
  local name=$1 desc=$2 code=$3; shift 3
  python3 - "$T/$name" "$@" >"$T/py.err" 2>&1 <<PY
import json, os, sys
import xml.etree.ElementTree as ET
import png
base, args = sys.argv[1], sys.argv[2:]
svg = ET.parse(base + ".svg").getroot()
r = json.load(open(base + ".json")) if os.path.exists(base + ".json") else None
img = png.read(base + ".png") if os.path.exists(base + ".png") else None
NS = "{http://www.w3.org/2000/svg}"
def each(tag, cls=None):
    return [e for e in svg.iter(NS + tag) if cls is None or e.get("class") == cls]
def f(e, k):
    return float(e.get(k))
def colour(hexa):
    return tuple(int(hexa[i:i + 2], 16) for i in (1, 3, 5))
def near(p, c, tol):
    return all(abs(a - b) <= tol for a, b in zip(p[:3], c))
$code
PY
  ok $? "$desc"
  diag <"$T/py.err"
}

# --- a busy phase and an idle one ----------------------------------------------------
cat >"$T/busy.py" <<'PY'
import time
print("__BUSY__", flush=True)
t = time.process_time()
while time.process_time() - t < 0.6:
    pass
print("__IDLE__", flush=True)
time.sleep(0.6)
PY
"$JC" run --root "$parent" --phases --samples --plot "$T/busy.svg" \
  --output "$T/busy.json" -- python3 "$T/busy.py" >/dev/null 2>"$T/err"
status=$?
[ "$status" -eq 0 ] && [ -s "$T/busy.svg" ] && no_errors "$T/err"
ok $? "run --phases --samples --plot: status $status, the picture written"
check_json "--samples: a point per reading in order, START to END, counters since START" "$T/busy.json" '
s = r["series"]
kinds = [p["kind"] for p in s]
assert kinds[0] == "start" and kinds[-1] == "end" and kinds.count("mark") == 2, kinds
assert kinds.count("tick") == r["samples"], (kinds.count("tick"), r["samples"])
assert all(a["t"] <= b["t"] for a, b in zip(s, s[1:]))
assert s[0]["t"] == 0 and s[0]["cpu_usage_usec"] == 0
assert all(a["cpu_usage_usec"] <= b["cpu_usage_usec"] for a, b in zip(s, s[1:]))
assert s[-1]["cpu_usage_usec"] == r["cpu"]["usage_usec"], (s[-1], r["cpu"])
assert abs(s[-1]["t"] - r["wall_seconds"]) < 2e-6
assert set(s[0]) == {"t", "kind", "cpu_usage_usec", "memory_current", "memory_peak_interval",
                     "io_read_bytes", "io_write_bytes", "energy_j", "host_energy_j"}, set(s[0])
print("%d points" % len(s))'
check_svg busy "the SVG is XML with nothing outside itself: no link, image, script or style sheet" '
assert svg.tag == NS + "svg" and svg.get("viewBox") and svg.get("width") == "1000"
text = open(base + ".svg").read()
for bad in ("href", "<image", "<script", "@import", "url("):
    assert bad not in text, bad
assert [e.get("data-panel") for e in each("rect", "plot-area")] == ["cores", "memory", "io"]'
render busy
# The time grid's lines are drawn over the bands: one within a pixel or two
# of an edge (a phase that begins near a whole tick, as a loaded machine
# made the idle one at 0.797 s beside the 0.8 s line) covers the columns
# the edge is read from.  The edges are read from the same picture rendered
# without them.
python3 - "$T/busy.svg" "$T/bands.svg" <<'PY'
import sys
import xml.etree.ElementTree as ET
ET.register_namespace("", "http://www.w3.org/2000/svg")
tree = ET.parse(sys.argv[1])
removed = 0
for parent in tree.getroot().iter():
    for e in [e for e in parent if e.get("class") == "time-grid"]:
        parent.remove(e)
        removed += 1
assert removed >= 3, removed
tree.write(sys.argv[2])
PY
cp "$T/busy.json" "$T/bands.json"
render bands
# Each edge of the busy phase's band, looked for on the rows of every
# panel where no curve passes within 4 px of it (a curve's step may hide
# an edge in one panel, never in all): the first column of the band after
# it is where the edge's time says.
check_svg bands "the busy phase's band is drawn where its times say (pixel columns), the idle one after it" '
areas = each("rect", "plot-area")
X, W, T1 = f(areas[0], "x"), f(areas[0], "width"), f(areas[0], "data-t1")
assert img.width == 1000 and img.height == round(f(svg, "height")), (img.width, img.height)
bands = [e for e in each("rect", "phase") if f(e, "y") == f(areas[0], "y")]
assert [b.get("data-name") for b in bands] == [p["name"] for p in r["phases"]]
inks = [colour(e.get("stroke")) for e in each("path", "curve")]
def x_of(t):
    return X + t / T1 * W
def clean(x, y):
    return not any(near(img.pixel(x, y), c, 90) for c in inks)
for i in (1, 2):  # the edge before phase i: where its band begins
    p, tint = r["phases"][i], colour(bands[i].get("fill"))
    edge = x_of(p["start_seconds"])
    cols = range(int(edge) - 4, int(edge) + 5)
    firsts = []
    for a in areas:
        for y in range(int(f(a, "y")) + 2, int(f(a, "y") + f(a, "height")) - 2):
            if all(clean(x, y) for x in cols):
                first = [x for x in cols if near(img.pixel(x, y), tint, 6)]
                if first and not near(img.pixel(first[0] - 1, y), tint, 6):
                    firsts.append(first[0])
    firsts.sort()
    at = firsts[len(firsts) // 2] if firsts else None
    print("%s begins at %.3f s: x %.1f; drawn from column %s (%d rows)" % (
          p["name"], p["start_seconds"], edge, at, len(firsts)))
    assert len(firsts) >= 20 and abs(at - edge) <= 1.5, (at, edge, firsts[:5])
busy = r["phases"][1]
end = x_of(busy["start_seconds"] + busy["wall_seconds"])
print("%s ends at %.3f s: x %.1f, where the next band begins" % (
      busy["name"], busy["start_seconds"] + busy["wall_seconds"], end))'
# (on a loaded machine the busy program gets less than a core: the curve
# is held to the phase's own figure, not to 1)
check_svg busy "the cores-busy curve: at the busy phase's cores_busy in its band, at 0 in the sleep" '
area = [e for e in each("rect", "plot-area") if e.get("data-panel") == "cores"][0]
X, Y, W, H, T1, MAX = (f(area, k) for k in ("x", "y", "width", "height", "data-t1", "data-max"))
line = colour([e for e in each("path", "curve") if e.get("data-curve") == "the command"][0].get("stroke"))
def level(t0, t1):  # the median height of the curve in the middle of [t0, t1], in cores
    ys = []
    for x in range(int(X + (t0 + (t1 - t0) / 4) / T1 * W), int(X + (t1 - (t1 - t0) / 4) / T1 * W)):
        ys += [y for y in range(int(Y) - 1, int(Y + H) + 2) if near(img.pixel(x, y), line, 60)]
    ys.sort()
    return (Y + H - ys[len(ys) // 2]) / H * MAX
busy, idle = r["phases"][1], r["phases"][2]
b = level(busy["start_seconds"], busy["start_seconds"] + busy["wall_seconds"])
i = level(idle["start_seconds"], idle["start_seconds"] + idle["wall_seconds"])
print("busy: curve at %.3f cores, the phase %.3f; idle: curve at %.3f, the phase %.3f (axis to %g)" % (
      b, busy["cpu"]["cores_busy"], i, idle["cpu"]["cores_busy"], MAX))
assert abs(b - busy["cpu"]["cores_busy"]) <= 0.2 * MAX, b
assert i <= 0.05 * MAX and b > i, (b, i)'

# --- 50 phases: labels that never overlap ------------------------------------------------
"$JC" run --root "$parent" --phases --plot "$T/fifty.svg" --output "$T/fifty.json" \
  -- sh -c 'for i in $(seq 1 50); do echo "__PHASE_$i"__; if [ $((i % 7)) -eq 0 ]; then sleep 0.3; else sleep 0.02; fi; done' \
  >/dev/null 2>"$T/err"
ok $? "50 markers, phases of 0.02 and 0.3 s: drawn"
check_svg fifty "51 phases: each labelled (its name where the band has room, else its number), no two labels overlap, all inside the picture" '
labels = each("text", "phase-label")
assert len(labels) == 51 == len(r["phases"]), len(labels)
boxes = []
for e in labels:
    x, y, w = f(e, "x"), f(e, "y"), f(e, "data-width")
    i = int(e.get("data-index"))
    assert e.text in (r["phases"][i - 1]["name"], str(i)), (e.text, i)
    # a monospaced character is at most 0.602 em (DejaVu Sans Mono): the
    # width the plotter reserves (0.62 em) covers the drawn text
    assert w >= len(e.text) * 0.602 * 11, (e.text, w)
    assert 0 <= x and x + w <= 1000, (x, w)
    boxes.append((x, y - 11, x + w, y + 3, e.text))
for a in range(len(boxes)):
    for b in range(a + 1, len(boxes)):
        p, q = boxes[a], boxes[b]
        assert p[2] <= q[0] or q[2] <= p[0] or p[3] <= q[1] or q[3] <= p[1], (p, q)
full = sum(1 for e in labels if not e.text.isdigit())
print("%d labels in %d lanes, %d of them full names" % (len(labels), len({b[1] for b in boxes}), full))
keys = each("text", "phase-key")
assert len(keys) == 51, len(keys)
for i, (p, k) in enumerate(zip(r["phases"], keys)):
    assert k.text.startswith("%d %s " % (i + 1, p["name"])), (k.text, p["name"])'
render fifty

# --- names that are not XML -----------------------------------------------------------
"$JC" run --root "$parent" --token-pattern '(<[^ ]*>)' --plot "$T/names.svg" --output "$T/names.json" \
  -- sh -c 'echo "<a&b>"; sleep 0.2; printf "<\\303\\251\\377\\001>\\n"; sleep 0.2' >/dev/null 2>"$T/err"
ok $? "markers <a&b> and one with a byte that is not UTF-8: drawn"
check_svg names "... and the SVG is XML, the names as printed (the bad byte U+FFFD)" '
names = [e.get("data-name") for e in each("rect", "phase")][:3]
assert names[:2] == ["START -> <a&b>", "<a&b> -> <\u00e9\ufffd\ufffd>"], names'
render names

# --- compare --plot, and reports read back ------------------------------------------------
"$JC" compare --root "$parent" --iterations 3 --phases --samples --plot "$T/cmp.svg" \
  --output "$T/cmp.report" -- python3 "$T/busy.py" -- sh -c 'echo __BUSY__; echo __IDLE__; sleep 0.3' \
  >/dev/null 2>"$T/err"
ok $? "compare --plot: drawn"
check_svg cmp "one strip per command, one time axis: B's shorter run ends left of A's" '
strips = each("g", "strip")
assert len(strips) == 2
areas = each("rect", "plot-area")
assert len(areas) == 6 and len({a.get("data-t1") for a in areas}) == 1
rep = json.load(open(base + ".report"))
assert [len(c["series"]) for c in rep["commands"]] == [3, 3]'
render cmp
for n in a b; do
  "$JC" run --root "$parent" --iterations 2 --samples --output "$T/$n.json" -- sleep 0.2 >/dev/null 2>&1
done
"$JC" compare --plot "$T/files.svg" "$T/a.json" "$T/b.json" >/dev/null 2>"$T/err"
status=$?
[ "$status" -eq 0 ] && [ -s "$T/files.svg" ]
ok $? "compare a.json b.json --plot, reports made with --samples: drawn ($status)"
"$JC" run --root "$parent" --iterations 2 --output "$T/c.json" -- true >/dev/null 2>&1
"$JC" compare --plot "$T/nothing.svg" "$T/a.json" "$T/c.json" >/dev/null 2>"$T/err"
status=$?
[ "$status" -eq 125 ] && grep -q "^joule-cgroup: --plot \"$T/nothing.svg\": B has no samples: make its report with run --samples$" "$T/err"
ok $? "a report without samples: status $status, $(grep plot "$T/err")"

# Reports made for real elsewhere (tests/fixtures/reports/): a fixture
# powercap tree's energy (a power panel), and Debian 6.12's memory with
# its interval peak and io, in the VM.
"$JC" compare --plot "$T/fixtures.svg" "$FIXTURES/reports/host-energy-samples.json" \
  "$FIXTURES/reports/vm-6.12-memory-io.json" >/dev/null 2>"$T/err"
ok $? "compare --plot of two reports: drawn"
check_svg fixtures "where there is RAPL a power panel (the command's part and the packages'); the true peak beside memory.current; I/O" '
panels = [a.get("data-panel") for a in each("rect", "plot-area")]
assert panels == ["cores", "memory", "io", "power"] * 2, panels
strips = each("g", "strip")
def curves(strip):
    return [p.get("data-curve") for p in strip.iter(NS + "path") if len(p.get("d")) > 1]
a, b = curves(strips[0]), curves(strips[1])
assert "the command" in a and "package zones" in a and a.count("the command") == 2, a
assert "true peak" in b and "memory.current" in b and "write" in b, b
units = [t.text for t in svg.iter(NS + "text") if t.text and t.text.endswith(")")][:4]
print(units)
assert units == ["CPU (cores busy)", "memory (MiB)", "I/O (MiB/s)", "power (W)"], units'
render fixtures

[ -z "$(find "$parent" -mindepth 1 -type d)" ]
ok $? "nothing is left under $parent"
tap_done

/*
 * jcli_plot — see jcli_plot.h.
 *
 * Three steps: the curves of each strip from its samples (rates over
 * windows, gauges as read), one scale per panel over every strip, then
 * the layout (lanes for the phase labels) and the SVG.  Whatever the
 * report holds (a fuzzed one: times out of order or negative, huge
 * numbers), every coordinate written is clamped to the picture.
 */
#include "jcli_plot.h"

#include "jc_utf8.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1000
#define ML 80  /* left margin: the y tick labels */
#define MR 176 /* right margin: the legends */
#define PW (WIDTH - ML - MR)
#define PH 110             /* a panel's height */
#define FS 11              /* font size of most text */
#define CHAR_W (0.62 * FS) /* a monospaced character, with some room */
#define LANE_H 16
#define KEY_COLS 3
#define KEY_ROW_H 15
#define LABELS_MAX 200  /* phases labelled and listed; the rest banded */
#define PHASES_MAX 2000 /* phases banded */
#define FONT "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"

/* ---- curves -------------------------------------------------------------- */

typedef enum { P_CORES, P_MEMORY, P_IO, P_POWER, P_COUNT } panel_kind;

static const struct {
  const char *title; /* the unit is added */
  const char *empty; /* said in the panel when the run has no such figure */
} panels[P_COUNT] = {
    [P_CORES] = {"CPU", "no CPU figures"},
    [P_MEMORY] = {"memory", "memory not measured"},
    [P_IO] = {"I/O", "I/O not measured"},
    [P_POWER] = {"power", "power not measured"},
};

/* In the order drawn: the true peak under memory.current. */
typedef enum {
  C_CORES,
  C_PEAK,
  C_CURRENT,
  C_READ,
  C_WRITE,
  C_POWER,
  C_HOST_POWER,
  C_COUNT
} curve_kind;

static const struct {
  panel_kind panel;
  const char *legend;
  const char *color;
  bool dashed;
} curves[C_COUNT] = {
    [C_CORES] = {P_CORES, "the command", "#1f5fbf", false},
    [C_PEAK] = {P_MEMORY, "true peak", "#c0392b", true},
    [C_CURRENT] = {P_MEMORY, "memory.current", "#2a8a3a", false},
    [C_READ] = {P_IO, "read", "#7b3fa0", false},
    [C_WRITE] = {P_IO, "write", "#d9822b", false},
    [C_POWER] = {P_POWER, "the command", "#a0522d", false},
    [C_HOST_POWER] = {P_POWER, "package zones", "#555555", true},
};

/* A step (t0 < t1, rates and interval peaks) or a point (t0 == t1). */
typedef struct {
  double t0, t1, y;
} step;

typedef struct {
  step *s;
  size_t n, cap;
} curve;

typedef struct {
  jcli_point *p; /* sorted by time, times finite and >= 0 */
  size_t n;
  curve c[C_COUNT];
  double min_window;
} strip_data;

static bool push(curve *c, double t0, double t1, double y) {
  if (!isfinite(y) || !isfinite(t0) || !isfinite(t1))
    return true; /* nothing to draw */
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    step *grown = realloc(c->s, cap * sizeof(*grown));
    if (!grown)
      return false;
    c->s = grown;
    c->cap = cap;
  }
  c->s[c->n++] = (step){t0, t1, y};
  return true;
}

typedef jcli_value (*getter)(const jcli_point *p);
static jcli_value get_cpu(const jcli_point *p) { return p->cpu_usec; }
static jcli_value get_read(const jcli_point *p) { return p->read_bytes; }
static jcli_value get_write(const jcli_point *p) { return p->write_bytes; }
static jcli_value get_energy(const jcli_point *p) { return p->energy_uj; }
static jcli_value get_host(const jcli_point *p) { return p->host_energy_uj; }

/* A counter's rate over windows of at least min_window; a last window
 * shorter than that is merged into the one before it. */
static bool rate_curve(const strip_data *d, getter get, double scale,
                       curve *c) {
  size_t last = d->n;
  for (size_t i = 0; i < d->n; i++)
    if (get(&d->p[i]).have)
      last = i;
  size_t anchor = d->n;
  for (size_t i = 0; i < d->n; i++) {
    jcli_value v = get(&d->p[i]);
    if (!v.have)
      continue;
    if (anchor == d->n) {
      anchor = i;
      continue;
    }
    double t0 = d->p[anchor].t, t1 = d->p[i].t, dt = t1 - t0;
    double delta = (v.v - get(&d->p[anchor]).v) * scale;
    if (dt < d->min_window && !(i == last && dt > 0))
      continue;
    if (dt < d->min_window && c->n > 0) {
      step *prev = &c->s[c->n - 1];
      double span = t1 - prev->t0;
      prev->y = (prev->y * (prev->t1 - prev->t0) + delta) / span;
      prev->t1 = t1;
    } else if (!push(c, t0, t1, delta / dt)) {
      return false;
    }
    anchor = i;
  }
  return true;
}

static bool gauge_curves(const strip_data *d, curve *current, curve *peak) {
  double before = 0;
  for (size_t i = 0; i < d->n; i++) {
    const jcli_point *p = &d->p[i];
    if (p->memory_current.have &&
        !push(current, p->t, p->t, p->memory_current.v))
      return false;
    /* the highest since the previous reading: over that stretch */
    if (i > 0 && p->peak_interval.have &&
        !push(peak, before, p->t, p->peak_interval.v))
      return false;
    before = p->t;
  }
  return true;
}

static int by_time(const void *a, const void *b) {
  double x = ((const jcli_point *)a)->t, y = ((const jcli_point *)b)->t;
  return x < y ? -1 : x > y;
}

static void strip_release(strip_data *d) {
  free(d->p);
  for (int k = 0; k < C_COUNT; k++)
    free(d->c[k].s);
  memset(d, 0, sizeof(*d));
}

static int strip_make(const jcli_outcome *o, strip_data *d) {
  memset(d, 0, sizeof(*d));
  d->p = malloc((o->point_count ? o->point_count : 1) * sizeof(*d->p));
  if (!d->p)
    return -ENOMEM;
  for (size_t i = 0; i < o->point_count; i++)
    if (isfinite(o->point[i].t) && o->point[i].t >= 0)
      d->p[d->n++] = o->point[i];
  qsort(d->p, d->n, sizeof(*d->p), by_time);
  d->min_window = o->interval > 0 && o->interval < 1e6 ? o->interval / 2 : 0.05;
  bool fine = rate_curve(d, get_cpu, 1e-6, &d->c[C_CORES]) &&
              gauge_curves(d, &d->c[C_CURRENT], &d->c[C_PEAK]) &&
              rate_curve(d, get_read, 1, &d->c[C_READ]) &&
              rate_curve(d, get_write, 1, &d->c[C_WRITE]) &&
              rate_curve(d, get_energy, 1e-6, &d->c[C_POWER]) &&
              rate_curve(d, get_host, 1e-6, &d->c[C_HOST_POWER]);
  return fine ? 0 : -ENOMEM;
}

/* More steps than the panel has room for: groups of k become one, at the
 * group's highest value, so that no peak is lost. */
static void thin(curve *c) {
  size_t room = 2 * PW;
  if (c->n <= room)
    return;
  size_t k = (c->n + room - 1) / room, out = 0;
  for (size_t i = 0; i < c->n; i += k) {
    step g = c->s[i];
    size_t end = i + k < c->n ? i + k : c->n;
    for (size_t m = i + 1; m < end; m++) {
      if (c->s[m].y > g.y) {
        g.y = c->s[m].y;
        if (c->s[m].t0 == c->s[m].t1) /* a point: where its highest is */
          g.t0 = g.t1 = c->s[m].t0;
      }
      if (g.t0 != g.t1)
        g.t1 = c->s[m].t1;
    }
    c->s[out++] = g;
  }
  c->n = out;
}

/* ---- scales -------------------------------------------------------------- */

typedef struct {
  double unit; /* the display unit in the figure's own: 1, 1024, ... */
  const char *unit_name;
  double max;  /* the top of the axis, in display units */
  double step; /* between ticks, in display units */
} scale;

/* The smallest of 1, 2, 2.5, 5 x 10^k that is at least v (v > 0). */
static double nice(double v) {
  double p = pow(10, floor(log10(v)));
  static const double m[] = {1, 2, 2.5, 5, 10};
  for (size_t i = 0; i < 5; i++)
    if (m[i] * p >= v * (1 - 1e-12))
      return m[i] * p;
  return 10 * p;
}

static scale make_scale(panel_kind k, double top) {
  static const char *const bytes[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  static const char *const rates[] = {"B/s",   "KiB/s", "MiB/s",
                                      "GiB/s", "TiB/s", "PiB/s"};
  scale s = {1, k == P_CORES ? "cores busy" : "W", 1, 0.25};
  if (k == P_MEMORY || k == P_IO) {
    int u = 0;
    while (top >= 1024 * s.unit && u < 5) {
      s.unit *= 1024;
      u++;
    }
    s.unit_name = k == P_MEMORY ? bytes[u] : rates[u];
  }
  double v = top / s.unit;
  if (!(v > 0) || !isfinite(v))
    v = 1;
  if (v > 1e300)
    v = 1e300;
  s.step = nice(v / 4);
  s.max = s.step * ceil(v / s.step - 1e-9);
  if (!(s.max > 0) || !isfinite(s.max))
    s.max = s.step = 1;
  return s;
}

/* ---- text ---------------------------------------------------------------- */

/* The code point at s (len bytes left) and its length; U+FFFD for a
 * byte that does not start a valid UTF-8 sequence. */
static uint32_t next_char(const unsigned char *s, size_t len, size_t *used) {
  uint32_t cp;
  size_t n = jc_utf8_decode(s, len, &cp);
  *used = n ? n : 1;
  return n ? cp : JC_UTF8_REPLACEMENT;
}

/* What XML 1.0 allows in text; the rest, and line breaks, shown as
 * U+FFFD and a space. */
static uint32_t printable(uint32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r')
    return ' ';
  if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF)
    return JC_UTF8_REPLACEMENT;
  return cp;
}

/* Columns a character takes: wide scripts two. */
static size_t columns(uint32_t cp) { return cp >= 0x1100 ? 2 : 1; }

static void put_char(FILE *out, uint32_t cp) {
  switch (cp) {
  case '&': fputs("&amp;", out); return;
  case '<': fputs("&lt;", out); return;
  case '>': fputs("&gt;", out); return;
  case '"': fputs("&quot;", out); return;
  case '\'': fputs("&apos;", out); return;
  }
  static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
  unsigned char b[4];
  size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  for (size_t i = n - 1; i > 0; i--, cp >>= 6)
    b[i] = (unsigned char)(0x80 | (cp & 0x3F));
  b[0] = (unsigned char)(lead[n] | cp);
  fwrite(b, 1, n, out);
}

/* The columns of s as it would be written, at most max. */
static size_t text_columns(const char *s, size_t max) {
  size_t cols = 0, len = strlen(s), used;
  for (size_t i = 0; i < len && cols <= max; i += used)
    cols += columns(
        printable(next_char((const unsigned char *)s + i, len - i, &used)));
  return cols;
}

/* s escaped for XML in at most max columns, "…" ending a cut one. */
static void put_text(FILE *out, const char *s, size_t max) {
  size_t len = strlen(s), used, cols = 0;
  bool cut = text_columns(s, max) > max;
  for (size_t i = 0; i < len; i += used) {
    uint32_t cp =
        printable(next_char((const unsigned char *)s + i, len - i, &used));
    if (cut && cols + columns(cp) > max - 1)
      break;
    cols += columns(cp);
    put_char(out, cp);
  }
  if (cut)
    fputs("\u2026", out);
}

static double width_of(size_t cols, double size) { return cols * 0.62 * size; }

/* ---- layout -------------------------------------------------------------- */

typedef struct {
  double x, width; /* the text's box: x its left edge */
  size_t lane;
  bool full; /* the phase's name, else its number */
} label;

typedef struct {
  size_t phases; /* banded */
  size_t labels; /* labelled and listed */
  label lab[LABELS_MAX];
  size_t lanes;
  size_t key_rows;
  double top, height;
} layout;

static double clampd(double v, double lo, double hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

typedef struct {
  double tmax;
  scale sc[P_COUNT];
  bool shown[P_COUNT];
  bool have[P_COUNT]; /* some strip has a curve there */
} frame;

static double x_of(const frame *f, double t) {
  return ML + clampd(t / f->tmax, 0, 1) * PW;
}

static double phase_x(const frame *f, const jcli_outcome_phase *p,
                      double *ret_x1) {
  double t0 = isfinite(p->start) ? p->start : 0;
  double t1 = isfinite(p->wall) && p->wall > 0 ? t0 + p->wall : t0;
  *ret_x1 = x_of(f, t1);
  return x_of(f, t0);
}

static size_t number_cols(size_t i) {
  char b[24];
  return (size_t)snprintf(b, sizeof(b), "%zu", i + 1);
}

/* Each phase's label: its name where the band has room, else its
 * number; in the lowest lane where it overlaps no label already there. */
static void place_labels(const frame *f, const jcli_outcome *o, layout *l) {
  l->lanes = 0;
  for (size_t i = 0; i < l->labels; i++) {
    double x1, x0 = phase_x(f, &o->phase[i], &x1);
    size_t cols = text_columns(o->phase[i].name, 200);
    label *lb = &l->lab[i];
    lb->full = width_of(cols, FS) + 4 <= x1 - x0;
    lb->width = width_of(lb->full ? cols : number_cols(i), FS);
    lb->x = clampd((x0 + x1) / 2 - lb->width / 2, ML, ML + PW - lb->width);
    for (lb->lane = 0;; lb->lane++) {
      bool free_here = true;
      for (size_t k = 0; k < i && free_here; k++)
        free_here = l->lab[k].lane != lb->lane ||
                    l->lab[k].x + l->lab[k].width + 4 <= lb->x ||
                    lb->x + lb->width + 4 <= l->lab[k].x;
      if (free_here)
        break;
    }
    if (lb->lane + 1 > l->lanes)
      l->lanes = lb->lane + 1;
  }
}

static size_t shown_panels(const frame *f) {
  size_t n = 0;
  for (int k = 0; k < P_COUNT; k++)
    n += f->shown[k];
  return n;
}

/* Heights, top to bottom: the strip's title, the label lanes, each panel
 * (its title above it), the time axis, the key of the phases. */
#define STRIP_TITLE_H 22
#define PANEL_TITLE_H 16
#define PANEL_GAP 8
#define AXIS_H 32
#define STRIP_GAP 14

static double strip_height(const frame *f, const layout *l) {
  return STRIP_TITLE_H + (double)l->lanes * LANE_H + (l->lanes ? 4 : 0) +
         (double)shown_panels(f) * (PANEL_TITLE_H + PH + PANEL_GAP) + AXIS_H +
         (double)l->key_rows * KEY_ROW_H + STRIP_GAP;
}

/* ---- drawing ------------------------------------------------------------- */

static double y_of(const scale *s, double top, double v) {
  return top + PH - clampd(v / s->unit / s->max, 0, 1) * PH;
}

static void draw_curve(FILE *out, const frame *f, const curve *c, curve_kind k,
                       double top) {
  if (c->n == 0)
    return;
  const scale *s = &f->sc[curves[k].panel];
  fprintf(out,
          "<path class=\"curve\" data-curve=\"%s\" fill=\"none\" "
          "stroke=\"%s\" stroke-width=\"1.6\"%s d=\"",
          curves[k].legend, curves[k].color,
          curves[k].dashed ? " stroke-dasharray=\"5 3\"" : "");
  double last_x = NAN;
  for (size_t i = 0; i < c->n; i++) {
    const step *st = &c->s[i];
    double x0 = x_of(f, st->t0), x1 = x_of(f, st->t1);
    double y = y_of(s, top, st->y);
    /* points join the one before; a step joins where it began */
    bool joined = i > 0 && (st->t0 == st->t1 || fabs(x0 - last_x) < 0.05);
    fprintf(out, "%s%.1f %.1f", joined ? " L" : i ? " M" : "M", x0, y);
    if (st->t1 != st->t0)
      fprintf(out, " L%.1f %.1f", x1, y);
    last_x = x1;
  }
  fputs("\"/>\n", out);
}

static void tick_text(char *buf, size_t size, double v) {
  snprintf(buf, size, "%.4g", fabs(v) < 1e-9 ? 0 : v);
}

/* have: the strip has a curve in the panel; the frame says whether some
 * strip has (then this run lacked it, else the host). */
static void draw_panel_frame(FILE *out, const frame *f, panel_kind k,
                             double top, bool have) {
  const scale *s = &f->sc[k];
  fprintf(out,
          "<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\">%s (%s)</text>\n", ML,
          top - 4, panels[k].title, s->unit_name);
  fprintf(out,
          "<rect class=\"plot-area\" data-panel=\"%s\" data-t0=\"0\" "
          "data-t1=\"%.6f\" data-max=\"%.6g\" x=\"%d\" y=\"%.1f\" "
          "width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888888\"/>\n",
          k == P_CORES    ? "cores"
          : k == P_MEMORY ? "memory"
          : k == P_IO     ? "io"
                          : "power",
          f->tmax, s->max * s->unit, ML, top, PW, PH);
  for (int i = 0; i * s->step <= s->max * (1 + 1e-9) && i <= 10; i++) {
    double v = i * s->step, y = top + PH - v / s->max * PH;
    char t[32];
    tick_text(t, sizeof(t), v);
    fprintf(out,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
            "stroke=\"#d8d8d8\"/>\n"
            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            ML, y, ML + PW, y, ML - 6, y + 4, t);
  }
  if (!have)
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
            "fill=\"#777777\">%s %s</text>\n",
            ML + PW / 2.0, top + PH / 2.0, panels[k].empty,
            f->have[k] ? "in this run" : "on this host");
}

static void draw_time_grid(FILE *out, const frame *f, double top, double bottom,
                           bool labels) {
  double every = nice(f->tmax / 8);
  for (int i = 0; i * every <= f->tmax * (1 + 1e-9) && i <= 20; i++) {
    double x = x_of(f, i * every);
    fprintf(out,
            "<line class=\"time-grid\" x1=\"%.1f\" y1=\"%.1f\" "
            "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
            x, top, x, bottom);
    if (labels) {
      char t[32];
      tick_text(t, sizeof(t), i * every);
      fprintf(out,
              "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s"
              "</text>\n",
              x, bottom + 13, t);
    }
  }
  if (labels)
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
            "time since START (s)</text>\n",
            ML + PW / 2.0, bottom + 27);
}

static void draw_legend(FILE *out, const strip_data *d, panel_kind k,
                        double top) {
  double y = top + 10;
  for (int c = 0; c < C_COUNT; c++) {
    if (curves[c].panel != k || d->c[c].n == 0)
      continue;
    double x = ML + PW + 12;
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\" stroke-width=\"2\"%s/>\n"
            "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
            x, y - 4, x + 18, y - 4, curves[c].color,
            curves[c].dashed ? " stroke-dasharray=\"5 3\"" : "", x + 24, y,
            curves[c].legend);
    y += 15;
  }
}

static const char *const tints[] = {"#e3ecf9", "#f9eedf"};

static void draw_bands(FILE *out, const frame *f, const jcli_outcome *o,
                       const layout *l, double top, double bottom) {
  for (size_t i = 0; i < l->phases; i++) {
    double x1, x0 = phase_x(f, &o->phase[i], &x1);
    fprintf(out, "<rect class=\"phase\" data-index=\"%zu\" data-name=\"",
            i + 1);
    put_text(out, o->phase[i].name, 400);
    fprintf(out,
            "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"%s\"/>\n",
            x0, top, fmax(x1 - x0, 0.6), bottom - top, tints[i % 2]);
  }
}

static void draw_labels(FILE *out, const jcli_outcome *o, const layout *l,
                        double lanes_top) {
  for (size_t i = 0; i < l->labels; i++) {
    const label *lb = &l->lab[i];
    double y = lanes_top + (double)(l->lanes - 1 - lb->lane) * LANE_H + 12;
    fprintf(out,
            "<text class=\"phase-label\" data-index=\"%zu\" x=\"%.1f\" "
            "y=\"%.1f\" data-width=\"%.1f\">",
            i + 1, lb->x, y, lb->width);
    if (lb->full)
      put_text(out, o->phase[i].name, 200);
    else
      fprintf(out, "%zu", i + 1);
    fputs("</text>\n", out);
  }
}

/* A phase's time in the key: to the hundredth of a second, in powers of
 * ten where that would be long (a report read back may say 1e89 s, whose
 * digits would overflow the key's text and cut it inside the dash). */
static void key_time(char *buf, size_t size, double t) {
  if (!isfinite(t))
    t = 0;
  snprintf(buf, size, fabs(t) < 1e9 ? "%.2f" : "%.3g", t);
}

/* "N name a–b s" per phase, in columns across the picture; a name cut
 * (…) only where its column has no room for it. */
static void draw_key(FILE *out, const jcli_outcome *o, const layout *l,
                     double top) {
  double col_w = (WIDTH - 20) / (double)KEY_COLS;
  size_t cols = (size_t)((col_w - 8) / CHAR_W);
  for (size_t i = 0; i < l->labels; i++) {
    const jcli_outcome_phase *p = &o->phase[i];
    char number[24], from[32], to[32], times[96];
    snprintf(number, sizeof(number), "%zu ", i + 1);
    key_time(from, sizeof(from), p->start);
    key_time(to, sizeof(to), p->start + p->wall);
    snprintf(times, sizeof(times), " %s\u2013%s s", from, to);
    size_t used = strlen(number) + text_columns(times, sizeof(times));
    fprintf(out, "<text class=\"phase-key\" x=\"%.1f\" y=\"%.1f\">%s",
            10 + (double)(i % KEY_COLS) * col_w,
            top + (double)(i / KEY_COLS) * KEY_ROW_H + 11, number);
    put_text(out, p->name, cols > used + 4 ? cols - used : 4);
    fprintf(out, "%s</text>\n", times);
  }
}

static void draw_strip(FILE *out, const frame *f, const jcli_plot_strip *s,
                       const strip_data *d, layout *l) {
  double y = l->top;
  fprintf(out,
          "<g class=\"strip\">\n<text x=\"10\" y=\"%.1f\" "
          "font-weight=\"bold\" font-size=\"12\">",
          y + 14);
  put_text(out, s->title ? s->title : "", (size_t)((WIDTH - 20) / (0.62 * 12)));
  fputs("</text>\n", out);
  y += STRIP_TITLE_H;
  double lanes_top = y;
  y += (double)l->lanes * LANE_H + (l->lanes ? 4 : 0);
  draw_labels(out, s->run, l, lanes_top);
  size_t drawn = 0;
  for (int k = 0; k < P_COUNT; k++) {
    if (!f->shown[k])
      continue;
    double top = y + PANEL_TITLE_H;
    draw_bands(out, f, s->run, l, top, top + PH); /* under the rest */
    bool have = false;
    for (int c = 0; c < C_COUNT; c++)
      have = have || (curves[c].panel == (panel_kind)k && d->c[c].n > 0);
    draw_panel_frame(out, f, (panel_kind)k, top, have);
    draw_time_grid(out, f, top, top + PH, ++drawn == shown_panels(f));
    for (int c = 0; c < C_COUNT; c++)
      if (curves[c].panel == (panel_kind)k)
        draw_curve(out, f, &d->c[c], (curve_kind)c, top);
    draw_legend(out, d, (panel_kind)k, top);
    y = top + PH + PANEL_GAP;
  }
  draw_key(out, s->run, l, y - PANEL_GAP + AXIS_H);
  fputs("</g>\n", out);
}

/* ---- the picture --------------------------------------------------------- */

static void make_frame(const strip_data *d, size_t n, frame *f) {
  double top[P_COUNT] = {0};
  memset(f, 0, sizeof(*f));
  for (size_t i = 0; i < n; i++) {
    if (d[i].n > 0)
      f->tmax = fmax(f->tmax, d[i].p[d[i].n - 1].t);
    for (int c = 0; c < C_COUNT; c++)
      for (size_t k = 0; k < d[i].c[c].n; k++) {
        f->have[curves[c].panel] = true;
        top[curves[c].panel] = fmax(top[curves[c].panel], d[i].c[c].s[k].y);
      }
  }
  if (!(f->tmax > 0) || f->tmax > 1e12)
    f->tmax = f->tmax > 1e12 ? 1e12 : 1;
  for (int k = 0; k < P_COUNT; k++) {
    f->sc[k] = make_scale((panel_kind)k, top[k]);
    f->shown[k] = k != P_POWER || f->have[P_POWER];
  }
}

int jcli_plot_svg(const jcli_plot_strip *strips, size_t n, const char *title,
                  FILE *out) {
  strip_data *d = calloc(n ? n : 1, sizeof(*d));
  layout *l = calloc(n ? n : 1, sizeof(*l));
  int r = d && l ? 0 : -ENOMEM;
  bool drawable = false;
  for (size_t i = 0; r == 0 && i < n; i++) {
    r = strip_make(strips[i].run, &d[i]);
    drawable = drawable || d[i].n >= 2;
  }
  if (r == 0 && !drawable)
    r = -EINVAL;
  if (r < 0)
    goto out;
  frame f;
  make_frame(d, n, &f);
  double height = 40;
  for (size_t i = 0; i < n; i++) {
    for (int c = 0; c < C_COUNT; c++)
      thin(&d[i].c[c]);
    const jcli_outcome *o = strips[i].run;
    l[i].phases = o->phase_count < PHASES_MAX ? o->phase_count : PHASES_MAX;
    l[i].labels = o->phase_count < LABELS_MAX ? o->phase_count : LABELS_MAX;
    l[i].key_rows = (l[i].labels + KEY_COLS - 1) / KEY_COLS;
    place_labels(&f, o, &l[i]);
    l[i].top = height;
    l[i].height = strip_height(&f, &l[i]);
    height += l[i].height;
  }
  height += 10;
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
          "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"%s\" "
          "font-size=\"%d\">\n"
          "<rect width=\"%d\" height=\"%.0f\" fill=\"white\"/>\n"
          "<text x=\"10\" y=\"26\" font-weight=\"bold\" "
          "font-size=\"14\">",
          WIDTH, height, WIDTH, height, FONT, FS, WIDTH, height);
  put_text(out, title ? title : "", (size_t)((WIDTH - 20) / (0.62 * 14)));
  fputs("</text>\n", out);
  for (size_t i = 0; i < n; i++)
    draw_strip(out, &f, &strips[i], &d[i], &l[i]);
  fputs("</svg>\n", out);
out:
  for (size_t i = 0; d && i < n; i++)
    strip_release(&d[i]);
  free(d);
  free(l);
  return r;
}

int jcli_plot_file(const char *path, const jcli_plot_strip *strips, size_t n,
                   const char *title) {
  FILE *out = fopen(path, "we");
  if (!out)
    return -errno;
  int r = jcli_plot_svg(strips, n, title, out);
  if (ferror(out) && r == 0)
    r = -EIO;
  if (fclose(out) != 0 && r == 0)
    r = -errno;
  return r;
}

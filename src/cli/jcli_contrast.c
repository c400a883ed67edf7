/*
 * jcli_contrast — see jcli_contrast.h.
 */
#include "jcli_contrast.h"

#include "jcli_cmdline.h"
#include "jcli_grow.h"
#include "jcli_series.h"
#include "jcli_write.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- values and summaries ---------------------------------------------- */

/* The summary of figure f over c's runs that have it; false when none. */
static bool summary_of(const jcli_contender *c, const char *phase, jcli_fig f,
                       jcli_stats_summary *ret, double **ret_values) {
  double *v = malloc((c->count ? c->count : 1) * sizeof(*v));
  if (!v)
    return false;
  size_t n = 0;
  for (size_t i = 0; i < c->count; i++)
    if (jcli_outcome_figure(&c->run[i], phase, f, &v[n]))
      n++;
  bool have = n > 0;
  if (have && ret_values) { /* in run order, before the summary sorts */
    *ret_values = malloc(n * sizeof(double));
    if (*ret_values)
      memcpy(*ret_values, v, n * sizeof(double));
  }
  have = have && jcli_stats_summarize(v, n, ret) == 0;
  free(v);
  return have;
}

bool jcli_contrast_ratio(const jcli_contender *a, const jcli_contender *b,
                         const char *phase, jcli_fig f, double level,
                         jcli_stats_ratio *ret) {
  jcli_stats_summary sa, sb;
  return summary_of(a, phase, f, &sa, NULL) &&
         summary_of(b, phase, f, &sb, NULL) &&
         jcli_stats_compare(&sa, &sb, level, ret) == 0;
}

/* ---- phase names ------------------------------------------------------- */

typedef struct {
  const char **name;
  size_t count;
  bool on; /* some run was made with --phases */
} names;

/* Every phase name of every run, in the order first seen. */
static names phase_names(const jcli_contender *c, size_t n) {
  names ns = {NULL, 0, false};
  size_t cap = 0;
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; i < c[k].count; i++) {
      const jcli_outcome *o = &c[k].run[i];
      ns.on = ns.on || o->phases_on;
      for (size_t p = 0; p < o->phase_count; p++) {
        size_t seen = 0;
        while (seen < ns.count && strcmp(ns.name[seen], o->phase[p].name))
          seen++;
        if (seen < ns.count)
          continue;
        const char **grown = jcli_grow(ns.name, ns.count, &cap, sizeof(char *));
        if (!grown)
          return ns; /* out of memory: the phases seen so far */
        ns.name = grown;
        ns.name[ns.count++] = o->phase[p].name;
      }
    }
  return ns;
}

static bool has_phase(const jcli_contender *c, const char *phase) {
  double v;
  for (size_t i = 0; i < c->count; i++)
    if (jcli_outcome_figure(&c->run[i], phase, JCLI_FIG_WALL, &v))
      return true;
  return false;
}

/* ---- JSON ---------------------------------------------------------------- */

static double rounded(double v) { return round(v * 1e6) / 1e6; }

/* A figure for people: six decimals at most, whole from 1000 up. */
static double shown(double v) { return fabs(v) >= 1e3 ? round(v) : rounded(v); }

static void key_number(jcli_json *j, const char *key, bool have, double v) {
  jcli_json_key(j, key);
  if (have && isfinite(v))
    jcli_json_double(j, shown(v));
  else
    jcli_json_null(j);
}

static void json_summary(jcli_json *j, const jcli_stats_summary *s,
                         const double *values) {
  jcli_json_map_open(j);
  jcli_json_key(j, "n");
  jcli_json_int(j, (long long)s->n);
  key_number(j, "mean", true, s->mean);
  key_number(j, "median", true, s->median);
  key_number(j, "sd", true, s->sd);
  key_number(j, "min", true, s->min);
  key_number(j, "max", true, s->max);
  key_number(j, "cv", true, s->cv);
  jcli_json_key(j, "values");
  jcli_json_array_open(j);
  for (size_t i = 0; values && i < s->n; i++)
    jcli_json_double(j, rounded(values[i]));
  jcli_json_array_close(j);
  jcli_json_map_close(j);
}

static void json_figures(jcli_json *j, const jcli_contender *c,
                         const char *phase) {
  jcli_json_key(j, "figures");
  jcli_json_map_open(j);
  for (int f = 0; f < JCLI_FIG_COUNT; f++) {
    jcli_stats_summary s;
    double *values = NULL;
    jcli_json_key(j, jcli_figs[f].key);
    if (summary_of(c, phase, (jcli_fig)f, &s, &values))
      json_summary(j, &s, values);
    else
      jcli_json_null(j);
    free(values);
  }
  jcli_json_map_close(j);
}

static void json_ratio(jcli_json *j, const jcli_stats_ratio *q) {
  jcli_json_map_open(j);
  key_number(j, "ratio", true, q->ratio);
  key_number(j, "low", q->bounded, q->low);
  key_number(j, "high", q->bounded, q->high);
  key_number(j, "p_value", q->have_interval, q->p_value);
  jcli_json_key(j, "significant");
  if (q->have_interval)
    jcli_json_bool(j, q->significant);
  else
    jcli_json_null(j);
  key_number(j, "df", q->have_interval && isfinite(q->df), q->df);
  jcli_json_map_close(j);
}

static void json_ratios(jcli_json *j, double level, const jcli_contender *a,
                        const jcli_contender *b, const char *phase) {
  jcli_json_key(j, "figures");
  jcli_json_map_open(j);
  for (int f = 0; f < JCLI_FIG_COUNT; f++) {
    jcli_stats_ratio q;
    jcli_json_key(j, jcli_figs[f].key);
    if (jcli_contrast_ratio(a, b, phase, (jcli_fig)f, level, &q))
      json_ratio(j, &q);
    else
      jcli_json_null(j);
  }
  jcli_json_map_close(j);
}

/* "phases": per phase name, a's figures, or (b not NULL) b's ratios to
 * a's; null without --phases. */
static void json_phases(jcli_json *j, double level, const names *ns,
                        const jcli_contender *a, const jcli_contender *b) {
  jcli_json_key(j, "phases");
  if (!ns->on) {
    jcli_json_null(j);
    return;
  }
  jcli_json_array_open(j);
  for (size_t p = 0; p < ns->count; p++) {
    jcli_json_map_open(j);
    jcli_json_key(j, "name");
    jcli_json_string(j, ns->name[p]);
    if (b)
      json_ratios(j, level, a, b, ns->name[p]);
    else
      json_figures(j, a, ns->name[p]);
    jcli_json_map_close(j);
  }
  jcli_json_array_close(j);
}

static void json_command(jcli_json *j, const jcli_contender *c) {
  jcli_json_key(j, "command");
  if (!c->command) {
    jcli_json_null(j);
    return;
  }
  jcli_json_array_open(j);
  for (char *const *a = c->command; *a; a++)
    jcli_json_string(j, *a);
  jcli_json_array_close(j);
}

static void json_series(jcli_json *j, const jcli_contender *c) {
  jcli_json_key(j, "series");
  jcli_json_array_open(j);
  for (size_t i = 0; i < c->count; i++)
    jcli_series_json(c->run[i].point, c->run[i].point_count, j);
  jcli_json_array_close(j);
}

static void json_contender(jcli_json *j, const jcli_contrast_info *info,
                           const jcli_contender *c, const names *ns) {
  jcli_json_map_open(j);
  jcli_json_key(j, "label");
  jcli_json_string(j, c->label);
  json_command(j, c);
  jcli_json_key(j, "report");
  if (c->report)
    jcli_json_string(j, c->report);
  else
    jcli_json_null(j);
  jcli_json_key(j, "runs");
  jcli_json_int(j, (long long)c->count);
  jcli_json_key(j, "exit_statuses");
  jcli_json_array_open(j);
  for (size_t i = 0; i < c->count; i++)
    jcli_json_int(j, c->run[i].exit_status);
  jcli_json_array_close(j);
  json_figures(j, c, NULL);
  json_phases(j, info->level, ns, c, NULL);
  if (info->samples)
    json_series(j, c);
  jcli_json_map_close(j);
}

static void json_pair(jcli_json *j, const jcli_contrast_info *info,
                      const jcli_contender *a, const jcli_contender *b,
                      const names *ns) {
  jcli_json_map_open(j);
  jcli_json_key(j, "label");
  jcli_json_string(j, b->label);
  jcli_json_key(j, "against");
  jcli_json_string(j, a->label);
  json_ratios(j, info->level, a, b, NULL);
  json_phases(j, info->level, ns, a, b);
  jcli_json_map_close(j);
}

static void json_notes(jcli_json *j, const jcli_contender *c, size_t n,
                       const names *ns) {
  char note[1024];
  jcli_json_key(j, "notes");
  jcli_json_array_open(j);
  for (size_t k = 0; k < n; k++) {
    size_t failed = 0;
    for (size_t i = 0; i < c[k].count; i++)
      failed += c[k].run[i].exit_status != 0;
    if (failed) {
      snprintf(note, sizeof(note),
               "%s: %zu of its %zu runs exited with a status other than 0",
               c[k].label, failed, c[k].count);
      jcli_json_string(j, note);
    }
    for (size_t p = 0; p < ns->count; p++)
      if (!has_phase(&c[k], ns->name[p])) {
        snprintf(note, sizeof(note),
                 "%s has no phase \"%s\": its runs printed other markers",
                 c[k].label, ns->name[p]);
        jcli_json_string(j, note);
      }
  }
  jcli_json_array_close(j);
}

void jcli_contrast_json(const jcli_contrast_info *info, const jcli_contender *c,
                        size_t n, jcli_json *j) {
  names ns = phase_names(c, n);
  jcli_json_map_open(j);
  jcli_json_key(j, "iterations");
  if (info->iterations)
    jcli_json_int(j, info->iterations);
  else
    jcli_json_null(j);
  jcli_json_key(j, "warmup");
  jcli_json_int(j, info->warmup);
  jcli_json_key(j, "order");
  jcli_json_string(j, info->iterations ? "interleaved" : "reports");
  key_number(j, "confidence", true, info->level);
  jcli_json_key(j, "interval");
  jcli_json_string(j, "fieller-welch");
  jcli_json_key(j, "commands");
  jcli_json_array_open(j);
  for (size_t k = 0; k < n; k++)
    json_contender(j, info, &c[k], &ns);
  jcli_json_array_close(j);
  jcli_json_key(j, "ratios");
  jcli_json_array_open(j);
  for (size_t k = 1; k < n; k++)
    json_pair(j, info, &c[0], &c[k], &ns);
  jcli_json_array_close(j);
  if (info->budget)
    jcli_budget_json(info->budget, j);
  json_notes(j, c, n, &ns);
  jcli_json_map_close(j);
  free(ns.name);
}

/* ---- CSV ----------------------------------------------------------------- */

static void csv_text(FILE *out, const char *s) {
  if (!s[strcspn(s, ",\"\r\n")]) {
    fputs(s, out);
    return;
  }
  fputc('"', out); /* RFC 4180: quoted, quotes doubled */
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void csv_number(FILE *out, bool have, double v) {
  fputc(',', out);
  if (have && isfinite(v))
    fprintf(out, "%.15g", shown(v));
}

static void csv_rows(FILE *out, double level, const jcli_contender *a,
                     const jcli_contender *c, const char *phase) {
  for (int f = 0; f < JCLI_FIG_COUNT; f++) {
    jcli_stats_summary s;
    if (!summary_of(c, phase, (jcli_fig)f, &s, NULL))
      continue;
    jcli_stats_ratio q;
    bool ratio =
        c != a && jcli_contrast_ratio(a, c, phase, (jcli_fig)f, level, &q);
    csv_text(out, c->label);
    fputc(',', out);
    csv_text(out, c != a ? a->label : "");
    fputc(',', out);
    csv_text(out, phase ? phase : "START -> END");
    fprintf(out, ",%s,%zu", jcli_figs[f].key, s.n);
    csv_number(out, true, s.mean);
    csv_number(out, true, s.median);
    csv_number(out, true, s.sd);
    csv_number(out, true, s.min);
    csv_number(out, true, s.max);
    csv_number(out, true, s.cv);
    csv_number(out, ratio, q.ratio);
    csv_number(out, ratio && q.bounded, q.low);
    csv_number(out, ratio && q.bounded, q.high);
    csv_number(out, ratio && q.have_interval, q.p_value);
    fprintf(out, ",%s\n",
            !ratio || !q.have_interval ? ""
            : q.significant            ? "true"
                                       : "false");
  }
}

int jcli_contrast_csv(const jcli_contrast_info *info, const jcli_contender *c,
                      size_t n, int fd) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  if (!out)
    return -errno;
  names ns = phase_names(c, n);
  fputs("label,against,phase,figure,n,mean,median,sd,min,max,cv,ratio,low,"
        "high,p_value,significant\n",
        out);
  for (size_t k = 0; k < n; k++) {
    csv_rows(out, info->level, &c[0], &c[k], NULL);
    for (size_t p = 0; p < ns.count; p++)
      csv_rows(out, info->level, &c[0], &c[k], ns.name[p]);
  }
  free(ns.name);
  return jcli_write_stream(out, &buf, &len, fd);
}

/* ---- for people ---------------------------------------------------------- */

/* The fewest decimals (2 to 4) that tell low from high. */
static int decimals(const jcli_stats_ratio *q) {
  for (int d = 2; d < 4; d++) {
    char a[32], b[32];
    snprintf(a, sizeof(a), "%.*f", d, q->low);
    snprintf(b, sizeof(b), "%.*f", d, q->high);
    if (strcmp(a, b) != 0 || q->low == q->high)
      return d;
  }
  return 4;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  if (len < 0)
    return;
  if ((size_t)len >= sizeof(line) - 1)
    len = sizeof(line) - 2;
  line[len++] = '\n';
  (void)jcli_write_all(STDERR_FILENO, line, (size_t)len);
}

static void say_ratio(const jcli_contender *a, const jcli_contender *b,
                      jcli_fig f, const jcli_stats_ratio *q) {
  const char *words = jcli_figs[f].words;
  if (!q->have_interval) {
    say("%s uses %.2f× the %s of %s (no interval: it needs 2 runs of each)",
        b->label, q->ratio, words, a->label);
    return;
  }
  if (!q->bounded) {
    say("%s uses %.2f× the %s of %s (interval unbounded: %s's %s cannot be "
        "told from 0)",
        b->label, q->ratio, words, a->label, a->label, words);
    return;
  }
  int d = decimals(q);
  char p[32];
  snprintf(p, sizeof(p), q->p_value < 0.001 ? "p < 0.001" : "p = %.3f",
           q->p_value);
  say("%s uses %.*f× (%.*f–%.*f) the %s of %s: %s (%s)", b->label, d, q->ratio,
      d, q->low, d, q->high, words, a->label,
      !q->significant ? "no significant difference"
      : q->ratio > 1  ? "significantly more"
                      : "significantly less",
      p);
}

static void say_command(const jcli_contender *c) {
  char text[512];
  jcli_cmdline_text(c->command, text, sizeof(text));
  say("%s: %s, %zu runs%s%s", c->label, c->command ? text : "(no command)",
      c->count, c->report ? " from " : "", c->report ? c->report : "");
}

void jcli_contrast_summary(const jcli_contrast_info *info,
                           const jcli_contender *c, size_t n) {
  for (size_t k = 0; k < n; k++)
    say_command(&c[k]);
  for (size_t k = 1; k < n; k++)
    for (int f = 0; f < JCLI_FIG_COUNT; f++) {
      jcli_stats_ratio q;
      if (jcli_contrast_ratio(&c[0], &c[k], NULL, (jcli_fig)f, info->level, &q))
        say_ratio(&c[0], &c[k], (jcli_fig)f, &q);
    }
}

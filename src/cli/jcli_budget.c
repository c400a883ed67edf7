/*
 * jcli_budget — see jcli_budget.h.
 */
#include "jcli_budget.h"

#include "jcli_profile.h"
#include "jcli_stats.h"
#include "jcli_stderr.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ----------------------------------------------------------- */

typedef struct {
  const char *suffix;
  double factor;
} unit;

static const unit time_units[] = {{"", 1},      {"s", 1},    {"ms", 1e-3},
                                  {"us", 1e-6}, {"min", 60}, {"h", 3600},
                                  {NULL, 0}};
/* K, M, G, T are 1024-based, as memory.max reads them. */
static const unit byte_units[] = {
    {"", 1},        {"B", 1},         {"K", 1024},    {"KiB", 1024},
    {"M", 1 << 20}, {"MiB", 1 << 20}, {"G", 1 << 30}, {"GiB", 1 << 30},
    {"T", 0x1p40},  {"TiB", 0x1p40},  {"kB", 1e3},    {"MB", 1e6},
    {"GB", 1e9},    {"TB", 1e12},     {NULL, 0}};
static const unit energy_units[] = {{"", 1},     {"J", 1},     {"mJ", 1e-3},
                                    {"kJ", 1e3}, {"Wh", 3600}, {"kWh", 3.6e6},
                                    {NULL, 0}};
static const unit ratio_units[] = {{"", 1}, {NULL, 0}};

static const unit *units_of(jcli_fig f, bool ratio) {
  if (ratio)
    return ratio_units;
  switch (f) {
  case JCLI_FIG_WALL:
  case JCLI_FIG_CPU: return time_units;
  case JCLI_FIG_ENERGY: return energy_units;
  default: return byte_units;
  }
}

static void unit_list(const unit *u, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (; u->suffix; u++)
    if (u->suffix[0])
      len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
                              len ? ", " : "", u->suffix);
}

static int parse_value(const char *name, jcli_fig f, bool ratio,
                       const char *text, double *ret, char *why, size_t size) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || errno || !isfinite(v) || v < 0 || (ratio && v <= 0)) {
    snprintf(why, size, "%s: \"%s\" is not %s", name, text,
             ratio ? "a ratio above 0 (1.05: 5 % more)"
                   : "a number, 0 or more");
    return -EINVAL;
  }
  for (const unit *u = units_of(f, ratio); u->suffix; u++)
    if (strcmp(end, u->suffix) == 0) {
      *ret = v * u->factor;
      return 0;
    }
  char list[128];
  unit_list(units_of(f, ratio), list, sizeof(list));
  if (ratio)
    snprintf(why, size,
             "%s: \"%s\": a ratio is a plain number (1.05: 5 %% more)", name,
             text);
  else
    snprintf(why, size, "%s: unknown unit \"%s\" (use %s)", name, end, list);
  return -EINVAL;
}

static int parse_item(const char *item, bool ratio, jcli_budget *b, char *why,
                      size_t size) {
  const char *eq = strchr(item, '=');
  size_t len = eq ? (size_t)(eq - item) : strlen(item);
  for (int f = 0; f < JCLI_FIG_COUNT; f++) {
    const char *name = jcli_figs[f].name;
    if (strlen(name) != len || strncmp(item, name, len) != 0)
      continue;
    if (!eq) {
      snprintf(why, size, "%s: no value (%s=...)", name, name);
      return -EINVAL;
    }
    if (b->set[f]) {
      snprintf(why, size, "%s is given twice", name);
      return -EINVAL;
    }
    b->set[f] = true;
    return parse_value(name, (jcli_fig)f, ratio, eq + 1, &b->limit[f], why,
                       size);
  }
  snprintf(why, size, "unknown figure \"%.*s\" (wall, cpu, memory, io, energy)",
           (int)len, item);
  return -EINVAL;
}

int jcli_budget_parse(const char *spec, bool ratio, jcli_budget *ret, char *why,
                      size_t size) {
  *ret = (jcli_budget){.ratio = ratio};
  char buf[1024];
  if (strlen(spec) >= sizeof(buf)) {
    snprintf(why, size, "too long");
    return -EINVAL;
  }
  snprintf(buf, sizeof(buf), "%s", spec);
  char *save = NULL;
  size_t items = 0;
  for (char *item = strtok_r(buf, ",", &save); item;
       item = strtok_r(NULL, ",", &save), items++)
    if (parse_item(item, ratio, ret, why, size) < 0)
      return -EINVAL;
  if (items == 0) {
    snprintf(why, size, "no figure (e.g. cpu=%s)", ratio ? "1.05" : "2.5s");
    return -EINVAL;
  }
  return 0;
}

/* ---- checking ---------------------------------------------------------- */

void jcli_budget_check_init(jcli_budget_check *c, bool ratio) {
  c->ratio = ratio;
  c->count = c->breaches = 0;
}

static jcli_budget_item *add_item(jcli_budget_check *c) {
  if (c->count == JCLI_BUDGET_ITEMS)
    return NULL;
  jcli_budget_item *it = &c->item[c->count++];
  memset(it, 0, sizeof(*it));
  return it;
}

static void judge(jcli_budget_check *c, jcli_budget_item *it) {
  if (!it->measured || it->over)
    c->breaches++;
}

void jcli_budget_check_runs(const jcli_budget *b, const jcli_outcome *runs,
                            size_t count, jcli_budget_check *ret) {
  jcli_budget_check_init(ret, false);
  for (int f = 0; f < JCLI_FIG_COUNT; f++) {
    if (!b->set[f])
      continue;
    double values[64], *v = count <= 64 ? values : malloc(count * sizeof(*v));
    jcli_budget_item *it = add_item(ret);
    if (!v || !it) {
      if (v != values)
        free(v);
      continue;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
      if (runs[i].fig.have[f])
        v[n++] = runs[i].fig.v[f];
    jcli_stats_summary s;
    it->fig = (jcli_fig)f;
    it->limit = b->limit[f];
    it->runs = count;
    /* every run must have the figure: a median of some is no median */
    it->measured = n == count && jcli_stats_summarize(v, n, &s) == 0;
    it->value = it->measured ? s.median : 0;
    it->over = it->measured && it->value > it->limit;
    judge(ret, it);
    if (v != values)
      free(v);
  }
}

void jcli_budget_check_ratio(const jcli_budget *b, const char *label,
                             const char *against, jcli_fig f,
                             const jcli_stats_ratio *q, size_t runs,
                             jcli_budget_check *c) {
  if (!b->set[f])
    return;
  jcli_budget_item *it = add_item(c);
  if (!it)
    return;
  it->fig = f;
  snprintf(it->label, sizeof(it->label), "%s", label);
  snprintf(it->against, sizeof(it->against), "%s", against);
  it->limit = b->limit[f];
  it->runs = runs;
  it->measured = q != NULL && q->have_interval;
  if (it->measured) {
    it->value = q->ratio;
    it->low = q->low;
    it->high = q->high;
    /* an unbounded interval is no evidence of anything: not over */
    it->over = q->bounded && q->low > it->limit;
  }
  judge(c, it);
}

int jcli_budget_exit_status(int command_status, bool drawn,
                            const jcli_budget_check *c) {
  if (command_status != 0)
    return command_status;
  if (!drawn)
    return JCLI_EXIT_RUN_FAILED;
  return c && c->breaches ? JCLI_EXIT_OVER_BUDGET : 0;
}

/* ---- telling ------------------------------------------------------------ */

void jcli_budget_format(jcli_fig f, double v, char *buf, size_t size) {
  static const char *const binary[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (f == JCLI_FIG_MEMORY || f == JCLI_FIG_IO) {
    int k = 0;
    double x = v;
    while (fabs(x) >= 1024 && k < 4) {
      x /= 1024;
      k++;
    }
    snprintf(buf, size, k ? "%.1f %s" : "%.0f %s", x, binary[k]);
    return;
  }
  snprintf(buf, size, fabs(v) >= 1000 ? "%.0f %s" : "%.3g %s", v,
           jcli_figs[f].unit);
}

static void print_item(const jcli_budget_item *it) {
  const char *name = jcli_figs[it->fig].name;
  char value[32], limit[32], by[32];
  if (it->label[0]) { /* a ratio */
    if (!it->measured)
      jcli_error("over budget: %s: %s against %s has no interval (it needs 2 "
                 "runs of each and the figure on this host), so it is not "
                 "within %g",
                 name, it->label, it->against, it->limit);
    else
      jcli_error("over budget: %s: %s uses %.3f× (%.3f–%.3f) the %s of %s, "
                 "all of it above the %g allowed",
                 name, it->label, it->value, it->low, it->high,
                 jcli_figs[it->fig].words, it->against, it->limit);
    return;
  }
  jcli_budget_format(it->fig, it->limit, limit, sizeof(limit));
  if (!it->measured) {
    jcli_error("over budget: %s: not measured on this host, so not within %s",
               name, limit);
    return;
  }
  jcli_budget_format(it->fig, it->value, value, sizeof(value));
  jcli_budget_format(it->fig, it->value - it->limit, by, sizeof(by));
  char what[48] = "";
  if (it->runs > 1)
    snprintf(what, sizeof(what), " (median of %zu runs)", it->runs);
  jcli_error("over budget: %s %s%s > %s, by %s (+%.1f %%)", name, value, what,
             limit, by,
             it->limit > 0 ? 100 * (it->value / it->limit - 1) : INFINITY);
}

void jcli_budget_print(const jcli_budget_check *c) {
  for (size_t i = 0; i < c->count; i++)
    if (!c->item[i].measured || c->item[i].over)
      print_item(&c->item[i]);
}

static void key_number(jcli_json *j, const char *key, bool have, double v) {
  jcli_json_key(j, key);
  if (have)
    jcli_json_double(j, round(v * 1e6) / 1e6);
  else
    jcli_json_null(j);
}

void jcli_budget_json(const jcli_budget_check *c, jcli_json *j) {
  jcli_json_key(j, "budget");
  jcli_json_map_open(j);
  jcli_json_key(j, "over");
  jcli_json_bool(j, c->breaches > 0);
  jcli_json_key(j, "checks");
  jcli_json_array_open(j);
  for (size_t i = 0; i < c->count; i++) {
    const jcli_budget_item *it = &c->item[i];
    jcli_json_map_open(j);
    jcli_json_key(j, "figure");
    jcli_json_string(j, jcli_figs[it->fig].key);
    if (c->ratio) {
      jcli_json_key(j, "command");
      jcli_json_string(j, it->label);
      jcli_json_key(j, "against");
      jcli_json_string(j, it->against);
      key_number(j, "max_ratio", true, it->limit);
      key_number(j, "ratio", it->measured, it->value);
      key_number(j, "low", it->measured && isfinite(it->low), it->low);
      key_number(j, "high", it->measured && isfinite(it->high), it->high);
    } else {
      key_number(j, "max", true, it->limit);
      key_number(j, "value", it->measured, it->value);
      jcli_json_key(j, "runs");
      jcli_json_int(j, (long long)it->runs);
    }
    jcli_json_key(j, "over");
    jcli_json_bool(j, !it->measured || it->over);
    jcli_json_map_close(j);
  }
  jcli_json_array_close(j);
  jcli_json_map_close(j);
}

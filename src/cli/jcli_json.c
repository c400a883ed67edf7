/*
 * jcli_json — see jcli_json.h.
 */
#include "jcli_json.h"

#include "jc_utf8.h"
#include "jcli_write.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

struct jcli_json {
  yajl_gen gen;
  char *buf; /* what yajl printed; ours, so that we add the newline */
  size_t len, cap;
  int depth;   /* open maps and arrays */
  bool failed; /* out of memory or a generator error: never written */
};

/* yajl's print callback: appends to our buffer. */
static void append(void *ctx, const char *text, size_t len) {
  jcli_json *j = ctx;
  if (j->failed)
    return;
  if (j->len + len + 1 > j->cap) {
    size_t cap = j->cap ? j->cap : 4096;
    while (cap < j->len + len + 1)
      cap *= 2;
    char *grown = realloc(j->buf, cap);
    if (!grown) {
      j->failed = true;
      return;
    }
    j->buf = grown;
    j->cap = cap;
  }
  memcpy(j->buf + j->len, text, len);
  j->len += len;
}

jcli_json *jcli_json_new(bool pretty) {
  jcli_json *j = calloc(1, sizeof(*j));
  if (!j)
    return NULL;
  j->gen = yajl_gen_alloc(NULL);
  if (!j->gen) {
    free(j);
    return NULL;
  }
  yajl_gen_config(j->gen, yajl_gen_print_callback, append, j);
  if (pretty) {
    yajl_gen_config(j->gen, yajl_gen_beautify, 1);
    yajl_gen_config(j->gen, yajl_gen_indent_string, "  ");
  }
  return j;
}

void jcli_json_free(jcli_json *j) {
  if (!j)
    return;
  yajl_gen_free(j->gen);
  free(j->buf);
  free(j);
}

static void check(jcli_json *j, yajl_gen_status s) {
  if (s != yajl_gen_status_ok)
    j->failed = true;
}

void jcli_json_map_open(jcli_json *j) {
  j->depth++;
  check(j, yajl_gen_map_open(j->gen));
}
void jcli_json_map_close(jcli_json *j) {
  j->depth--;
  check(j, yajl_gen_map_close(j->gen));
}
void jcli_json_array_open(jcli_json *j) {
  j->depth++;
  check(j, yajl_gen_array_open(j->gen));
}
void jcli_json_array_close(jcli_json *j) {
  j->depth--;
  check(j, yajl_gen_array_close(j->gen));
}

/* s with U+FFFD for every byte that does not start a valid sequence;
 * NULL when s is valid as it is (or when out of memory: *failed). */
static char *utf8_repaired(const char *s, size_t len, size_t *ret_len,
                           bool *failed) {
  if (jc_utf8_valid(s, len))
    return NULL;
  char *out = malloc(3 * len + 1);
  if (!out) {
    *failed = true;
    return NULL;
  }
  const unsigned char *u = (const unsigned char *)s;
  size_t o = 0;
  for (size_t i = 0, n; i < len;) {
    n = jc_utf8_decode(u + i, len - i, NULL);
    if (n) {
      memcpy(out + o, s + i, n);
      o += n;
      i += n;
    } else {
      memcpy(out + o, "\xef\xbf\xbd", 3); /* JC_UTF8_REPLACEMENT */
      o += 3;
      i++;
    }
  }
  *ret_len = o;
  return out;
}

void jcli_json_string(jcli_json *j, const char *s) {
  size_t len = strlen(s), fixed_len = 0;
  char *fixed = utf8_repaired(s, len, &fixed_len, &j->failed);
  if (fixed)
    check(j, yajl_gen_string(j->gen, (const unsigned char *)fixed, fixed_len));
  else
    check(j, yajl_gen_string(j->gen, (const unsigned char *)s, len));
  free(fixed);
}

void jcli_json_key(jcli_json *j, const char *key) { jcli_json_string(j, key); }

void jcli_json_int(jcli_json *j, long long v) {
  check(j, yajl_gen_integer(j->gen, v));
}

void jcli_json_double(jcli_json *j, double v) {
  if (!isfinite(v)) {
    jcli_json_null(j);
    return;
  }
  /* yajl_gen_double prints %.20g ("0.10000000000000000555"): take the
   * fewest digits that read back as the same double.  From 15 (DBL_DIG)
   * on: a shorter form that does reads back from 15, its zeros dropped by
   * %g; 17 always do.  A subnormal has fewer digits of its own. */
  char text[40];
  for (int digits = fabs(v) < DBL_MIN ? 1 : DBL_DIG; digits <= 17; digits++) {
    snprintf(text, sizeof(text), "%.*g", digits, v);
    if (strtod(text, NULL) == v)
      break;
  }
  check(j, yajl_gen_number(j->gen, text, strlen(text)));
}

void jcli_json_bool(jcli_json *j, bool v) {
  check(j, yajl_gen_bool(j->gen, v));
}

void jcli_json_null(jcli_json *j) { check(j, yajl_gen_null(j->gen)); }

/* Data source names of the types with several values, as in collectd's
 * types.db. */
static void ds_names(jc_list_id list, const char *ret[JC_METRIC_VALUES]) {
  static const char *const cputime[] = {"user", "syst", ""};
  static const char *const load[] = {"shortterm", "midterm", "longterm"};
  static const char *const disk[] = {"read", "write", ""};
  static const char *const net[] = {"rx", "tx", ""};
  bool is_load = list >= JC_LIST_PSI_LOAD &&
                 list < JC_LIST_PSI_LOAD + JC_PSI_LINES;
  bool is_net = list >= JC_LIST_IF_OCTETS && list <= JC_LIST_IF_DROPPED;
  const char *const *names = list == JC_LIST_PS_CPUTIME ? cputime
                             : is_load                  ? load
                             : is_net                   ? net
                                                        : disk;
  for (int i = 0; i < JC_METRIC_VALUES; i++)
    ret[i] = names[i];
}

static void metric_value(jcli_json *j, const jc_metric *m, size_t i) {
  if (m->kind == JC_GAUGE)
    jcli_json_double(j, m->gauge[i]);
  else
    jcli_json_int(j, m->derive[i]);
}

void jcli_json_metric(jcli_json *j, const jc_metric *m) {
  char key[256];
  snprintf(key, sizeof(key), "%s%s%s", m->type, m->type_instance[0] ? "-" : "",
           m->type_instance);
  jcli_json_key(j, key);
  if (m->count == 1) {
    metric_value(j, m, 0);
    return;
  }
  const char *ds[JC_METRIC_VALUES];
  ds_names(m->list, ds);
  jcli_json_map_open(j);
  for (size_t i = 0; i < m->count && i < JC_METRIC_VALUES; i++) {
    jcli_json_key(j, ds[i]);
    metric_value(j, m, i);
  }
  jcli_json_map_close(j);
}

int jcli_json_write(jcli_json *j, int fd) {
  int r = j->failed ? -ENOMEM : -EINVAL;
  if (!j->failed && j->depth == 0 && j->len > 0) {
    /* Pretty documents end with yajl's newline already. */
    if (j->buf[j->len - 1] != '\n')
      j->buf[j->len++] = '\n'; /* append() keeps one byte spare */
    r = jcli_write_all(fd, j->buf, j->len);
  }
  j->len = 0;
  j->depth = 0;
  j->failed = false;
  yajl_gen_reset(j->gen, NULL);
  return r;
}

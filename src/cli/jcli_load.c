/*
 * jcli_load — see jcli_load.h.
 *
 * The text is parsed whole into a tree (yajl_tree), after a scan that
 * refuses nesting deeper than any report has: yajl frees its tree
 * recursively, and a hostile file of a million '[' would exhaust the
 * stack there.
 */
#include "jcli_load.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#define DEPTH_MAX 64

/* The deepest nesting of arrays and objects, outside strings. */
static size_t nesting(const char *text, size_t len) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest)
        deepest = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/* ---- the tree ------------------------------------------------------------ */

static yajl_val member(yajl_val obj, const char *key) {
  if (!YAJL_IS_OBJECT(obj))
    return NULL;
  for (size_t i = 0; i < obj->u.object.len; i++)
    if (strcmp(obj->u.object.keys[i], key) == 0)
      return obj->u.object.values[i];
  return NULL;
}

static bool number(yajl_val v, double *ret) {
  if (!YAJL_IS_DOUBLE(v) || !isfinite(v->u.number.d))
    return false;
  *ret = v->u.number.d;
  return true;
}

/* obj.a.b... as a number. */
static bool path_number(yajl_val obj, const char *a, const char *b,
                        const char *c, double *ret) {
  yajl_val v = member(obj, a);
  if (b)
    v = member(v, b);
  if (c)
    v = member(v, c);
  return number(v, ret);
}

/* ---- figures of a span body ------------------------------------------- */

/* The command's part of the package zones: the zones are named in
 * global.energy (their ids), their figures in energy. */
static bool energy_of(yajl_val span, double *ret) {
  yajl_val zones = member(member(span, "global"), "energy");
  yajl_val mine = member(span, "energy");
  if (!YAJL_IS_OBJECT(zones) || !YAJL_IS_OBJECT(mine))
    return false;
  size_t found = 0;
  double sum = 0;
  for (size_t i = 0; i < zones->u.object.len; i++) {
    const char *label = zones->u.object.keys[i];
    const char *id = YAJL_GET_STRING(member(zones->u.object.values[i], "zone"));
    if (!id || !jcli_outcome_counts_zone(label, id))
      continue;
    double j;
    if (!path_number(mine, label, "energy_j", NULL, &j))
      return false;
    sum += j;
    found++;
  }
  *ret = sum;
  return found > 0;
}

static void figures_of(yajl_val span, double wall, jcli_figset *ret) {
  double v = 0, w = 0;
  memset(ret, 0, sizeof(*ret));
  jcli_figset_set(ret, JCLI_FIG_WALL, true, wall);
  bool have = path_number(span, "cpu", "usage_usec", NULL, &v);
  jcli_figset_set(ret, JCLI_FIG_CPU, have, v / 1e6);
  have = path_number(span, "memory", "peak", NULL, &v) ||
         path_number(span, "memory", "current", "max", &v);
  jcli_figset_set(ret, JCLI_FIG_MEMORY, have, v);
  have = path_number(span, "io", "read_bytes", NULL, &v) &&
         path_number(span, "io", "write_bytes", NULL, &w);
  jcli_figset_set(ret, JCLI_FIG_IO, have, v + w);
  have = energy_of(span, &v);
  jcli_figset_set(ret, JCLI_FIG_ENERGY, have, v);
}

/* ---- a run ------------------------------------------------------------- */

typedef struct {
  char *why;
  size_t size;
} errbuf;

static int phases_of(yajl_val run, jcli_outcome *o, size_t index, errbuf *e) {
  yajl_val list = member(run, "phases");
  o->phases_on = YAJL_IS_ARRAY(list);
  if (!o->phases_on || list->u.array.len == 0)
    return 0;
  o->phase = calloc(list->u.array.len, sizeof(*o->phase));
  if (!o->phase)
    return -ENOMEM;
  for (size_t i = 0; i < list->u.array.len; i++) {
    yajl_val p = list->u.array.values[i];
    const char *name = YAJL_GET_STRING(member(p, "name"));
    double start, wall;
    if (!name || !path_number(p, "start_seconds", NULL, NULL, &start) ||
        !path_number(p, "wall_seconds", NULL, NULL, &wall)) {
      snprintf(e->why, e->size,
               "run %zu, phase %zu: no name, start_seconds or wall_seconds",
               index + 1, i + 1);
      return -EINVAL;
    }
    jcli_outcome_phase *ph = &o->phase[o->phase_count];
    ph->name = strdup(name);
    if (!ph->name)
      return -ENOMEM;
    o->phase_count++;
    ph->start = start;
    ph->wall = wall;
    figures_of(p, wall, &ph->fig);
  }
  return 0;
}

static jcli_value value_of(yajl_val point, const char *key, double scale) {
  double v;
  if (!number(member(point, key), &v))
    return (jcli_value){false, 0};
  return (jcli_value){true, v * scale};
}

static jcli_point_kind kind_of(yajl_val point) {
  const char *kind = YAJL_GET_STRING(member(point, "kind"));
  for (int k = JCLI_POINT_START; kind && k <= JCLI_POINT_END; k++)
    if (strcmp(kind, jcli_point_kind_name((jcli_point_kind)k)) == 0)
      return (jcli_point_kind)k;
  return JCLI_POINT_TICK;
}

/* The samples; a point without its time is left out. */
static int points_of(yajl_val run, jcli_outcome *o) {
  yajl_val list = member(run, "series");
  o->series_on = YAJL_IS_ARRAY(list);
  if (!o->series_on || list->u.array.len == 0)
    return 0;
  o->point = calloc(list->u.array.len, sizeof(*o->point));
  if (!o->point)
    return -ENOMEM;
  for (size_t i = 0; i < list->u.array.len; i++) {
    yajl_val p = list->u.array.values[i];
    jcli_point *pt = &o->point[o->point_count];
    if (!number(member(p, "t"), &pt->t))
      continue;
    pt->kind = kind_of(p);
    pt->cpu_usec = value_of(p, "cpu_usage_usec", 1);
    pt->memory_current = value_of(p, "memory_current", 1);
    pt->peak_interval = value_of(p, "memory_peak_interval", 1);
    pt->read_bytes = value_of(p, "io_read_bytes", 1);
    pt->write_bytes = value_of(p, "io_write_bytes", 1);
    pt->energy_uj = value_of(p, "energy_j", 1e6);
    pt->host_energy_uj = value_of(p, "host_energy_j", 1e6);
    o->point_count++;
  }
  return 0;
}

static int run_of(yajl_val run, size_t index, jcli_outcome *o, errbuf *e) {
  double wall, v;
  memset(o, 0, sizeof(*o));
  if (!path_number(run, "wall_seconds", NULL, NULL, &wall)) {
    snprintf(e->why, e->size,
             "run %zu: no wall_seconds: not a report of "
             "joule-cgroup run",
             index + 1);
    return -EINVAL;
  }
  if (path_number(run, "exit_status", NULL, NULL, &v) && v >= 0 && v <= 255)
    o->exit_status = (int)v;
  if (path_number(run, "interval", NULL, NULL, &v) && v > 0)
    o->interval = v;
  figures_of(run, wall, &o->fig);
  int r = phases_of(run, o, index, e);
  if (r == 0)
    r = points_of(run, o);
  return r;
}

/* ---- the document ------------------------------------------------------- */

static int command_of(yajl_val run, jcli_loaded *l) {
  yajl_val argv = member(run, "command");
  if (!YAJL_IS_ARRAY(argv))
    return 0;
  l->command = calloc(argv->u.array.len + 1, sizeof(char *));
  if (!l->command)
    return -ENOMEM;
  for (size_t i = 0, n = 0; i < argv->u.array.len; i++) {
    const char *s = YAJL_GET_STRING(argv->u.array.values[i]);
    if (s && !(l->command[n++] = strdup(s)))
      return -ENOMEM;
  }
  return 0;
}

static int runs_of(yajl_val doc, jcli_loaded *l, errbuf *e) {
  yajl_val runs = member(doc, "runs");
  double iterations;
  bool many = YAJL_IS_ARRAY(runs);
  if (many && path_number(doc, "iterations", NULL, NULL, &iterations) &&
      iterations >= 1 && iterations <= 1e9)
    l->iterations = (long)iterations;
  size_t count = many ? runs->u.array.len : 1;
  if (count == 0) {
    snprintf(e->why, e->size, "no runs in the report");
    return -EINVAL;
  }
  l->run = calloc(count, sizeof(*l->run));
  if (!l->run)
    return -ENOMEM;
  for (size_t i = 0; i < count; i++) {
    int r = run_of(many ? runs->u.array.values[i] : doc, i, &l->run[i], e);
    l->count++; /* released with the others, also when half made */
    if (r < 0)
      return r;
  }
  return command_of(many ? runs->u.array.values[0] : doc, l);
}

int jcli_load_text(const char *text, size_t len, jcli_loaded *ret, char *why,
                   size_t size) {
  memset(ret, 0, sizeof(*ret));
  errbuf e = {why, size};
  if (len > JCLI_LOAD_MAX) {
    snprintf(why, size, "larger than %u MiB", JCLI_LOAD_MAX >> 20);
    return -EFBIG;
  }
  if (nesting(text, len) > DEPTH_MAX) {
    snprintf(why, size, "nested deeper than %d: not a report", DEPTH_MAX);
    return -EINVAL;
  }
  char *copy = malloc(len + 1); /* yajl_tree reads a C string */
  if (!copy)
    return -ENOMEM;
  memcpy(copy, text, len);
  copy[len] = '\0';
  char parsed[256] = "";
  yajl_val doc = yajl_tree_parse(copy, parsed, sizeof(parsed));
  free(copy);
  if (!doc) {
    parsed[strcspn(parsed, "\n")] = '\0';
    snprintf(why, size,
             "not JSON (%s); give run --output FILE so that the "
             "command's output stays apart",
             parsed[0] ? parsed : "out of memory");
    return -EINVAL;
  }
  int r = YAJL_IS_OBJECT(doc) ? runs_of(doc, ret, &e) : -EINVAL;
  if (r == -EINVAL && !YAJL_IS_OBJECT(doc))
    snprintf(why, size, "not a report of joule-cgroup run: not an object");
  if (r == -ENOMEM)
    snprintf(why, size, "out of memory");
  yajl_tree_free(doc);
  if (r < 0)
    jcli_loaded_release(ret);
  return r;
}

int jcli_load_file(const char *path, jcli_loaded *ret, char *why, size_t size) {
  memset(ret, 0, sizeof(*ret));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0) {
    int r = -errno;
    snprintf(why, size, "%s", strerror(errno));
    if (fd >= 0)
      close(fd);
    return r;
  }
  size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536, len = 0;
  char *buf = NULL;
  int r = 0;
  for (;;) {
    if (len + 1 > JCLI_LOAD_MAX + 1u) {
      r = -EFBIG;
      break;
    }
    if (!buf || len == cap) {
      cap = buf ? 2 * cap : cap;
      char *grown = realloc(buf, cap);
      if (!grown) {
        r = -ENOMEM;
        break;
      }
      buf = grown;
    }
    ssize_t got = read(fd, buf + len, cap - len);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      r = got < 0 ? -errno : 0;
      break;
    }
    len += (size_t)got;
  }
  close(fd);
  if (r == 0)
    r = jcli_load_text(buf, len, ret, why, size);
  else
    snprintf(why, size, "%s",
             r == -EFBIG ? "larger than 256 MiB" : strerror(-r));
  free(buf);
  return r;
}

void jcli_loaded_release(jcli_loaded *l) {
  if (!l)
    return;
  for (size_t i = 0; i < l->count; i++)
    jcli_outcome_release(&l->run[i]);
  free(l->run);
  for (size_t i = 0; l->command && l->command[i]; i++)
    free(l->command[i]);
  free(l->command);
  memset(l, 0, sizeof(*l));
}

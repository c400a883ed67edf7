/*
 * jcli_lists — the value lists of one read, cgroup by cgroup (see the
 * header).  Kept as they come, their strings in one buffer; grouped by a
 * sort on (cgroup, arrival), the cgroups then put in the order they
 * first came.
 */
#include "jcli_lists.h"

#include "jcli_grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  jc_metric m;                          /* its strings: the offsets below */
  size_t type, type_instance, instance, relpath; /* offsets in text */
} kept;

struct jcli_lists {
  kept *kept;
  size_t count, cap;
  char *text;
  size_t text_len, text_cap;
  bool failed;
  /* made by jcli_lists_group */
  size_t *order;             /* the lists, cgroup after cgroup */
  jcli_lists_cgroup *cgroup; /* in the order they first came */
  size_t cgroup_count;
  const jcli_lists_cgroup **by_relpath;
};

jcli_lists *jcli_lists_new(void) { return calloc(1, sizeof(jcli_lists)); }

static void ungroup(jcli_lists *l) {
  free(l->order);
  free(l->cgroup);
  free(l->by_relpath);
  l->order = NULL, l->cgroup = NULL, l->by_relpath = NULL;
  l->cgroup_count = 0;
}

void jcli_lists_free(jcli_lists *l) {
  if (!l)
    return;
  ungroup(l);
  free(l->kept);
  free(l->text);
  free(l);
}

static size_t keep_text(jcli_lists *l, const char *s) {
  size_t len = strlen(s) + 1, at = l->text_len;
  if (at + len > l->text_cap) {
    size_t cap = l->text_cap ? l->text_cap : 4096;
    while (at + len > cap)
      cap *= 2;
    char *grown = realloc(l->text, cap);
    if (!grown) {
      l->failed = true;
      return 0;
    }
    l->text = grown, l->text_cap = cap;
  }
  memcpy(l->text + at, s, len);
  l->text_len += len;
  return at;
}

void jcli_lists_add(void *ctx, const jc_target *t, const jc_metric *m) {
  jcli_lists *l = ctx;
  kept *grown = l->failed ? NULL
                          : jcli_grow(l->kept, l->count, &l->cap, sizeof(*grown));
  if (!grown) {
    l->failed = true;
    return;
  }
  l->kept = grown;
  kept *k = &grown[l->count++];
  k->m = *m;
  k->m.type = k->m.type_instance = NULL;
  k->type = keep_text(l, m->type);
  k->type_instance = keep_text(l, m->type_instance);
  k->instance = keep_text(l, t->instance);
  k->relpath = keep_text(l, t->relpath);
}

typedef struct {
  const char *relpath;
  size_t k; /* arrival */
} by_cgroup;

static int cgroup_then_arrival(const void *a, const void *b) {
  const by_cgroup *x = a, *y = b;
  int r = strcmp(x->relpath, y->relpath);
  return r ? r : (x->k > y->k) - (x->k < y->k);
}

/* One cgroup's run of sorted: where it starts, how long, and the arrival
 * of its first list. */
typedef struct {
  size_t start, count, first;
} run;

static int first_arrival(const void *a, const void *b) {
  const run *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

static int relpath_order(const void *a, const void *b) {
  const jcli_lists_cgroup *const *x = a, *const *y = b;
  return strcmp((*x)->relpath, (*y)->relpath);
}

int jcli_lists_group(jcli_lists *l) {
  ungroup(l);
  size_t n = l->count, room = n ? n : 1;
  by_cgroup *sorted = malloc(room * sizeof(*sorted));
  run *runs = malloc(room * sizeof(*runs));
  l->order = malloc(room * sizeof(*l->order));
  l->cgroup = malloc(room * sizeof(*l->cgroup));
  l->by_relpath = malloc(room * sizeof(*l->by_relpath));
  if (l->failed || !sorted || !runs || !l->order || !l->cgroup ||
      !l->by_relpath) {
    free(sorted);
    free(runs);
    ungroup(l);
    return -ENOMEM;
  }
  for (size_t k = 0; k < n; k++)
    sorted[k] = (by_cgroup){l->text + l->kept[k].relpath, k};
  if (n > 1)
    qsort(sorted, n, sizeof(*sorted), cgroup_then_arrival);
  size_t runs_count = 0;
  for (size_t k = 0; k < n; k++) {
    if (k == 0 || strcmp(sorted[k].relpath, sorted[k - 1].relpath) != 0)
      runs[runs_count++] = (run){k, 0, sorted[k].k};
    runs[runs_count - 1].count++;
  }
  if (runs_count > 1)
    qsort(runs, runs_count, sizeof(*runs), first_arrival);
  size_t at = 0;
  for (size_t i = 0; i < runs_count; i++) {
    const kept *first = &l->kept[runs[i].first];
    l->cgroup[i] = (jcli_lists_cgroup){l->text + first->instance,
                                       l->text + first->relpath, at,
                                       runs[i].count};
    for (size_t k = 0; k < runs[i].count; k++)
      l->order[at++] = sorted[runs[i].start + k].k;
    l->by_relpath[i] = &l->cgroup[i];
  }
  l->cgroup_count = runs_count;
  free(sorted);
  free(runs);
  if (runs_count > 1)
    qsort(l->by_relpath, runs_count, sizeof(*l->by_relpath), relpath_order);
  return 0;
}

size_t jcli_lists_cgroups(const jcli_lists *l) { return l->cgroup_count; }

const jcli_lists_cgroup *jcli_lists_at(const jcli_lists *l, size_t i) {
  return &l->cgroup[i];
}

const jcli_lists_cgroup *jcli_lists_find(const jcli_lists *l,
                                         const char *relpath) {
  jcli_lists_cgroup key = {.relpath = relpath};
  const jcli_lists_cgroup *pkey = &key;
  const jcli_lists_cgroup *const *found =
      l->cgroup_count ? bsearch(&pkey, l->by_relpath, l->cgroup_count,
                                sizeof(*l->by_relpath), relpath_order)
                      : NULL;
  return found ? *found : NULL;
}

jc_metric jcli_lists_metric(const jcli_lists *l, size_t k) {
  const kept *e = &l->kept[l->order[k]];
  jc_metric m = e->m;
  m.type = l->text + e->type;
  m.type_instance = l->text + e->type_instance;
  return m;
}

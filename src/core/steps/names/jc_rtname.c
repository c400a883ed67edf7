/*
 * jc_rtname — see jc_rtname.h.
 */
#include "jc_rtname.h"

#include "jc_clock.h"
#include "jc_internal.h"
#include "jc_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* tries of a cgroup past JC_RUNTIME_TRIES: looked up every
 * JC_RUNTIME_RETRY_S. */
#define SLOW (JC_RUNTIME_TRIES + 1)
#define RETRY_NS (JC_RUNTIME_RETRY_S * 1000000000ull)

static jc_rtname_self *self(const jc_collector *c) {
  return jc_step_self(c, JC_STEP_RTNAME);
}

static jc_rtname_state *state_of(const jc_collector *c, const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_RTNAME);
}

/* Why t has no name from its runtime: one line per cause (the runtime's
 * state directory), whichever cgroup comes first; a WARNING when that
 * directory is not there at all (a collectd in a container without the
 * mount, a RuntimeRoot or RuntimeDir set wrong). */
static void say_missing(const jc_collector *c, jc_rtname_self *n,
                        const jc_tracked *t, int reads, bool loud) {
  char text[3 * PATH_MAX];
  int k = jc_runtime_missing(n->runtime, t->relpath, text, sizeof(text));
  if (k < 0 || (n->told & (1u << k)))
    return;
  n->told |= 1u << k;
  char after[48] = "";
  if (reads > 0)
    snprintf(after, sizeof(after), " after %d reads", reads);
  jc_logf(&c->log,
          !loud && jc_runtime_dir_present(n->runtime, (jc_runtime_dir)k)
              ? JC_LOG_INFO
              : JC_LOG_WARNING,
          "InstanceFrom \"container\": no name for cgroup \"%s\"%s: looked "
          "for %s; it keeps its path name, as every cgroup of this runtime "
          "whose files are missing (said once), and is looked up again every "
          "%d s (docs/containers.md)",
          t->relpath, after, text, JC_RUNTIME_RETRY_S);
}

/*
 * The name the runtime gave t, into ret_name, when its files say it.
 * While they are not written yet, t keeps its path name and is asked
 * again at the next read passes (retry), JC_RUNTIME_TRIES times, then
 * every JC_RUNTIME_RETRY_S.  True when ret_name is the runtime's.
 */
static bool look_up(const jc_collector *c, jc_rtname_self *n, jc_tracked *t,
                    char ret_name[JC_INSTANCE_SIZE]) {
  jc_rtname_state *s = state_of(c, t);
  int r = jc_runtime_name(n->runtime, t->relpath, ret_name);
  if (r != -EAGAIN) {
    s->tries = 0;
    s->named = r == 0;
    return r == 0;
  }
  if (s->tries == SLOW) {
    n->slow = true;
    return false;
  }
  if (++s->tries <= JC_RUNTIME_TRIES) {
    n->pending = true;
    return false;
  }
  if (!n->slow)
    n->slow_at = jc_now_ns() + RETRY_NS;
  n->slow = true;
  say_missing(c, n, t, JC_RUNTIME_TRIES + 1, false);
  return false;
}

/* A cgroup first tracked: its runtime's name, where it has one (a name
 * given explicitly, the root's or an Instance, stays).  Its path
 * re-created: the name it has. */
static void track(const jc_collector *c, jc_tracked *t) {
  jc_rtname_state *s = state_of(c, t);
  if (s->looked)
    return;
  s->looked = true;
  char name[JC_INSTANCE_SIZE];
  if (!t->explicit_name && look_up(c, self(c), t, name))
    jc_tracked_set_name(t, name);
}

/* t got its runtime's name at a later lookup. */
static void named_late(const jc_collector *c, jc_tracked *t, const char *name,
                       bool slow) {
  if (slow)
    jc_logf(&c->log, JC_LOG_INFO,
            "cgroup \"%s\" is named \"%s\" by its runtime now: its values "
            "go on under that name, those under \"%s\" end "
            "(docs/containers.md)",
            t->relpath, name, t->instance);
  jc_tracked_set_name(t, name);
}

/*
 * The start of a read pass: asks the runtime again for the names it had
 * not written yet, at each of a cgroup's next JC_RUNTIME_TRIES passes,
 * then once every JC_RUNTIME_RETRY_S.  Init's baseline pass follows the
 * lookups of init's walk at once and asks none.  Nothing to do (two flag
 * tests) when none waits.
 */
static void retry(jc_collector *c) {
  jc_rtname_self *n = self(c);
  if (!n->baseline_done) {
    n->baseline_done = true;
    return;
  }
  bool slow = n->slow && jc_now_ns() >= n->slow_at;
  if (!n->pending && !slow)
    return;
  n->pending = false;
  if (slow) {
    n->slow = false; /* set again by those still waiting */
    n->slow_at = jc_now_ns() + RETRY_NS;
  }
  bool renamed = false;
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    uint8_t tries = state_of(c, t)->tries;
    bool was_slow = tries == SLOW;
    if (!tries || (was_slow && !slow))
      continue;
    char name[JC_INSTANCE_SIZE];
    if (!look_up(c, n, t, name))
      continue;
    named_late(c, t, name, was_slow);
    renamed = true;
  }
  if (renamed)
    (void)jc_tracked_resolve_collisions(c); /* out of memory: at the next change */
}

/*
 * Cgroups that share a name, each now reported with "~" and the hash of
 * its path.  Where every name is a container runtime's, the sharing is
 * what runtimes do and lasts while it lasts: a container restarted by
 * Kubernetes (a new cgroup, the same name) while its old cgroup is still
 * there, a pod re-created under its name, replicas of one compose
 * service.  Nothing is wrong, so INFO (docs/containers.md), said here;
 * any other shared name comes from the configuration (jc_tracked's
 * WARNING).
 */
static bool collision(const jc_collector *c, jc_tracked *const *group,
                      size_t count) {
  static const jc_collision_words words = {
      {"both hold a container its runtime names",
       "hold containers their runtime names"},
      {" (a restarted container whose old cgroup is still there, or "
       "replicas)",
       " (restarted containers whose old cgroups are still there, or "
       "replicas)"},
      {"while both are there ", "while they are there "}};
  for (size_t i = 0; i < count; i++)
    if (!state_of(c, group[i])->named)
      return false;
  jc_tracked_say_collision(c, JC_LOG_INFO, group, count, &words);
  return true;
}

size_t jc_collector_names_missing(jc_collector *c, bool loud,
                                  bool *ret_no_state) {
  jc_rtname_self *n = self(c);
  size_t waiting = 0;
  bool state = false;
  for (int k = 0; n && k < JC_RUNTIME_DIR_COUNT; k++)
    state |= jc_runtime_dir_present(n->runtime, (jc_runtime_dir)k);
  for (size_t i = 0; n && i < c->tracked_count; i++) {
    const jc_tracked *t = c->tracked[i];
    if (!state_of(c, t)->tries)
      continue;
    waiting++;
    say_missing(c, n, t, 0, loud);
  }
  *ret_no_state = !state;
  return waiting;
}

/* InstanceFrom "container": the runtimes' state, read below RuntimeRoot. */
static int init(const jc_collector *c, void **ret_self) {
  const jc_config *cfg = c->cfg;
  if (cfg->instance_from != JC_INSTANCE_FROM_CONTAINER)
    return 0;
  jc_rtname_self *n = calloc(1, sizeof(*n));
  if (!n) {
    jc_logf(&c->log, JC_LOG_ERR, "out of memory");
    return -ENOMEM;
  }
  struct jc_runtime *rt = jc_runtime_open(
      cfg->runtime_root, (const char *const *)cfg->runtime_dir, &c->log,
      "InstanceFrom \"container\"", "keeps its path name");
  if (!rt) {
    int e = errno;
    free(n);
    return -e;
  }
  jc_runtime_set_names(rt, cfg->container_names);
  n->runtime = rt;
  *ret_self = n;
  return 0;
}

static void rtname_free(const jc_collector *c, void *state) {
  (void)c;
  jc_rtname_self *n = state;
  jc_runtime_free(n->runtime);
  free(n);
}

const jc_step jc_rtname_step = {
    .name = "rtname",
    .slot_size = sizeof(jc_rtname_state),
    .life = {.init = init, .init_first = true, .free = rtname_free},
    .pass = {.begin = retry},
    .cgroup_life = {.track = track, .collision = collision},
};

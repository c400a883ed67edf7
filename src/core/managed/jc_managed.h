/*
 * jc_managed — the <Cgroup> blocks of a collector: set up at init
 * (verify or create, hand controllers down, attach processes), released
 * at shutdown (evacuate and remove what was created, only while it is
 * still what was created).  Used by jc_collector.c (life cycle), given
 * what it needs of the collector (jc_managed_env); the blocks' paths and
 * Instances are the configuration's (jc_discover tracks a managed path
 * always, jc_tracked names it).
 *
 *   r = jc_managed_setup(&env, &set);   at init; set even when r < 0
 *   jc_managed_release(set);            evacuates, removes, frees; NULL-safe
 */
#ifndef JC_MANAGED_H
#define JC_MANAGED_H

#include "jc_config.h"
#include "jc_log.h"
#include "jc_proc.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What the blocks need of the collector; its pointers outlive the set. */
typedef struct {
  const jc_config *cfg;
  const jc_log *log;
  const char *root; /* CgroupRoot, as messages say it */
  int rootfd;
  uint32_t files;         /* the files read (bit per jc_file_id): a level
                             created hands their controllers down */
  uint32_t collect_files; /* of them, those Collect asks for: a parent not
                             created must hand theirs down already */
} jc_managed_env;

/* A process a <Cgroup> block moved in, and where it was before. */
typedef struct {
  pid_t pid;
  char *origin; /* its cgroup, relative to CgroupRoot ("" for the root) */
  jc_proc_hold hold; /* from its check to its move (released then) */
} jc_moved;

/* What one <Cgroup> block made (block[i] for cfg->managed[i]). */
typedef struct jc_managed_state {
  size_t created_levels; /* trailing path levels we created at init */
  uint64_t *ids; /* their cgroup ids, top-down: what is ours to remove */
  jc_moved *moved; /* where evacuation sends them back to */
  size_t moved_count;
} jc_managed_state;

/* The blocks of one collector (jc_managed.c and jc_attach.c). */
typedef struct jc_managed_set {
  jc_managed_env env;
  jc_managed_state *block; /* one per cfg->managed */
} jc_managed_set;

/* 0, or a negative errno after one ERROR line; *ret is set whatever the
 * outcome, and jc_managed_release() undoes a half setup. */
int jc_managed_setup(const jc_managed_env *env, jc_managed_set **ret);
/* Evacuates and removes the levels setup created (unless kept), and
 * frees the set.  NULL-safe. */
void jc_managed_release(jc_managed_set *set);

bool jc_managed_is_path(const jc_config *cfg, const char *relpath);
/* The Instance of a managed path, NULL when none was given. */
const char *jc_managed_instance(const jc_config *cfg, const char *relpath);

#endif

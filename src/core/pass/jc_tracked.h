/*
 * jc_tracked — one cgroup being reported, and its whole life: made when a
 * walk first finds it, restarted when its path holds another cgroup,
 * freed when it vanishes; its instance name and the collisions between
 * names; and the descriptors it keeps, within the collector's descriptor
 * budget, which this module alone owns.
 *
 * Per-cgroup state of the steps of the pass (jc_step.h) lives in the
 * cgroup's slots, which this module allocates with it and hands to the
 * steps' track, vanished and release hooks, looping over the table of
 * steps: it names none of them.  A step may give a cgroup another name
 * (jc_tracked_set_name), and tell a collision of such names itself.
 *
 * The budget (docs/configuration.md, MaxOpenFiles): descriptors kept from
 * read to read, at most `limit`, the steps' own (jc_tracked_keep: the
 * network step's cgroup.procs and /proc/<pid>/net files) among them.  One
 * file needs its descriptor kept: the interval peak (jc_peak; the kernel
 * resets memory.peak per open file), so peaks come first.  A peak that finds the budget full takes the room of
 * other kept descriptors, from the last cgroups backwards, and while any
 * cgroup lacks its peak no other file keeps a descriptor (those are opened
 * again at each read, which loses nothing).  Cgroups still left without a
 * peak are counted in one WARNING with the remedy.
 */
#ifndef JC_TRACKED_H
#define JC_TRACKED_H

#include "jc_collector.h"
#include "jc_name.h"
#include "jc_sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A cgroup as a walk found it: its path, identity and the limits above. */
typedef struct {
  char *relpath; /* owned; jc_tracked_new takes it */
  dev_t dev;
  ino_t ino;
  jc_limits ancestors; /* the smallest limits of the levels above it */
} jc_found;

/* One cgroup being reported. */
typedef struct jc_tracked {
  char *relpath;
  char name[JC_INSTANCE_SIZE];     /* its instance name, before collisions */
  char instance[JC_INSTANCE_SIZE]; /* the one it is reported with */
  bool explicit_name; /* the root's or an Instance: never given a suffix */
  bool name_is_path;  /* the instance is the path ('/' as '_') or "root" */
  ino_t ino;      /* a new inode under the same path is a new cgroup */
  dev_t dev;
  bool on_cgroupfs; /* the kernel's files: regular, no type check needed */
  int dirfd;      /* -1 when not kept: its files are opened by path */
  int fd[JC_FILE_COUNT]; /* kept stat-file fds, -1 when not kept */
  uint32_t absent;   /* files found missing, skipped until the next walk */
  uint32_t problems; /* its problems told and not over (jc_problem): a bit
                        per file, then one per missing controller */
  jc_prior prior;  /* rates and I/O totals (jc_metrics) */
  jc_limits ancestors; /* the smallest limits above it, as of the last walk */
  bool gone; /* vanished during this read pass */
  bool starved; /* this pass: a file could not be opened for want of a
                   descriptor (EMFILE, ENFILE) */
  /* The steps' slots (jc_step_slot), zeroed when it is first tracked. */
  _Alignas(max_align_t) unsigned char slots[];
} jc_tracked;

/* The descriptor budget; only jc_tracked.c changes it. */
typedef struct {
  long limit;          /* descriptors kept between reads, at most */
  long kept;           /* kept now, peaks included */
  long peaks;          /* of them, interval peaks */
  bool peaks_short;    /* a cgroup lacks its peak: no other file is kept */
  size_t peaks_missing;          /* this pass: cgroups without a peak */
  size_t peaks_missing_reported; /* what the last WARNING said */
  size_t give_back_at; /* where taking room resumes, from the end */
} jc_fd_budget;

/* A descriptor a step keeps between reads (jc_step.h): true when the
 * budget has room for it, now counted; false to close it after this read
 * (it is opened again at the next).  jc_tracked_unkept: one it closed. */
bool jc_tracked_keep(jc_collector *c);
void jc_tracked_unkept(jc_collector *c);
/* Closes a step's kept descriptor *fd, if any, and gives its room back
 * (jc_tracked_unkept); *fd is -1 after.  Whether there was one. */
bool jc_tracked_close_kept(jc_collector *c, int *fd);

/* At init: chooses the budget from MaxOpenFiles and RLIMIT_NOFILE (the
 * INFO or WARNING line says which and why). */
void jc_tracked_budget_init(jc_collector *c);

/* After a read pass: the WARNING when cgroups were left without their
 * interval peak (once per new count), the INFO when none is. */
void jc_tracked_budget_end_pass(jc_collector *c);

/* A new tracked cgroup for what a walk found (takes e->relpath); NULL
 * when out of memory. */
jc_tracked *jc_tracked_new(jc_collector *c, jc_found *e);

/* A walk found t again: e holds what it saw now.  Another inode under the
 * same path is another cgroup: everything about the old one is forgotten
 * (before[0..n): the tracked cgroups before it in walk order, for the
 * steps' vanished hooks). */
void jc_tracked_refound(jc_collector *c, jc_tracked *t, const jc_found *e,
                        jc_tracked *const *before, size_t n);

/* Closes t's descriptors and frees it.  NULL-safe. */
void jc_tracked_free(jc_collector *c, jc_tracked *t);

/* The same for a cgroup that vanished from the tree, after the steps'
 * vanished hooks (before[0..n): the tracked cgroups before it in walk
 * order, its surviving ancestors among them). */
void jc_tracked_vanished(jc_collector *c, jc_tracked *t,
                         jc_tracked *const *before, size_t n);

/* Gives every cgroup whose name another one has "~" and the hash of its
 * path (docs/configuration.md, instance names); logs what changed (a
 * step's collision hook, or a WARNING). */
int jc_tracked_resolve_collisions(jc_collector *c);

/* How cgroups that share a name are told (jc_tracked_say_collision): the
 * words that differ between jc_tracked's WARNING and a step's own line,
 * each for two cgroups ([0]) and for more ([1]). */
typedef struct {
  const char *share[2];  /* "would both be reported as" */
  const char *why[2];    /* after the name: "", or " (replicas)" */
  const char *during[2]; /* before what they are reported as: "", or
                            "while both are there " */
} jc_collision_words;

/* Says that group[0..count) (count >= 2) share a name, and what each is
 * reported as now, in one line at level. */
void jc_tracked_say_collision(const jc_collector *c, int level,
                              jc_tracked *const *group, size_t count,
                              const jc_collision_words *w);

/* t's name is `name` now, and the instance it is reported with too: a
 * step that names cgroups, in its track hook (jc_tracked_new has given
 * t its path's or its Instance's name) or later, followed there by
 * jc_tracked_resolve_collisions (a walk that tracked t calls it). */
void jc_tracked_set_name(jc_tracked *t, const char *name);

/* A descriptor of file f of t to read: the kept one, or one opened now
 * (a file written after each read, jc_file_info.reset_after_read, opened
 * for writing too, on cgroupfs only: -ENOENT elsewhere).  -ENOBUFS when f
 * is the interval peak and the budget has no room for it (the cgroup is
 * counted), else a negative errno of the open. */
int jc_tracked_fd(jc_collector *c, jc_tracked *t, jc_file_id f);

/* After reading fd (from jc_tracked_fd; read_ok: it could be read): keeps
 * it when the budget allows, else closes it. */
void jc_tracked_fd_done(jc_collector *c, jc_tracked *t, jc_file_id f, int fd,
                        bool read_ok);

/* After t was read: gives back its directory descriptor when every file
 * it needs is kept (the directory then only costs budget). */
void jc_tracked_trim(jc_collector *c, jc_tracked *t);

/* Closes file f's descriptors in every cgroup (the file is no longer
 * read anywhere: the collector's alone to say). */
void jc_tracked_drop_file(jc_collector *c, jc_file_id f);

/* Where file `name` of t is for openat(): its kept directory, or else
 * the root and "relpath/name" (written to buf). */
const char *jc_tracked_file(const jc_collector *c, const jc_tracked *t,
                            const char *name, char *buf, size_t size,
                            int *ret_dirfd);

/* The target of t's value lists.  The meta data travels where the
 * instance does not say the path (PathMetaData: everywhere). */
jc_target jc_tracked_target(const jc_collector *c, const jc_tracked *t);

/* The target of t's notifications: the meta data always. */
jc_target jc_tracked_notify_target(const jc_tracked *t);

#endif

/*
 * jc_collector — the whole read side of joule_cgroup, without collectd.
 *
 * It owns a jc_config and everything derived from it: the open root of the
 * hierarchy, the set of tracked cgroups (re-discovered when the tree
 * changes), the kept file descriptors, and the cgroups it manages.
 *
 *   c = jc_collector_new(cfg, log, ctx);   takes ownership of cfg
 *   jc_collector_set_notify(c, fn, ctx);   optional: OOM notifications
 *   jc_collector_set_totals(c, fn, ctx);   optional: each cgroup's totals
 *   jc_collector_init(c);                  verify, create/attach, baseline
 *   jc_collector_read(c, emit, ctx);       every interval
 *   jc_collector_handle_events(c, ...);    optional: when events_fd says
 *   jc_collector_free(c);                  releases managed cgroups, frees
 *
 * Problems are reported through the log callback, once per cgroup and
 * problem, with a second line when the problem goes away (the semantics of
 * collectd's c_complain_once/c_release).  One collector is not thread-safe;
 * collectd calls a plugin's read callback from one thread at a time.
 */
#ifndef JC_COLLECTOR_H
#define JC_COLLECTOR_H

#include "jc_config.h"
#include "jc_log.h"
#include "jc_metrics.h"
#include "jc_totals.h"


/* The cgroup a metric belongs to. */
typedef struct {
  const char *instance; /* plugin instance, ≤ 127 bytes */
  const char *relpath;  /* relative to the root; "" for the root itself */
  const char *meta;     /* the `cgroup` meta data: relpath, or "/"; NULL
                           when the instance says it already (value lists
                           only: notifications and previews always have it) */
} jc_target;

typedef void (*jc_collect_fn)(void *ctx, const jc_target *t,
                              const jc_metric *m);

/* An event worth a person's attention (collectd's notifications; the
 * severities are collectd's NOTIF_* values). */
typedef enum {
  JC_NOTIF_FAILURE = 1,
  JC_NOTIF_WARNING = 2,
  JC_NOTIF_OKAY = 4
} jc_severity;

/* A fact of a notification for machines (collectd's notification meta
 * data): a string, a number, or a count (bytes, kills: a whole number,
 * sent exact as an unsigned integer). */
typedef enum { JC_META_TEXT, JC_META_NUMBER, JC_META_COUNT } jc_meta_kind;

typedef struct {
  const char *key;
  jc_meta_kind kind;
  const char *text; /* JC_META_TEXT */
  double number;    /* JC_META_NUMBER */
  uint64_t count;   /* JC_META_COUNT */
} jc_note_meta;

/* The process an OOM kill took, as the kernel's log tells it (NotifyOOM,
 * where collectd may read /dev/kmsg): the notification's meta data.
 * Paths are relative to CgroupRoot ("/" for it), or the kernel's own
 * ("/…", from its root) for a cgroup above CgroupRoot. */
typedef struct {
  int pid;
  const char *command;
  long long uid;            /* -1: the kernel's log does not say */
  const char *cgroup;       /* the cgroup it was in */
  const char *limit_cgroup; /* whose memory.max fired; NULL: none did
                               (the system was out of memory) */
  uint64_t limit;           /* that memory.max; UINT64_MAX: not known */
} jc_oom_victim;

typedef struct {
  jc_severity severity;
  const char *type;          /* "memory" */
  const char *type_instance; /* "oom_kill" */
  const char *message;       /* one line a person can act on */
  const jc_note_meta *meta;  /* besides the `cgroup` the target carries */
  size_t meta_count;
  const jc_oom_victim *victim; /* NULL, or the process an OOM kill took */
} jc_notification;

typedef void (*jc_notify_fn)(void *ctx, const jc_target *t,
                             const jc_notification *n);

typedef struct jc_collector jc_collector;

jc_collector *jc_collector_new(jc_config *cfg, jc_log_fn log, void *log_ctx);

/* 0, or a negative errno after logging one ERROR line that says what to
 * do. */
int jc_collector_init(jc_collector *c);

/* One read pass over every tracked cgroup. */
int jc_collector_read(jc_collector *c, jc_collect_fn emit, void *ctx);

/*
 * Between reads (docs/metrics.md, final figures): the descriptor to wait
 * on (poll POLLIN) for cgroups that appear or empty; -1 when there is
 * none (no inotify).  When it is readable, jc_collector_handle_events
 * walks the tree if it changed and reads each tracked cgroup that has
 * just emptied at once (its NotifyEnd notification goes then).  Its value
 * lists are held: a cgroup that empties and stays sends none but those of
 * the read passes; one that goes (removed, or its path re-created) sends
 * its final figures through emit here or from the next jc_collector_read,
 * whichever learns it went first, each list stamped with the time it was
 * read (jc_metric's time_ns).  Not concurrently with jc_collector_read:
 * the caller serializes the two.
 */
int jc_collector_events_fd(const jc_collector *c);

/*
 * Between reads the core may want to read something of its own: the RAPL
 * energy counters, before one could wrap twice (Collect "energy", a long
 * Interval).  jc_collector_wants_ticks: whether it ever may (a thread to
 * keep); jc_collector_tick_in_ms: milliseconds until it wants
 * jc_collector_tick, -1 for no time set; jc_collector_tick: does what is
 * due.  Same thread rule as the rest of the collector.
 */
bool jc_collector_wants_ticks(const jc_collector *c);
int jc_collector_tick_in_ms(const jc_collector *c);
void jc_collector_tick(jc_collector *c);
int jc_collector_handle_events(jc_collector *c, jc_collect_fn emit,
                               void *ctx);

/* Where notifications go (OOM kills, NotifyOOM); set before init.  The
 * target and notification are valid during the call only. */
void jc_collector_set_notify(jc_collector *c, jc_notify_fn fn, void *ctx);

/* The command's figures: after each cgroup's value lists, fn gets its
 * totals (jc_totals), made from the same read.  Unset (the plugin), no
 * read pass makes them; a cgroup's end does, for NotifyEnd. */
typedef void (*jc_totals_fn)(void *ctx, const jc_target *t,
                             const jc_totals *totals);
void jc_collector_set_totals(jc_collector *c, jc_totals_fn fn, void *ctx);

/* Releases managed cgroups (evacuate, rmdir) and frees c. NULL-safe. */
void jc_collector_free(jc_collector *c);

/* InstanceFrom "container": the cgroups whose runtime has not written
 * their names, said now through the log, one line per cause (which
 * runtime's files, where, the remedy), as the plugin says them after
 * JC_RUNTIME_TRIES reads; loud: each as a WARNING.  Returns how many
 * wait; *ret_no_state: no runtime's state directory below RuntimeRoot.
 * (The names' step answers it: jc_rtname.c.) */
size_t jc_collector_names_missing(jc_collector *c, bool loud,
                                  bool *ret_no_state);

/* The resolved CgroupRoot (after init). */
const char *jc_collector_root(const jc_collector *c);

/*
 * Calls fn for every cgroup being tracked, in walk order: after init, the
 * cgroups the selection picks and the instance each gets (what a preview
 * of a configuration shows).  The target is valid during the call only.
 */
typedef void (*jc_target_fn)(void *ctx, const jc_target *t);
void jc_collector_each_target(const jc_collector *c, jc_target_fn fn,
                              void *ctx);

/* Figures for tests and benchmarks. */
typedef struct {
  size_t tracked;    /* cgroups currently tracked */
  size_t rescans;    /* full walks so far */
  long fds_kept;     /* file descriptors held between reads */
  long fd_budget;    /* MaxOpenFiles in force */
  bool inotify;      /* change notification active */
  uint32_t files;    /* bit (1u << jc_file_id) per file read per cgroup */
} jc_collector_stats;

void jc_collector_get_stats(const jc_collector *c, jc_collector_stats *ret);

#endif

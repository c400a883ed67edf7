/*
 * jc_step — a stateful feature of the read pass, as the collector sees it.
 *
 * The read pass (jc_collector.c) reads each tracked cgroup's files into
 * one sample and sends its value lists; everything that keeps state from
 * read to read besides that (container names, OOM kills, the interval
 * peak, a cgroup's end, energy, the file problems told) is a step: a
 * module that owns its state and is reached only through the hooks below,
 * from the table of steps in jc_steps.c.  The collector, the walk and a
 * cgroup's life (jc_tracked) loop over that table; none of them names a
 * step.  A new stateful feature is one module with its jc_step and one
 * row of the table.
 *
 * State: a step's own, made by its init hook (at init, after <Cgroup>
 * blocks are set up; init_first: before the collector looks at anything)
 * and kept by the collector (jc_step_self), and a slot of slot_size bytes
 * in every tracked cgroup (jc_step_slot), zeroed when the cgroup is first
 * tracked.  Every hook may be NULL.  A step whose init leaves its state
 * NULL is off: none of its hooks is called (a NotifyOOM false costs the
 * pass nothing).
 *
 * Order: hooks run in the table's order.  For each read pass:
 *
 *   begin(c)                    before any cgroup is read
 *   final(c, t)                 per cgroup, before its files, when a step
 *                               took pending work: is this its final read
 *                               (it has just emptied)?
 *   cgroup(c, t, read)          per cgroup read, after its value lists
 *   ended(c, t, read)           the same, after a final read only
 *   end(c, emit, ctx)           after every cgroup, and after the cgroups
 *                               found gone were dropped
 *   send(c, emit, ctx)          then: what is held for cgroups gone
 *
 * Between passes, a step with pending work (a cgroup that emptied) makes
 * the collector read the cgroups whose `final` says so, each with
 * read->in_pass false; their value lists go to the hold hooks, not out
 * (send says when: a cgroup that empties and stays sends only the points
 * of the read passes).  A step's final hook is asked nothing while no
 * step has pending work (take_pending: the pass costs one call, not one
 * per cgroup).  A cgroup's life:
 *
 *   track(c, t)                 tracked: new, or its path re-created
 *   vanished(c, t, recreated,   it disappeared, or its path holds another
 *            before, n)         cgroup now (before[0..n): the tracked
 *                               cgroups before it in walk order)
 *   release(c, t)               its slot's resources go: re-created (track
 *                               follows) or freed
 *
 * A step that names cgroups (jc_tracked_set_name: jc_rtname, first in the
 * table, so that the steps after it see the name) does so in its track
 * hook, or later in a pass's begin.  Cgroups that come to share a name
 * are given their suffixes by jc_tracked, which asks the collision hooks
 * whether one of them tells it (else its WARNING does).
 *
 * A step may keep descriptors between reads within the collector's budget
 * (jc_tracked_keep, jc_tracked_unkept); its give_back hook hands those of
 * a cgroup back when an interval peak needs the room.
 */
#ifndef JC_STEP_H
#define JC_STEP_H

#include "jc_collector.h"
#include "jc_sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct jc_tracked jc_tracked;

/* The steps, in the order their hooks run (jc_steps.c). */
typedef enum {
  JC_STEP_RTNAME,  /* jc_rtname: InstanceFrom "container": runtimes' names */
  JC_STEP_OOM,     /* jc_oom: OOM kills as notifications */
  JC_STEP_ENERGY,  /* jc_energy: Collect "energy" */
  JC_STEP_GPU,     /* jc_gpu: Collect "gpu" */
  JC_STEP_NET,     /* jc_net: Collect "network" */
  JC_STEP_PROBLEM, /* jc_problem: file problems told once, the starved */
  JC_STEP_END,     /* jc_end: final figures, NotifyEnd, the lost */
  JC_STEP_PEAK,    /* jc_peak: the interval peak */
  JC_STEP_COUNT
} jc_step_id;

/* One read of one cgroup, as the steps see it. */
typedef struct {
  const jc_sample *sample;
  const jc_limits *limits; /* its effective limits */
  const jc_totals *totals; /* made when the command or NotifyEnd wants
                              them; NULL otherwise */
  bool final;   /* it has just emptied: its final figures */
  bool in_pass; /* a read pass (false: a final read between passes) */
} jc_read;

/* inotify: what the watch descriptor of step's event hook means. */
enum {
  JC_EVENTS_LOST = -1,   /* events were lost: any watched file may have
                            changed */
  JC_WATCHES_GONE = -2,  /* the inotify instance is closed */
};

typedef struct jc_step {
  const char *name;
  size_t slot_size; /* per tracked cgroup; 0: none */

  /* At init (after <Cgroup> blocks are set up, before the first walk):
   * its state, or NULL to stay off.  A negative errno after one ERROR line
   * fails init. */
  int (*init)(jc_collector *c, void **ret_self);
  /* Its init runs first of all the collector's init (after the root is
   * opened, before the controllers are looked at, the descriptor budget
   * is chosen and <Cgroup> blocks move processes): for what only the
   * configuration decides and may fail init, so that it fails before
   * anything is changed (jc_rtname's RuntimeRoot). */
  bool init_first;
  void (*free)(jc_collector *c, void *self);

  void (*begin)(jc_collector *c);
  bool (*final)(jc_collector *c, jc_tracked *t);
  void (*cgroup)(jc_collector *c, jc_tracked *t, const jc_read *r);
  void (*ended)(jc_collector *c, jc_tracked *t, const jc_read *r);
  /* Adds what the step knows to t's totals (made from a read). */
  void (*totals)(const jc_collector *c, const jc_tracked *t,
                 jc_totals *totals);
  void (*end)(jc_collector *c, jc_collect_fn emit, void *ctx);
  /* A value list of t's final read between passes (read->in_pass false:
   * the read's lists are not sent, they are held), m->time_ns its time. */
  void (*hold)(jc_collector *c, jc_tracked *t, const jc_metric *m);
  /* Sends what is held for the cgroups that went: after a read pass and
   * after the reads between passes. */
  void (*send)(jc_collector *c, jc_collect_fn emit, void *ctx);

  /* Cgroups whose final hook may say yes (and forgets that it had any):
   * at the start of a pass, and between passes (read them now). */
  bool (*take_pending)(jc_collector *c);
  /* An inotify event of a watched file (wd), or JC_EVENTS_LOST, or
   * JC_WATCHES_GONE. */
  void (*event)(jc_collector *c, int wd);
  /* After a walk of the tree. */
  void (*walked)(jc_collector *c);
  /* Reads of its own between passes: when (CLOCK_MONOTONIC; UINT64_MAX:
   * none due), and the read. */
  uint64_t (*due_ns)(const jc_collector *c);
  void (*tick)(jc_collector *c, uint64_t now_ns);

  /* Gives back the descriptors it keeps for t (jc_tracked_keep), so that
   * an interval peak has room (jc_tracked.h); true when it had any. */
  bool (*give_back)(jc_collector *c, jc_tracked *t);

  void (*track)(jc_collector *c, jc_tracked *t);
  void (*vanished)(jc_collector *c, const jc_tracked *t, bool recreated,
                   jc_tracked *const *before, size_t n);
  void (*release)(jc_collector *c, jc_tracked *t);
  /* Cgroups group[0..count) (count >= 2) share a name, and each is
   * reported as that name, "~" and its path's hash from now on: true when
   * the step told it (a name it gave them all, whose sharing is no fault:
   * jc_rtname's INFO), else jc_tracked's WARNING does.  Not a read pass's:
   * when a walk or a late name changes the instances. */
  bool (*collision)(jc_collector *c, jc_tracked *const *group, size_t count);

  /* The files whose reads it is told of (bit 1u << jc_file_id), through
   * the two hooks below; one step a file. */
  uint32_t files;
  /* File f of t, one of its files, was read into s through fd; fresh: fd
   * was opened for this read; in_pass: a read pass reads it (false: a
   * final read between passes, whose values are held and dropped if the
   * cgroup stays: what a read consumes, such as the interval peak's
   * reset, is left to the next pass's read).  0, or a negative errno
   * after which the file is read no more, anywhere. */
  int (*file_read)(jc_collector *c, jc_tracked *t, jc_file_id f, int fd,
                   bool fresh, bool in_pass, jc_sample *s);
  /* Opening such a file failed with err: 0 to let it be a problem of the
   * file as any other, or a negative errno to read it no more. */
  int (*file_refused)(jc_collector *c, jc_file_id f, int err);
} jc_step;

/* The table (jc_steps.c). */
extern const jc_step *const jc_steps[JC_STEP_COUNT];

/* Each step's jc_step, defined in its module. */
extern const jc_step jc_rtname_step, jc_oom_step, jc_energy_step,
    jc_gpu_step, jc_net_step, jc_problem_step, jc_end_step, jc_peak_step;

/* The loops over the table that the collector and the walk make
 * (jc_steps.c).  init_first: the state of the steps whose init runs
 * first; init: the others', and where each one's slot is; 0, or a
 * negative errno after a step's ERROR line (jc_steps_free undoes a half
 * init). */
int jc_steps_init_first(jc_collector *c);
int jc_steps_init(jc_collector *c);
void jc_steps_free(jc_collector *c);
void jc_steps_begin(jc_collector *c);
void jc_steps_end(jc_collector *c, jc_collect_fn emit, void *ctx);
void jc_steps_hold(jc_collector *c, jc_tracked *t, const jc_metric *m);
void jc_steps_send(jc_collector *c, jc_collect_fn emit, void *ctx);
bool jc_steps_take_pending(jc_collector *c);
void jc_steps_event(jc_collector *c, int wd);
void jc_steps_walked(jc_collector *c);
bool jc_steps_ticking(const jc_collector *c);
uint64_t jc_steps_due_ns(const jc_collector *c);
void jc_steps_tick(jc_collector *c, uint64_t now_ns);

#endif

/*
 * jc_step — a stateful feature of the read pass, as the collector sees it.
 *
 * The read pass (jc_collector.c) reads each tracked cgroup's files into
 * one sample and sends its value lists; everything that keeps state from
 * read to read besides that (container names, OOM kills, the interval
 * peak, a cgroup's end, energy, GPUs, the network, the file problems
 * told) is a step: a module that owns its state and is reached only
 * through the hooks below, from the table of steps (jc_steps.c, made
 * from the list of steps, jc_step_list.h).  The collector, the walk and
 * a cgroup's life (jc_tracked) reach the steps through the loops of
 * jc_steps.c; none of them names a step.  A new stateful feature is a
 * folder of src/core/steps with its module and its jc_step, and one
 * entry of the list.
 *
 * State: a step's own, made by its init hook and kept by the collector
 * (jc_step_self), and a slot of slot_size bytes in every tracked cgroup
 * (jc_step_slot), zeroed when the cgroup is first tracked.  Every hook
 * may be NULL.  A step whose init leaves its state NULL is off: none of
 * its hooks is called (a NotifyOOM false costs the pass nothing).  Hooks
 * run in the list's order, each group's as its comment says.
 *
 * A step sees the collector through a const view: it reads the pass's
 * state (c->cfg, c->log, c->tracked, c->pass_ns ...) and writes only its
 * own (jc_step_self, jc_step_slot) and what the hook hands it (a read's
 * sample, a cgroup's slot).  The hooks given `jc_collector *` (pass.begin
 * and pass.end, cgroup_life.release and give_back) may use the pass's
 * services that change it: the descriptor budget (jc_tracked_keep,
 * jc_tracked_unkept) and the names (jc_tracked_resolve_collisions).  No
 * step writes a field of struct jc_collector.
 */
#ifndef JC_STEP_H
#define JC_STEP_H

#include "jc_collector.h"
#include "jc_sample.h"
#include "jc_step_list.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct jc_tracked jc_tracked;

/* The steps, in the order their hooks run (jc_step_list.h). */
#define JC_STEP_ID(ID, name) JC_STEP_##ID,
typedef enum { JC_STEPS(JC_STEP_ID) JC_STEP_COUNT } jc_step_id;
#undef JC_STEP_ID

/* One read of one cgroup, as the steps see it. */
typedef struct {
  const jc_sample *sample;
  const jc_limits *limits; /* its effective limits */
  const jc_totals *totals; /* made when the command or NotifyEnd wants
                              them; NULL otherwise */
  bool final;   /* it has just emptied: its final figures */
  bool in_pass; /* a read pass (false: a final read between passes) */
} jc_read;

/* What a step asks of the pass (its asks hook). */
typedef struct {
  uint32_t files;    /* the sample's files read for it at every read of a
                        cgroup (bit 1u << jc_file_id), beyond those the
                        value lists read */
  bool final_totals; /* a cgroup's final read makes its totals (jc_read's
                        totals in pass.ended: NotifyEnd's record) */
} jc_step_asks;

/* inotify: what the watch descriptor of step's event hook means. */
enum {
  JC_EVENTS_LOST = -1,   /* events were lost: any watched file may have
                            changed */
  JC_WATCHES_GONE = -2,  /* the inotify instance is closed */
};

typedef struct jc_step {
  const char *name;
  size_t slot_size; /* per tracked cgroup; 0: none */

  /* Its life: made at init (before <Cgroup> blocks are set up, so that
   * a level the plugin creates hands down the controllers of the files
   * the steps ask for; before the first walk), freed with the collector.
   * init: its state, or NULL to stay off; a negative errno after one
   * ERROR line fails init.  init_first: its init runs first of all the
   * collector's init (after the root is opened, before the controllers
   * are looked at and the descriptor budget is chosen), for what only the
   * configuration decides and may fail init, so that it fails before
   * anything is said or changed (jc_rtname's RuntimeRoot). */
  struct {
    int (*init)(const jc_collector *c, void **ret_self);
    bool init_first;
    void (*free)(const jc_collector *c, void *self);
  } life;

  /* What it asks of the pass (jc_step_asks): asked after its init and,
   * when each_pass, after the begin hooks of every pass (an answer that
   * may change then: the energy step's cpuset, once it knows the
   * packages).  The pass reads the files asked for where the hierarchy
   * has their controller; a cgroup that lacks one misses nothing else
   * (no problem is told).  The sample's storage is the pass's, the
   * cpuset's included: a step sets nothing of the collector up. */
  struct {
    void (*ask)(const jc_collector *c, jc_step_asks *ret);
    bool each_pass;
  } asks;

  /* Each read pass, in this order:
   *   begin       before any cgroup is read
   *   final       per cgroup, before its files, when a step took pending
   *               work (between.take_pending): is this its final read (it
   *               has just emptied)?
   *   cgroup      per cgroup read, after its value lists
   *   ended       the same, after a final read only
   *   end         after every cgroup, and after the cgroups found gone
   *               were dropped
   *   send        then: what is held for the cgroups that went; also
   *               after the reads between passes
   * totals adds what the step knows to t's totals, made from a read (for
   * the command, and NotifyEnd's record). */
  struct {
    void (*begin)(jc_collector *c);
    bool (*final)(const jc_collector *c, jc_tracked *t);
    void (*cgroup)(const jc_collector *c, jc_tracked *t, const jc_read *r);
    void (*ended)(const jc_collector *c, jc_tracked *t, const jc_read *r);
    void (*totals)(const jc_collector *c, const jc_tracked *t,
                   jc_totals *totals);
    void (*end)(jc_collector *c, jc_collect_fn emit, void *ctx);
    void (*send)(const jc_collector *c, jc_collect_fn emit, void *ctx);
  } pass;

  /* Between passes.  A step with pending work (a cgroup that emptied)
   * makes the collector read the cgroups whose pass.final says so, each
   * with read->in_pass false; their value lists go to hold, not out
   * (pass.send says when: a cgroup that empties and stays sends only the
   * points of the read passes), m->time_ns their time.  take_pending:
   * whether the final hooks may say yes (and forgets that it had any),
   * at the start of a pass and between passes; while no step has pending
   * work no final hook is asked (the pass costs one call, not one per
   * cgroup).  event: an inotify event of a watched file (wd), or
   * JC_EVENTS_LOST, or JC_WATCHES_GONE. */
  struct {
    bool (*take_pending)(const jc_collector *c);
    void (*hold)(const jc_collector *c, jc_tracked *t, const jc_metric *m);
    void (*event)(const jc_collector *c, int wd);
  } between;

  /* A cgroup's life:
   *   track       tracked: new, or its path re-created
   *   vanished    it disappeared, or its path holds another cgroup now
   *               (before[0..n): the tracked cgroups before it in walk
   *               order)
   *   release     its slot's resources go: re-created (track follows) or
   *               freed
   * A step that names cgroups (jc_tracked_set_name: jc_rtname, first in
   * the list, so that the steps after it see the name) does so in track,
   * or later in a pass's begin.  collision: cgroups group[0..count)
   * (count >= 2) share a name, and each is reported as that name, "~" and
   * its path's hash from now on: true when the step told it (a name it
   * gave them all, whose sharing is no fault: jc_rtname's INFO), else
   * jc_tracked's WARNING does; not a read pass's: when a walk or a late
   * name changes the instances.  give_back: a step may keep descriptors
   * between reads within the collector's budget (jc_tracked_keep,
   * jc_tracked_unkept); this gives back those of t, so that an interval
   * peak has room (jc_tracked.h); true when it had any. */
  struct {
    void (*track)(const jc_collector *c, jc_tracked *t);
    void (*vanished)(const jc_collector *c, const jc_tracked *t, bool recreated,
                     jc_tracked *const *before, size_t n);
    void (*release)(jc_collector *c, jc_tracked *t);
    bool (*collision)(const jc_collector *c, jc_tracked *const *group,
                      size_t count);
    bool (*give_back)(jc_collector *c, jc_tracked *t);
  } cgroup_life;

  /* Files of the sample it is told of: `told` (bit 1u << jc_file_id; one
   * step a file).  read: file f of t, one of them, was read into s
   * through fd; fresh: fd was opened for this read; in_pass: a read pass
   * reads it (false: a final read between passes, whose values are held
   * and dropped if the cgroup stays: what a read consumes, such as the
   * interval peak's reset, is left to the next pass's read).  0, or a
   * negative errno after which the file is read no more, anywhere.
   * refused: opening such a file failed with err: 0 to let it be a
   * problem of the file as any other, or a negative errno to read it no
   * more. */
  struct {
    uint32_t told;
    int (*read)(const jc_collector *c, jc_tracked *t, jc_file_id f, int fd,
                bool fresh, bool in_pass, jc_sample *s);
    int (*refused)(const jc_collector *c, jc_file_id f, int err);
  } files;

  /* Reads of its own between passes: due_ns says when (CLOCK_MONOTONIC;
   * UINT64_MAX: none due), tick makes them. */
  struct {
    uint64_t (*due_ns)(const jc_collector *c);
    void (*tick)(const jc_collector *c, uint64_t now_ns);
  } timer;
} jc_step;

/* The table (jc_steps.c), and each step's jc_step, defined in its folder. */
extern const jc_step *const jc_steps[JC_STEP_COUNT];
#define JC_STEP_EXTERN(ID, name) extern const jc_step jc_##name##_step;
JC_STEPS(JC_STEP_EXTERN)
#undef JC_STEP_EXTERN

/* The loops over the table that the collector, the walk and a cgroup's
 * life make (jc_steps.c), each over the steps that are on, in the
 * list's order; one per hook but those of a cgroup's read, which the
 * pass calls from the lists of the steps that have them (jc_internal.h).
 * init_first: the state of the steps whose init runs first; init: the
 * others', and where each one's slot is; 0, or a negative errno after a
 * step's ERROR line (jc_steps_free undoes a half init).  collision: true
 * when a step told it. */
int jc_steps_init_first(jc_collector *c);
int jc_steps_init(jc_collector *c);
void jc_steps_free(jc_collector *c);
void jc_steps_begin(jc_collector *c);
/* What the steps that are on ask, into c->steps.asked: at init, and
 * after the begin hooks when a step asks each pass (steps.asking). */
void jc_steps_ask(jc_collector *c);
void jc_steps_end(jc_collector *c, jc_collect_fn emit, void *ctx);
void jc_steps_hold(jc_collector *c, jc_tracked *t, const jc_metric *m);
void jc_steps_send(jc_collector *c, jc_collect_fn emit, void *ctx);
bool jc_steps_take_pending(jc_collector *c);
void jc_steps_event(jc_collector *c, int wd);
bool jc_steps_ticking(const jc_collector *c);
uint64_t jc_steps_due_ns(const jc_collector *c);
void jc_steps_tick(jc_collector *c, uint64_t now_ns);
void jc_steps_totals(const jc_collector *c, const jc_tracked *t,
                     jc_totals *ret);
void jc_steps_track(jc_collector *c, jc_tracked *t);
void jc_steps_vanished(jc_collector *c, const jc_tracked *t, bool recreated,
                       jc_tracked *const *before, size_t n);
void jc_steps_release(jc_collector *c, jc_tracked *t);
bool jc_steps_collision(jc_collector *c, jc_tracked *const *group,
                        size_t count);
void jc_steps_give_back(jc_collector *c, jc_tracked *t);

#endif

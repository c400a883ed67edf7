/*
 * jc_steps — the table of the read pass's steps (jc_step.h), and the
 * loops over it.  The order of the table is the order of every hook:
 * a cgroup is named before the other steps see it, OOM kills are counted
 * before energy is charged, and a cgroup's end is told after both (its
 * NotifyEnd record has the kills and the energy).
 */
#include "jc_internal.h"

#include <errno.h>
#include <stdalign.h>

const jc_step *const jc_steps[JC_STEP_COUNT] = {
    [JC_STEP_RTNAME] = &jc_rtname_step,
    [JC_STEP_OOM] = &jc_oom_step,
    [JC_STEP_ENERGY] = &jc_energy_step,
    [JC_STEP_GPU] = &jc_gpu_step,
    [JC_STEP_NET] = &jc_net_step,
    [JC_STEP_PROBLEM] = &jc_problem_step,
    [JC_STEP_END] = &jc_end_step,
    [JC_STEP_PEAK] = &jc_peak_step,
};

#define EACH_ON(c, i)                                                          \
  for (int i = 0; i < JC_STEP_COUNT; i++)                                      \
    if ((c)->steps.on[i])

static size_t align_up(size_t n) {
  size_t a = alignof(max_align_t);
  return (n + a - 1) / a * a;
}

/* The per-cgroup hooks of the steps that are on, for the read pass to
 * call without looking at the others. */
static void list_cgroup_hooks(jc_collector *c) {
  EACH_ON(c, i) {
    if (jc_steps[i]->final)
      c->steps.final[c->steps.final_count++] = jc_steps[i];
    if (jc_steps[i]->cgroup)
      c->steps.cgroup[c->steps.cgroup_count++] = jc_steps[i];
    if (jc_steps[i]->ended)
      c->steps.ended[c->steps.ended_count++] = jc_steps[i];
    for (uint32_t left = jc_steps[i]->files; left; left &= left - 1)
      c->steps.of_file[__builtin_ctz(left)] = jc_steps[i];
    c->steps.files |= jc_steps[i]->files;
  }
}

static int init_one(jc_collector *c, int i) {
  const jc_step *s = jc_steps[i];
  int r = s->init ? s->init(c, &c->steps.self[i]) : 0;
  if (r < 0)
    return r;
  c->steps.on[i] = !s->init || c->steps.self[i];
  return 0;
}

int jc_steps_init_first(jc_collector *c) {
  for (int i = 0; i < JC_STEP_COUNT; i++) {
    int r = jc_steps[i]->init_first ? init_one(c, i) : 0;
    if (r < 0)
      return r;
  }
  return 0;
}

int jc_steps_init(jc_collector *c) {
  size_t offset = 0;
  for (int i = 0; i < JC_STEP_COUNT; i++) {
    c->steps.slot_offset[i] = offset;
    offset += align_up(jc_steps[i]->slot_size);
    int r = jc_steps[i]->init_first ? 0 : init_one(c, i);
    if (r < 0)
      return r;
  }
  c->steps.slots_size = offset;
  list_cgroup_hooks(c);
  return 0;
}

void jc_steps_free(jc_collector *c) {
  for (int i = JC_STEP_COUNT; i-- > 0;) {
    if (c->steps.self[i] && jc_steps[i]->free)
      jc_steps[i]->free(c, c->steps.self[i]);
    c->steps.self[i] = NULL;
    c->steps.on[i] = false;
  }
}

void jc_steps_begin(jc_collector *c) {
  EACH_ON(c, i) if (jc_steps[i]->begin) jc_steps[i]->begin(c);
}

void jc_steps_end(jc_collector *c, jc_collect_fn emit, void *ctx) {
  EACH_ON(c, i) if (jc_steps[i]->end) jc_steps[i]->end(c, emit, ctx);
}

void jc_steps_hold(jc_collector *c, jc_tracked *t, const jc_metric *m) {
  EACH_ON(c, i) if (jc_steps[i]->hold) jc_steps[i]->hold(c, t, m);
}

void jc_steps_send(jc_collector *c, jc_collect_fn emit, void *ctx) {
  EACH_ON(c, i) if (jc_steps[i]->send) jc_steps[i]->send(c, emit, ctx);
}

bool jc_steps_take_pending(jc_collector *c) {
  bool any = false;
  EACH_ON(c, i) if (jc_steps[i]->take_pending) any |= jc_steps[i]->take_pending(c);
  return any;
}

void jc_steps_event(jc_collector *c, int wd) {
  EACH_ON(c, i) if (jc_steps[i]->event) jc_steps[i]->event(c, wd);
}

void jc_steps_walked(jc_collector *c) {
  EACH_ON(c, i) if (jc_steps[i]->walked) jc_steps[i]->walked(c);
}

bool jc_steps_ticking(const jc_collector *c) {
  EACH_ON(c, i) if (jc_steps[i]->tick) return true;
  return false;
}

uint64_t jc_steps_due_ns(const jc_collector *c) {
  uint64_t due = UINT64_MAX;
  EACH_ON(c, i) if (jc_steps[i]->due_ns) {
    uint64_t d = jc_steps[i]->due_ns(c);
    due = d < due ? d : due;
  }
  return due;
}

void jc_steps_tick(jc_collector *c, uint64_t now_ns) {
  EACH_ON(c, i) if (jc_steps[i]->tick) jc_steps[i]->tick(c, now_ns);
}

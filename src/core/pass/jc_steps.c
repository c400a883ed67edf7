/*
 * jc_steps — the table of the read pass's steps (jc_step.h), made from
 * their list (jc_step_list.h, whose order is the order of every hook),
 * and the loops over it: the collector, the walk and a cgroup's life
 * reach the steps here, and name none of them.
 */
#include "jc_internal.h"

#include <errno.h>
#include <stdalign.h>

#define JC_STEP_ROW(ID, name) [JC_STEP_##ID] = &jc_##name##_step,
const jc_step *const jc_steps[JC_STEP_COUNT] = {JC_STEPS(JC_STEP_ROW)};
#undef JC_STEP_ROW

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
    if (jc_steps[i]->pass.final)
      c->steps.final[c->steps.final_count++] = jc_steps[i];
    if (jc_steps[i]->pass.cgroup)
      c->steps.cgroup[c->steps.cgroup_count++] = jc_steps[i];
    if (jc_steps[i]->pass.ended)
      c->steps.ended[c->steps.ended_count++] = jc_steps[i];
    for (uint32_t left = jc_steps[i]->files.told; left; left &= left - 1)
      c->steps.of_file[__builtin_ctz(left)] = jc_steps[i];
    c->steps.files |= jc_steps[i]->files.told;
    if (jc_steps[i]->asks.ask && jc_steps[i]->asks.each_pass)
      c->steps.asking[c->steps.asking_count++] = jc_steps[i];
  }
}

void jc_steps_ask(jc_collector *c) {
  jc_step_asks all = {0};
  EACH_ON(c, i) if (jc_steps[i]->asks.ask) {
    jc_step_asks one = {0};
    jc_steps[i]->asks.ask(c, &one);
    all.files |= one.files;
    all.final_totals |= one.final_totals;
  }
  c->steps.asked = all;
}

static int init_one(jc_collector *c, int i) {
  const jc_step *s = jc_steps[i];
  int r = s->life.init ? s->life.init(c, &c->steps.self[i]) : 0;
  if (r < 0)
    return r;
  c->steps.on[i] = !s->life.init || c->steps.self[i];
  return 0;
}

int jc_steps_init_first(jc_collector *c) {
  for (int i = 0; i < JC_STEP_COUNT; i++) {
    int r = jc_steps[i]->life.init_first ? init_one(c, i) : 0;
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
    int r = jc_steps[i]->life.init_first ? 0 : init_one(c, i);
    if (r < 0)
      return r;
  }
  c->steps.slots_size = offset;
  list_cgroup_hooks(c);
  jc_steps_ask(c);
  return 0;
}

void jc_steps_free(jc_collector *c) {
  for (int i = JC_STEP_COUNT; i-- > 0;) {
    if (c->steps.self[i] && jc_steps[i]->life.free)
      jc_steps[i]->life.free(c, c->steps.self[i]);
    c->steps.self[i] = NULL;
    c->steps.on[i] = false;
  }
}

void jc_steps_begin(jc_collector *c) {
  EACH_ON(c, i) if (jc_steps[i]->pass.begin) jc_steps[i]->pass.begin(c);
}

void jc_steps_end(jc_collector *c, jc_collect_fn emit, void *ctx) {
  EACH_ON(c, i) if (jc_steps[i]->pass.end) jc_steps[i]->pass.end(c, emit, ctx);
}

void jc_steps_hold(jc_collector *c, jc_tracked *t, const jc_metric *m) {
  EACH_ON(c, i) if (jc_steps[i]->between.hold) jc_steps[i]->between.hold(c, t, m);
}

void jc_steps_send(jc_collector *c, jc_collect_fn emit, void *ctx) {
  EACH_ON(c, i) if (jc_steps[i]->pass.send) jc_steps[i]->pass.send(c, emit, ctx);
}

bool jc_steps_take_pending(jc_collector *c) {
  bool any = false;
  EACH_ON(c, i) if (jc_steps[i]->between.take_pending)
    any |= jc_steps[i]->between.take_pending(c);
  return any;
}

void jc_steps_event(jc_collector *c, int wd) {
  EACH_ON(c, i) if (jc_steps[i]->between.event) jc_steps[i]->between.event(c, wd);
}

bool jc_steps_ticking(const jc_collector *c) {
  EACH_ON(c, i) if (jc_steps[i]->timer.tick) return true;
  return false;
}

uint64_t jc_steps_due_ns(const jc_collector *c) {
  uint64_t due = UINT64_MAX;
  EACH_ON(c, i) if (jc_steps[i]->timer.due_ns) {
    uint64_t d = jc_steps[i]->timer.due_ns(c);
    due = d < due ? d : due;
  }
  return due;
}

void jc_steps_tick(jc_collector *c, uint64_t now_ns) {
  EACH_ON(c, i) if (jc_steps[i]->timer.tick) jc_steps[i]->timer.tick(c, now_ns);
}

void jc_steps_totals(const jc_collector *c, const jc_tracked *t,
                     jc_totals *ret) {
  EACH_ON(c, i) if (jc_steps[i]->pass.totals) jc_steps[i]->pass.totals(c, t, ret);
}

/* ---- a cgroup's life ------------------------------------------------------ */

void jc_steps_track(jc_collector *c, jc_tracked *t) {
  EACH_ON(c, i) if (jc_steps[i]->cgroup_life.track)
      jc_steps[i]->cgroup_life.track(c, t);
}

void jc_steps_vanished(jc_collector *c, const jc_tracked *t, bool recreated,
                       jc_tracked *const *before, size_t n) {
  EACH_ON(c, i) if (jc_steps[i]->cgroup_life.vanished)
      jc_steps[i]->cgroup_life.vanished(c, t, recreated, before, n);
}

void jc_steps_release(jc_collector *c, jc_tracked *t) {
  EACH_ON(c, i) if (jc_steps[i]->cgroup_life.release)
      jc_steps[i]->cgroup_life.release(c, t);
}

bool jc_steps_collision(jc_collector *c, jc_tracked *const *group,
                        size_t count) {
  EACH_ON(c, i) if (jc_steps[i]->cgroup_life.collision &&
                    jc_steps[i]->cgroup_life.collision(c, group, count))
      return true;
  return false;
}

void jc_steps_give_back(jc_collector *c, jc_tracked *t) {
  EACH_ON(c, i) if (jc_steps[i]->cgroup_life.give_back)
      jc_steps[i]->cgroup_life.give_back(c, t);
}

/*
 * jc_problem — what the read pass says when a file of a tracked cgroup
 * cannot be opened, read or parsed.
 *
 * Each problem is logged once per cgroup, and once more (INFO) when it is
 * over: the semantics of collectd's c_complain_once/c_release, kept in the
 * core so that the command shares them.  A controller that a parent does
 * not hand down is said once per parent, with the remedy, and only when
 * the parent's cgroup.subtree_control really lacks it; any other missing
 * file is named with what its absence means.  Part of the pass: the
 * functions below are what its file reading calls when a file fails
 * (nothing in a healthy pass), at the end of a pass (the cgroups starved
 * of descriptors) and after a walk; what each cgroup was told is its
 * `problems`, the parents told are the collector's (jc_problem_memory).
 */
#ifndef JC_PROBLEM_H
#define JC_PROBLEM_H

#include "jc_collector.h"
#include "jc_sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct jc_tracked jc_tracked;

/* What the collector remembers having said: the parents told of a
 * controller they do not hand down, and the starved cgroups' count. */
typedef struct {
  struct jc_told_parent *told;
  size_t told_count;
  size_t starved_reported; /* what the last WARNING said */
} jc_problem_memory;

/* File f of t could not be opened or read (err: a negative errno).
 * Returns false when t itself is gone (normal churn, not a problem). */
bool jc_problem_read_failed(jc_collector *c, jc_tracked *t, jc_file_id f,
                            int err);

/* File f of t was read into s but its text is malformed (err from the
 * parser); s says whether some of its values could be taken. */
void jc_problem_parse_failed(jc_collector *c, jc_tracked *t, jc_file_id f,
                             const jc_sample *s, int err);

/* File f of t, whose problem was told (problems & (1u << f)), was read
 * and parsed: ends it, in one INFO. */
void jc_problem_over(jc_collector *c, jc_tracked *t, jc_file_id f);

/* After a read pass in which c->starved cgroups could not be read in full
 * for want of a descriptor: one WARNING when that number changes (with
 * the remedy), one INFO when it is back to 0. */
void jc_problem_end_pass(jc_collector *c);

/* After a walk: forgets the parents told about that no longer exist. */
void jc_problem_walked(jc_collector *c);

/* Frees what the collector remembers. */
void jc_problem_free(jc_collector *c);

#endif

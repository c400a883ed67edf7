/*
 * jc_problem — what the read pass says when a file of a tracked cgroup
 * cannot be opened, read or parsed.
 *
 * Each problem is logged once per cgroup, and once more (INFO) when it is
 * over: the semantics of collectd's c_complain_once/c_release, kept in the
 * core so that the command shares them.  A controller that a parent does
 * not hand down is said once per parent, with the remedy, and only when
 * the parent's cgroup.subtree_control really lacks it; any other missing
 * file is named with what its absence means.  The functions below are
 * what the collector's file reading calls when a file fails (nothing in
 * a healthy pass); the rest is a step of the read pass (jc_step.h): what
 * each cgroup was told is its slot, the parents told are the step's own,
 * its end hook says when cgroups were starved of descriptors, and its
 * walked hook forgets the parents that went.
 */
#ifndef JC_PROBLEM_H
#define JC_PROBLEM_H

#include "jc_internal.h"

/* File f of t could not be opened or read (err: a negative errno).
 * Returns false when t itself is gone (normal churn, not a problem). */
bool jc_problem_read_failed(jc_collector *c, jc_tracked *t, jc_file_id f,
                            int err);

/* File f of t was read into s but its text is malformed (err from the
 * parser); s says whether some of its values could be taken. */
void jc_problem_parse_failed(jc_collector *c, jc_tracked *t, jc_file_id f,
                             const jc_sample *s, int err);

/* File f of t was read and parsed: ends a problem logged before. */
void jc_problem_recovered(jc_collector *c, jc_tracked *t, jc_file_id f);

#endif

/*
 * jc_dfds — the descriptors the disk modules hold from pass to pass (a
 * walk's levels, a log file), asked of the collector's descriptor budget
 * (MaxOpenFiles, jc_tracked_keep) through these two calls, so that the
 * modules know nothing of the collector: keep is asked before one is
 * held (false: no room, close it after use), unkept told of each one
 * closed.
 */
#ifndef JC_DFDS_H
#define JC_DFDS_H

#include <stdbool.h>

typedef struct {
  bool (*keep)(void *ctx);
  void (*unkept)(void *ctx);
  void *ctx;
} jc_dfds;

#endif

/*
 * jc_dwalk — the space a directory tree takes, counted a few entries at a
 * time (Collect "disk": a container's writable layer, a pod's emptyDir
 * volume, where no project quota counts it; docs/metrics.md, Disk).
 *
 * What is counted is what `du --block-size=1 -s` and `du --inodes -s`
 * count: every inode of the tree once, the top directory included, its
 * allocated bytes (st_blocks × 512) and one inode each; a file with
 * several names in the tree counts once (st_nlink > 1: its device and
 * inode are kept for the walk).  Every entry is looked at with fstatat
 * from its directory's descriptor, AT_SYMLINK_NOFOLLOW: a symbolic link
 * is counted as the link, never followed; a FIFO, a socket, a device is
 * counted and never opened.  Only directories are opened (O_DIRECTORY |
 * O_NOFOLLOW | O_NONBLOCK), and only on the top's file system: an entry
 * on another one (a mount point inside the tree) is neither counted nor
 * entered, as `du -x` leaves it.  A tree that changes while it is walked
 * is no error: an entry gone between its directory's listing and its
 * look (ENOENT), or replaced by another kind of file, is passed over; one
 * that could not be looked at for another reason (EACCES: a directory of
 * mode 000 without CAP_DAC_READ_SEARCH) is counted in `unreadable`, the
 * rest of the tree is not.
 *
 * The walk keeps one directory descriptor per level it is in (the top's
 * among them) open from call to call, each one asked of fds->keep first
 * (the collector's descriptor budget, MaxOpenFiles); a level the budget
 * has no room for stops the walk (-EMFILE).
 *
 *   w = jc_dwalk_new(dirfd, &fds);       takes dirfd
 *   r = jc_dwalk_run(w, &budget);        until it returns 1, at each pass
 *   jc_dwalk_get(w, &res);               the figure of the whole walk
 *   jc_dwalk_free(w);                    closes what it holds; NULL-safe
 */
#ifndef JC_DWALK_H
#define JC_DWALK_H

#include "jc_dfds.h"

#include <stdbool.h>
#include <stdint.h>

/* Allocated bytes and inodes. */
typedef struct {
  uint64_t bytes;
  uint64_t inodes;
} jc_dsize;

typedef struct {
  jc_dsize size;
  uint64_t entries;    /* entries looked at, the top included */
  uint64_t unreadable; /* entries that could not be looked at or listed */
  int unreadable_err;  /* the last one's errno */
} jc_dwalk_result;

typedef struct jc_dwalk jc_dwalk;

/* A walk of the directory open at dirfd (taken, closed by the walk or
 * here): NULL with errno set (ENOMEM; EMFILE when fds has no room for
 * it; ENOTDIR, or fstat's), dirfd closed. */
jc_dwalk *jc_dwalk_new(int dirfd, const jc_dfds *fds);

/*
 * Walks on, looking at no more than *budget entries (*budget goes down by
 * those looked at: one fstatat each):
 *   1        the walk is over: jc_dwalk_get has its figure
 *   0        *budget is spent; call again
 *   -EMFILE  a directory could not be held open (fds said no room, or the
 *            process is out of descriptors): the walk stopped, free it
 *   -ENOMEM  out of memory: the walk stopped
 */
int jc_dwalk_run(jc_dwalk *w, uint64_t *budget);

/* What the walk counted so far (the figure once run returned 1). */
void jc_dwalk_get(const jc_dwalk *w, jc_dwalk_result *ret);

/* The levels it holds open now (for tests and messages). */
unsigned jc_dwalk_depth(const jc_dwalk *w);

void jc_dwalk_free(jc_dwalk *w);

#endif

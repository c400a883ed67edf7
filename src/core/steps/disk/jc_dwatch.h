/*
 * jc_dwatch — which containers' log directories changed since the last
 * pass, told by the kernel (inotify), so that a pass looks at the log
 * files that were written to and nothing else (Collect "disk": jc_disk;
 * docs/metrics.md, Disk).
 *
 * Each directory is watched for its files' writes (IN_MODIFY: a log grew
 * or was truncated) and for the names made, removed or renamed in it
 * (a rotation: IN_CREATE, IN_DELETE, IN_MOVED_FROM, IN_MOVED_TO), and for
 * its own removal.  One read of the instance a pass gives them all; the
 * kernel merges a file's writes that follow each other into one event.
 * A queue that overflowed (a host of very talkative containers between
 * two passes) says so, and every directory is looked at.
 *
 *   w = jc_dwatch_new();                         NULL, errno set: none
 *   wd = jc_dwatch_add(w, dirfd, owner);          per directory
 *   jc_dwatch_read(w, fn, ctx);                   each pass
 *   jc_dwatch_remove(w, wd);                      when its owner goes
 *   jc_dwatch_free(w);                            NULL-safe
 *
 * A directory is named to the kernel by its open descriptor
 * (/proc/self/fd/N): what is watched is what was opened below
 * RuntimeRoot, whatever its path leads to now.  Every function returns 0
 * (or a watch descriptor) or a negative errno and never logs.
 */
#ifndef JC_DWATCH_H
#define JC_DWATCH_H

#include <stdint.h>

/* What an event says of a directory (jc_dlogs_size's look). */
enum {
  JC_DWATCH_WRITTEN = 1u << 0, /* a file in it was written to */
  JC_DWATCH_CHANGED = 1u << 1, /* a name was made, removed or renamed */
  JC_DWATCH_GONE = 1u << 2,    /* the directory itself went */
};

typedef struct jc_dwatch jc_dwatch;

jc_dwatch *jc_dwatch_new(void);
/* The instance's descriptor: one the caller counts as held. */
int jc_dwatch_fd(const jc_dwatch *w);
/* Watches the directory open at dirfd for owner: its watch descriptor,
 * or a negative errno (-ENOSPC: the user's inotify watches are all
 * taken). */
int jc_dwatch_add(jc_dwatch *w, int dirfd, void *owner);
/* NULL-safe; a wd of none (negative) is nothing. */
void jc_dwatch_remove(jc_dwatch *w, int wd);
/* The events queued since the last read: fn(ctx, owner, what) for each
 * one of a watched directory (what: JC_DWATCH_* bits); after an overflow
 * once with owner NULL (every directory may have changed). */
int jc_dwatch_read(jc_dwatch *w, void (*fn)(void *ctx, void *owner,
                                             unsigned what),
                   void *ctx);
void jc_dwatch_free(jc_dwatch *w);

#endif

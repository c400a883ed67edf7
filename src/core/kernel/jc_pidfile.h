/*
 * jc_pidfile — reads a process id from a pid file, and only from one that
 * no one but root or our own user could have written.  Whoever can write
 * a pid file chooses which process root moves into a cgroup: a file
 * someone else owns, or can replace (a directory they can write, a symlink
 * they placed), is refused, as systemd refuses such a PIDFile=.
 *
 * Accepted: a regular file (the last path level is not a symlink), owned
 * by root or by the effective uid, not writable by group or others; every
 * directory on the way to it owned by root or the effective uid and not
 * writable by group or others unless sticky (/tmp: nobody else can rename
 * or remove what is in it); every symlink on the way owned by root or the
 * effective uid.  The path is resolved level by level, as the kernel
 * would, so what is checked is what is read.
 */
#ifndef JC_PIDFILE_H
#define JC_PIDFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * 0 with *ret_pid; -EPERM when the file is not trusted, with the reason in
 * why ("is owned by uid 65534 (nobody)..."); -EINVAL when it holds no
 * process id; another -errno when it cannot be read (why says which path).
 */
int jc_pidfile_read(const char *path, pid_t *ret_pid, char *why, size_t n);

#endif

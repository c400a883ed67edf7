/*
 * jc_fd — where a descriptor kept from read to read lives.
 *
 * collectd is one process: its other plugins open sockets and files in
 * the same table of descriptors as this plugin, and some of them wait
 * with select(), which takes no descriptor above FD_SETSIZE - 1 (1023):
 * Debian 12's write_prometheus (libmicrohttpd) refuses its listening
 * socket and every connection numbered 1024 or more.  A plugin that keeps
 * the files of a thousand cgroups open low in the table pushes those
 * sockets up there.  So the plugin leaves the lower half of those numbers
 * to the others: a descriptor it keeps that the kernel numbered from 512
 * to 1023 moves to 1024 or above, where the soft RLIMIT_NOFILE allows (a
 * container runtime's 1,048,576 does; systemd's default of 1024 does not,
 * and the budget of MaxOpenFiles is what keeps room then).  A host that
 * keeps fewer than 512 open pays nothing; above, two system calls when a
 * descriptor is kept, none at a read of a kept one.
 */
#ifndef JC_FD_H
#define JC_FD_H

/* The numbers below this are left as the kernel gives them. */
#define JC_FD_LOW_SHARE 512

/* fd, or the same file moved to a number of FD_SETSIZE or more (fd is
 * closed then, and the new one is close-on-exec); fd as it is when it is
 * below JC_FD_LOW_SHARE or already high, or when no number that high is
 * allowed or free. */
int jc_fd_above_select(int fd);

#endif

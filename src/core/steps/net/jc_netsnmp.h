/*
 * jc_netsnmp — one counter of /proc/<pid>/net/snmp or net/netstat: pairs
 * of lines, "Prefix: Name Name ..." then "Prefix: value value ...", one
 * pair per protocol (Tcp, Udp, TcpExt ...).  Columns are found by name:
 * each kernel release adds some.  Nothing allocates.
 */
#ifndef JC_NETSNMP_H
#define JC_NETSNMP_H

#include <stddef.h>
#include <stdint.h>

/* The value of column `name` of section `prefix` ("Tcp", without the
 * colon) in buf[0..len): 0 with *ret; -ENOENT when the file has no such
 * column (an older kernel); -EBADMSG when its value is missing or not a
 * number; -EOVERFLOW past a DERIVE's 2^63 - 1.  Other columns may hold
 * anything (Tcp MaxConn is -1). */
int jc_netsnmp_find(const char *buf, size_t len, const char *prefix,
                    const char *name, uint64_t *ret);

#endif

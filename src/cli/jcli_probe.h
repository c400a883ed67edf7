/*
 * jcli_probe — `joule-cgroup probe`: whether collectd still sends, read
 * where a Prometheus server reads it (a container's liveness probe).
 */
#ifndef JCLI_PROBE_H
#define JCLI_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* write_prometheus' own default address and port. */
#define JCLI_PROBE_URL "http://127.0.0.1:9103/metrics"
#define JCLI_PROBE_MAX_AGE 30.0

/* What a page of Prometheus' text format says of the plugin's series: how
 * many lines of collectd_joule_cgroup_* there were, and the newest
 * timestamp among them (ms since the epoch; 0: none had one). */
typedef struct {
  size_t series;
  int64_t newest_ms;
  char line[4096]; /* the line being read, carried between pieces */
  size_t len;
  int cut;         /* the line is longer than line[]: not read */
  int status;      /* the HTTP status, 0 until the status line is read */
  int stage;       /* 0: the status line; 1: headers; 2: the body */
  int crlfs;       /* the end of the headers: consecutive line ends */
} jcli_probe_page;

/* Feeds the next piece of the server's answer (status line, headers,
 * body) into p; any piece size. */
void jcli_probe_feed(jcli_probe_page *p, const char *buf, size_t len);
/* The last line, when the answer did not end with one. */
void jcli_probe_end(jcli_probe_page *p);

#endif

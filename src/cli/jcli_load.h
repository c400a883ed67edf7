/*
 * jcli_load — a report of `joule-cgroup run` read back (`compare
 * A.json B.json`, and the fuzz target of the picture): its runs as
 * outcomes, the figures taken from the keys docs/report-schema.md
 * describes, as jcli_measure takes them from a run just made.
 *
 * A report is the document of one run, or of --iterations (its "runs").
 * Anything else is refused with one message: not JSON, not a report, a
 * run without its wall time, nested deeper than any report is, larger
 * than JCLI_LOAD_MAX bytes.  A figure that is null or missing is a figure
 * the host did not give; a number that does not fit a double is refused.
 *
 *   jcli_loaded l;
 *   jcli_load_file(path, &l, why, sizeof(why));   0 or -errno, why set
 *   ... l.run[0 .. l.count - 1] ...
 *   jcli_loaded_release(&l);
 */
#ifndef JCLI_LOAD_H
#define JCLI_LOAD_H

#include "jcli_outcome.h"

#define JCLI_LOAD_MAX (256u << 20)

typedef struct {
  char **command;  /* the first run's, NULL-terminated; NULL when absent */
  long iterations; /* 0: the report of one run */
  jcli_outcome *run;
  size_t count; /* at least 1 */
} jcli_loaded;

int jcli_load_text(const char *text, size_t len, jcli_loaded *ret, char *why,
                   size_t size);
int jcli_load_file(const char *path, jcli_loaded *ret, char *why, size_t size);
void jcli_loaded_release(jcli_loaded *l); /* NULL-safe */

#endif

/*
 * jcli_cmdline — a command's argv shown as a line a shell would take
 * back: the title of run's report, compare's names of its commands.
 */
#ifndef JCLI_CMDLINE_H
#define JCLI_CMDLINE_H

#include <stddef.h>

/* Words joined by spaces, a word with other characters than
 * [A-Za-z0-9_./:=,+@%-] in single quotes; cut at size.  argv
 * NULL-terminated, or NULL: "". */
void jcli_cmdline_text(char *const *argv, char *buf, size_t size);

#endif

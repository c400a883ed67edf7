/*
 * jcli_commands — the subcommands of joule-cgroup.  Each takes its own
 * argv (argv[0] is its name) and returns the process exit status.
 */
#ifndef JCLI_COMMANDS_H
#define JCLI_COMMANDS_H

/* Exit statuses of list, sample and check; run ends with its command's
 * status (jcli_profile.h), run and compare over a budget with 122
 * (jcli_budget.h). */
enum {
  JCLI_EXIT_OK = 0,
  JCLI_EXIT_FAILURE = 1,
  JCLI_EXIT_USAGE = 2,
};

int jcli_list(int argc, char **argv);   /* jcli_list.c */
int jcli_sample(int argc, char **argv); /* jcli_sample.c */
int jcli_run(int argc, char **argv);    /* jcli_run.c */
int jcli_check(int argc, char **argv);  /* jcli_check.c */
int jcli_compare(int argc, char **argv); /* jcli_compare.c */
int jcli_probe(int argc, char **argv);   /* jcli_probe.c */

#endif

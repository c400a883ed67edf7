/*
 * jcli_commands — the subcommands of joule-cgroup.  Each takes its own
 * argv (argv[0] is its name) and returns the process exit status.
 */
#ifndef JCLI_COMMANDS_H
#define JCLI_COMMANDS_H

int jcli_list(int argc, char **argv);   /* jcli_list.c */
int jcli_sample(int argc, char **argv); /* jcli_sample.c */
int jcli_run(int argc, char **argv);    /* jcli_run.c */
int jcli_check(int argc, char **argv);  /* jcli_check.c */
int jcli_compare(int argc, char **argv); /* jcli_compare.c */

#endif

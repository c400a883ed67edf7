/*
 * joule-cgroup — the companion command of the joule_cgroup collectd
 * plugin: the same core (selection, naming, parsing, diffs) without
 * collectd, printing JSON (libyajl).
 *
 *   joule-cgroup list    what a selection picks       (jcli_list.c)
 *   joule-cgroup sample  the metrics, one line each   (jcli_sample.c)
 *   joule-cgroup run     profile one command          (jcli_run.c)
 *   joule-cgroup check   collectd's configuration:    (jcli_check.c)
 *                        the plugin's block checked,
 *                        what it sends here
 *   joule-cgroup compare commands, with confidence   (jcli_compare.c)
 *   joule-cgroup probe   whether collectd still sends (jcli_probe.c)
 *
 * stdout carries JSON only; errors are one line on stderr.
 *
 * Licensed under the MIT license.
 */
#include "jc_version.h" /* this build's version (scripts/version.sh) */

#include "jcli_commands.h"
#include "jcli_opts.h"
#include "jcli_stderr.h"

#include <stdio.h>
#include <string.h>

typedef int (*command_fn)(int argc, char **argv);

static const struct {
  const char *name;
  command_fn run;
} commands[] = {
    {"list", jcli_list},
    {"sample", jcli_sample},
    {"run", jcli_run},
    {"check", jcli_check},
    {"compare", jcli_compare},
    {"probe", jcli_probe},
};

int main(int argc, char **argv) {
  if (argc < 2) {
    jcli_error("missing command (list, sample, run, check, compare or probe); see joule-cgroup --help");
    return JCLI_EXIT_USAGE;
  }
  const char *word = argv[1];
  if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0 ||
      strcmp(word, "help") == 0) {
    jcli_usage(stdout);
    return JCLI_EXIT_OK;
  }
  if (strcmp(word, "--version") == 0) {
    printf("joule-cgroup %s\n", JC_VERSION);
    return JCLI_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
    if (strcmp(word, commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  jcli_error("unknown command \"%s\" (list, sample, run, check, compare or probe); see joule-cgroup "
             "--help",
             word);
  return JCLI_EXIT_USAGE;
}

/*
 * jcli_opts — the command line of a joule-cgroup subcommand.
 *
 * Every subcommand accepts a subset of one set of long options; the
 * selection options go straight into a jc_config (the plugin's own
 * validation), the others into plain fields.  The options are the
 * configuration keys of the plugin where there is one: --root is
 * CgroupRoot, --select Select, --ignore Ignore, --collect Collect,
 * --values Values, --instance-from InstanceFrom, --runtime-root
 * RuntimeRoot, --gpu-library GpuLibrary, --proc-root ProcRoot; --config FILE names a collectd configuration whose
 * <Plugin joule_cgroup> block gives them all (the caller reads it).
 *
 *   jcli_opts o;
 *   r = jcli_opts_parse(&o, "sample", JCLI_OPT_ROOT | ..., argc, argv);
 *   ... take o.cfg (set it to NULL) ...
 *   jcli_opts_release(&o);           frees what was not taken
 */
#ifndef JCLI_OPTS_H
#define JCLI_OPTS_H

#include "jc_config.h"

#include <stdbool.h>
#include <stdio.h>

/* collectd's own configuration (collectd -h: "Config file"): check's
 * default FILE. */
#define JCLI_COLLECTD_CONF "/etc/collectd/collectd.conf"

enum {
  JCLI_OPT_ROOT = 1u << 0,          /* --root DIR */
  JCLI_OPT_SELECT = 1u << 1,        /* --select PAT, --ignore PAT */
  JCLI_OPT_INSTANCE_FROM = 1u << 2, /* --instance-from path|basename|container,
                                       --runtime-root DIR */
  JCLI_OPT_COLLECT = 1u << 3,       /* --collect GROUP */
  JCLI_OPT_INTERVAL = 1u << 4,      /* --interval SEC */
  JCLI_OPT_COUNT = 1u << 5,         /* --count N */
  JCLI_OPT_KEEP = 1u << 6,          /* --keep */
  JCLI_OPT_OUTPUT = 1u << 7,        /* --output FILE */
  JCLI_OPT_COMMAND = 1u << 8,       /* [--] CMD [ARG...] after the options */
  JCLI_OPT_PHASES = 1u << 9,        /* --phases, --token-pattern RE */
  JCLI_OPT_ITERATIONS = 1u << 10,   /* --iterations N */
  JCLI_OPT_FORMAT = 1u << 11,       /* --format json|csv */
  JCLI_OPT_ENERGY = 1u << 12,       /* --powercap-root DIR, --proc-stat FILE,
                                       --cpu-root DIR */
  JCLI_OPT_VALUES = 1u << 13,       /* --values GLOB */
  JCLI_OPT_CONFIG = 1u << 14,       /* --config FILE */
  JCLI_OPT_FILE = 1u << 15,         /* [FILE] after the options */
  /* run and compare: budgets, pictures, comparisons */
  JCLI_OPT_MAX = 1u << 16,       /* --max SPEC */
  JCLI_OPT_PLOT = 1u << 17,      /* --plot FILE, --samples */
  JCLI_OPT_COMPARE = 1u << 18,   /* --warmup K, --max-ratio SPEC */
  JCLI_OPT_OPERANDS = 1u << 19,  /* every argument after the options */
  JCLI_OPT_GPU = 1u << 20,       /* --gpu-library LIB, --proc-root DIR */
};

/* The options a --config FILE gives instead. */
#define JCLI_OPT_BY_CONFIG                                             \
  (JCLI_OPT_SELECT | JCLI_OPT_INSTANCE_FROM | JCLI_OPT_COLLECT |       \
   JCLI_OPT_VALUES | JCLI_OPT_GPU)

typedef enum { JCLI_FORMAT_JSON, JCLI_FORMAT_CSV } jcli_format;

typedef struct {
  const char *root;  /* NULL: the first cgroup2 mount */
  jc_config *cfg;    /* owned until the caller takes it */
  double interval;   /* seconds; 0 when not given */
  long count;        /* 0 when not given */
  bool keep;
  const char *output; /* NULL: stdout */
  char **command;     /* NULL-terminated, into argv; NULL when none */
  bool phases;        /* --phases, or implied by --token-pattern */
  const char *token_pattern; /* checked: it compiles; NULL when not given */
  long iterations;    /* 0 when not given */
  jcli_format format;
  const char *powercap_root; /* NULL: /sys/class/powercap */
  const char *proc_stat;     /* NULL: /proc/stat */
  const char *cpu_root;      /* NULL: /sys/devices/system/cpu */
  const char *gpu_library;   /* GpuLibrary; NULL: libnvidia-ml.so.1 */
  const char *proc_root;     /* ProcRoot; NULL: /proc */
  const char *config;        /* --config FILE; NULL when not given */
  const char *file;          /* [FILE]; NULL when not given */
  unsigned given;            /* the JCLI_OPT_* bits of the options given */
  const char *max, *max_ratio; /* budgets, checked by jcli_budget */
  const char *plot;          /* the picture's file; NULL: none */
  bool samples;
  long warmup;               /* 0 when not given */
  char **operands;           /* JCLI_OPT_OPERANDS: into argv */
  int operand_count;
  bool after_dashes;         /* the operands came after "--" */
  bool help;                 /* --help: the usage was printed, nothing else
                                is to be done */
} jcli_opts;

/*
 * Parses argv (argv[0] is the subcommand's name).  0: parsed, or --help
 * was given and the usage printed (o->help); a negative errno: a usage
 * error was printed (one line, exit status JCLI_EXIT_USAGE).
 */
int jcli_opts_parse(jcli_opts *o, unsigned allowed, int argc, char **argv);
void jcli_opts_release(jcli_opts *o);

/* The usage text of joule-cgroup. */
void jcli_usage(FILE *out);

#endif

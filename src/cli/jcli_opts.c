/*
 * jcli_opts — see jcli_opts.h.
 */
#include "jcli_opts.h"

#include "jcli_markers.h"
#include "jcli_stderr.h"

#include "jc_sample.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* "(cpu memory ...)": the core's Collect groups, the default set first,
 * so that a group the core gains is in the usage with no word here. */
static void put_collect_groups(FILE *out) {
  const char *sep = "(";
  for (int round = 0; round < 2; round++) { /* the default set, the rest */
    unsigned bit;
    const char *word;
    for (size_t i = 0; (word = jc_sample_collect_word(i, &bit)); i++) {
      bool in_default = (bit & JC_COLLECT_DEFAULT) != 0;
      if (in_default == (round == 0)) {
        fprintf(out, "%s%s", sep, word);
        sep = " ";
      }
    }
  }
  fputc(')', out);
}

void jcli_usage(FILE *out) {
  fputs(
      "usage: joule-cgroup list   [--root DIR] [--select PAT]... [--ignore PAT]...\n"
      "                           [--instance-from path|basename|container]\n"
      "                           [--runtime-root DIR]\n"
      "       joule-cgroup sample [--root DIR] [--select PAT]... [--ignore PAT]...\n"
      "                           [--instance-from path|basename|container]\n"
      "                           [--runtime-root DIR] [--collect GROUP]...\n"
      "                           [--values GLOB]... [--interval SEC] [--count N]\n"
      "                           [--gpu-library LIB] [--proc-root DIR]\n"
      "       joule-cgroup sample --config FILE [--root DIR] [--interval SEC]\n"
      "                           [--count N]\n"
      "       joule-cgroup check  [FILE]\n"
      "       joule-cgroup run    [--root DIR] [--interval SEC] [--keep]\n"
      "                           [--phases [--token-pattern RE]]\n"
      "                           [--iterations N] [--format json|csv]\n"
      "                           [--powercap-root DIR] [--proc-stat FILE]\n"
      "                           [--cpu-root DIR] [--gpu-library LIB]\n"
      "                           [--proc-root DIR] [--max FIG=LIMIT,...] [--plot FILE.svg]\n"
      "                           [--samples] [--output FILE] -- CMD [ARG...]\n"
      "       joule-cgroup compare [--iterations N] [--warmup K] [--root DIR]\n"
      "                            [--interval SEC] [--phases [--token-pattern RE]]\n"
      "                            [--format json|csv] [--max-ratio FIG=RATIO,...]\n"
      "                            [--plot FILE.svg] [--samples] [--output FILE]\n"
      "                            [--powercap-root DIR] [--proc-stat FILE]\n"
      "                            [--cpu-root DIR]\n"
      "                            -- CMD_A [ARG...] -- CMD_B [ARG...] [-- ...]\n"
      "       joule-cgroup compare [OPTIONS] A.json B.json [C.json...]\n"
      "       joule-cgroup --help | --version\n"
      "\n"
      "list    the cgroups a selection picks and the instance each gets (JSON)\n"
      "sample  one JSON line per sample with the value lists the plugin sends\n"
      "        for each cgroup (default: every 1 s until interrupted); --config\n"
      "        takes the <Plugin joule_cgroup> block of a collectd configuration\n"
      "check   reads collectd's configuration (default FILE:\n"
      "        " JCLI_COLLECTD_CONF ") as collectd does, checks\n"
      "        the plugin's block with the plugin's own code, and prints each\n"
      "        cgroup it selects here with the value lists it sends; exits 1\n"
      "        on any error\n"
      "run     run CMD in a new cgroup, sample it every --interval (default\n"
      "        0.1 s) and print a report (JSON, or --format csv) of what it\n"
      "        cost when it and its children have exited, beside what the\n"
      "        whole machine spent; --phases splits it at the marker lines\n"
      "        CMD prints (default RE: " JCLI_MARKERS_DEFAULT "); the host's\n"
      "        RAPL energy (--powercap-root, default /sys/class/powercap)\n"
      "        and CMD's part of it by CPU time; its NVIDIA GPUs' memory,\n"
      "        SM use and energy (NVML, --gpu-library); exits with CMD's status,\n"
      "        or 122 when CMD succeeded and --max was exceeded\n"
      "compare run the commands --iterations times (default 10) in turn,\n"
      "        each as run does, and print per figure each one's mean, median,\n"
      "        sd and spread and each one's ratio to the first with a 95 %\n"
      "        interval (JSON, or --format csv), a summary on stderr; or\n"
      "        compare reports of run --iterations; 122 when --max-ratio\n"
      "        is exceeded (FIG: wall cpu memory io energy)\n"
      "\n"
      "Patterns, groups and globs are the plugin's Select, Ignore, Collect\n",
      out);
  put_collect_groups(out);
  fputs(" and Values; see\n"
        "joule-cgroup(1) and joule_cgroup(5).\n",
        out);
}

/* "0.5", "2": seconds, 0.01 to 86400.  -EINVAL when not such a number. */
static int parse_seconds(const char *text, double *ret_seconds) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || *end || !(v >= 0.01 && v <= 86400))
    return -EINVAL;
  *ret_seconds = v;
  return 0;
}

/* A whole number from 1 to LONG_MAX.  -EINVAL when not such a number. */
static int parse_count(const char *text, long *ret_count) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < 1)
    return -EINVAL;
  *ret_count = v;
  return 0;
}

enum {
  KEY_ROOT = 256,
  KEY_SELECT,
  KEY_IGNORE,
  KEY_INSTANCE_FROM,
  KEY_COLLECT,
  KEY_INTERVAL,
  KEY_COUNT,
  KEY_KEEP,
  KEY_OUTPUT,
  KEY_PHASES,
  KEY_TOKEN_PATTERN,
  KEY_ITERATIONS,
  KEY_FORMAT,
  KEY_POWERCAP_ROOT,
  KEY_PROC_STAT,
  KEY_CPU_ROOT,
  KEY_RUNTIME_ROOT,
  KEY_VALUES,
  KEY_CONFIG,
  KEY_MAX,
  KEY_PLOT,
  KEY_SAMPLES,
  KEY_WARMUP,
  KEY_GPU_LIBRARY,
  KEY_PROC_ROOT,
  KEY_MAX_RATIO,
};

static const struct option long_options[] = {
    {"root", required_argument, NULL, KEY_ROOT},
    {"select", required_argument, NULL, KEY_SELECT},
    {"ignore", required_argument, NULL, KEY_IGNORE},
    {"instance-from", required_argument, NULL, KEY_INSTANCE_FROM},
    {"collect", required_argument, NULL, KEY_COLLECT},
    {"interval", required_argument, NULL, KEY_INTERVAL},
    {"count", required_argument, NULL, KEY_COUNT},
    {"keep", no_argument, NULL, KEY_KEEP},
    {"output", required_argument, NULL, KEY_OUTPUT},
    {"phases", no_argument, NULL, KEY_PHASES},
    {"token-pattern", required_argument, NULL, KEY_TOKEN_PATTERN},
    {"iterations", required_argument, NULL, KEY_ITERATIONS},
    {"format", required_argument, NULL, KEY_FORMAT},
    {"powercap-root", required_argument, NULL, KEY_POWERCAP_ROOT},
    {"proc-stat", required_argument, NULL, KEY_PROC_STAT},
    {"cpu-root", required_argument, NULL, KEY_CPU_ROOT},
    {"runtime-root", required_argument, NULL, KEY_RUNTIME_ROOT},
    {"values", required_argument, NULL, KEY_VALUES},
    {"config", required_argument, NULL, KEY_CONFIG},
    {"max", required_argument, NULL, KEY_MAX},
    {"plot", required_argument, NULL, KEY_PLOT},
    {"samples", no_argument, NULL, KEY_SAMPLES},
    {"warmup", required_argument, NULL, KEY_WARMUP},
    {"max-ratio", required_argument, NULL, KEY_MAX_RATIO},
    {"gpu-library", required_argument, NULL, KEY_GPU_LIBRARY},
    {"proc-root", required_argument, NULL, KEY_PROC_ROOT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The JCLI_OPT_* bit that allows an option key. */
static unsigned bit_of(int key) {
  switch (key) {
  case KEY_ROOT: return JCLI_OPT_ROOT;
  case KEY_SELECT:
  case KEY_IGNORE: return JCLI_OPT_SELECT;
  case KEY_INSTANCE_FROM:
  case KEY_RUNTIME_ROOT: return JCLI_OPT_INSTANCE_FROM;
  case KEY_COLLECT: return JCLI_OPT_COLLECT;
  case KEY_INTERVAL: return JCLI_OPT_INTERVAL;
  case KEY_COUNT: return JCLI_OPT_COUNT;
  case KEY_KEEP: return JCLI_OPT_KEEP;
  case KEY_OUTPUT: return JCLI_OPT_OUTPUT;
  case KEY_PHASES:
  case KEY_TOKEN_PATTERN: return JCLI_OPT_PHASES;
  case KEY_ITERATIONS: return JCLI_OPT_ITERATIONS;
  case KEY_FORMAT: return JCLI_OPT_FORMAT;
  case KEY_POWERCAP_ROOT:
  case KEY_PROC_STAT:
  case KEY_CPU_ROOT: return JCLI_OPT_ENERGY;
  case KEY_VALUES: return JCLI_OPT_VALUES;
  case KEY_CONFIG: return JCLI_OPT_CONFIG;
  case KEY_MAX: return JCLI_OPT_MAX;
  case KEY_PLOT:
  case KEY_SAMPLES: return JCLI_OPT_PLOT;
  case KEY_WARMUP:
  case KEY_MAX_RATIO: return JCLI_OPT_COMPARE;
  case KEY_GPU_LIBRARY:
  case KEY_PROC_ROOT: return JCLI_OPT_GPU;
  default: return 0;
  }
}

/* A usage error, said in one line: -EINVAL. */
static int usage_error(const char *command, const char *what, const char *arg) {
  jcli_error("%s: %s \"%s\"; see joule-cgroup --help", command, what, arg);
  return -EINVAL;
}

/* A value refused (here or by the core), said naming the option and the
 * value: -EINVAL. */
static int value_error(const char *option, const char *value, const char *why) {
  jcli_error("--%s \"%s\": %s", option, value, why);
  return -EINVAL;
}

/* The pattern must compile now: a usage error, not a failed run. */
static int set_token_pattern(jcli_opts *o, const char *option, const char *v) {
  char why[256];
  jcli_markers *m = jcli_markers_new(v, why, sizeof(why));
  if (!m)
    return value_error(option, v, why);
  jcli_markers_free(m);
  o->token_pattern = v;
  o->phases = true;
  return 0;
}

/* The options of budgets, pictures and compare. */
static int apply_compare(jcli_opts *o, int key, const char *option,
                         const char *v) {
  switch (key) {
  case KEY_MAX: o->max = v; break;
  case KEY_MAX_RATIO: o->max_ratio = v; break;
  case KEY_PLOT: o->plot = v; break;
  case KEY_SAMPLES: o->samples = true; break;
  case KEY_WARMUP:
    if (strcmp(v, "0") != 0 && parse_count(v, &o->warmup) < 0)
      return value_error(option, v, "must be a whole number, 0 or more");
    break;
  }
  return 0;
}

static int apply(jcli_opts *o, int key, const char *option, const char *v) {
  char why[512];
  int r = 0;
  switch (key) {
  case KEY_ROOT: o->root = v; break;
  case KEY_SELECT: r = jc_config_add_pattern(o->cfg, false, v, why, sizeof(why)); break;
  case KEY_IGNORE: r = jc_config_add_pattern(o->cfg, true, v, why, sizeof(why)); break;
  case KEY_INSTANCE_FROM:
    r = jc_config_set_instance_from(o->cfg, v, why, sizeof(why));
    break;
  case KEY_RUNTIME_ROOT:
    r = jc_config_set_runtime_root(o->cfg, v, why, sizeof(why));
    break;
  case KEY_COLLECT: r = jc_config_add_collect(o->cfg, v, why, sizeof(why)); break;
  case KEY_VALUES: r = jc_config_add_values(o->cfg, v, why, sizeof(why)); break;
  case KEY_CONFIG: o->config = v; break;
  case KEY_INTERVAL:
    if (parse_seconds(v, &o->interval) < 0)
      return value_error(option, v, "must be a number of seconds from 0.01 to 86400");
    break;
  case KEY_COUNT:
    if (parse_count(v, &o->count) < 0)
      return value_error(option, v, "must be a whole number, 1 or more");
    break;
  case KEY_KEEP: o->keep = true; break;
  case KEY_OUTPUT: o->output = v; break;
  case KEY_PHASES: o->phases = true; break;
  case KEY_TOKEN_PATTERN: return set_token_pattern(o, option, v);
  case KEY_ITERATIONS:
    if (parse_count(v, &o->iterations) < 0)
      return value_error(option, v, "must be a whole number, 1 or more");
    break;
  case KEY_FORMAT:
    if (strcmp(v, "json") == 0)
      o->format = JCLI_FORMAT_JSON;
    else if (strcmp(v, "csv") == 0)
      o->format = JCLI_FORMAT_CSV;
    else
      return value_error(option, v, "must be \"json\" or \"csv\"");
    break;
  case KEY_POWERCAP_ROOT: o->powercap_root = v; break;
  case KEY_PROC_STAT: o->proc_stat = v; break;
  case KEY_CPU_ROOT: o->cpu_root = v; break;
  case KEY_GPU_LIBRARY:
    /* checked as GpuLibrary is; the option is kept for run's own cgroup */
    r = jc_config_set_gpu_library(o->cfg, v, why, sizeof(why));
    o->gpu_library = v;
    break;
  case KEY_PROC_ROOT:
    r = jc_config_set_proc_root(o->cfg, v, why, sizeof(why));
    o->proc_root = v;
    break;
  default: return apply_compare(o, key, option, v);
  }
  return r < 0 ? value_error(option, v, why) : 0;
}

/* The positional arguments: run's command, check's file, compare's operands, an error for
 * the others; --config instead of the options it gives. */
static int take_rest(jcli_opts *o, unsigned allowed, int argc, char **argv) {
  if (allowed & JCLI_OPT_OPERANDS) {
    o->operands = argv + optind;
    o->operand_count = argc - optind;
    o->after_dashes = optind > 1 && strcmp(argv[optind - 1], "--") == 0;
    return 0;
  }
  if (o->config && (o->given & JCLI_OPT_BY_CONFIG)) {
    jcli_error("%s: --config takes Select, Ignore, InstanceFrom, Collect, "
               "Values, GpuLibrary and ProcRoot from the file's <Plugin "
               "joule_cgroup> block; give them there, not as options",
               argv[0]);
    return -EINVAL;
  }
  if ((allowed & JCLI_OPT_FILE) && optind < argc)
    o->file = argv[optind++];
  if (!(allowed & JCLI_OPT_COMMAND)) {
    if (optind < argc)
      return usage_error(argv[0], "unexpected argument", argv[optind]);
    return 0;
  }
  if (optind >= argc) {
    jcli_error("%s: missing command; usage: joule-cgroup %s [OPTIONS] -- CMD "
               "[ARG...]",
               argv[0], argv[0]);
    return -EINVAL;
  }
  o->command = argv + optind;
  return 0;
}

int jcli_opts_parse(jcli_opts *o, unsigned allowed, int argc, char **argv) {
  *o = (jcli_opts){.cfg = jc_config_new()};
  if (!o->cfg) {
    jcli_error("out of memory");
    return -ENOMEM;
  }
  opterr = 0; /* our own one-line messages */
  optind = 1;
  for (;;) {
    int index = -1;
    int key = getopt_long(argc, argv, "+:h", long_options, &index);
    if (key == -1)
      break;
    if (key == 'h') {
      jcli_usage(stdout);
      o->help = true;
      return 0;
    }
    if (key == ':')
      return usage_error(argv[0], "missing value for option", argv[optind - 1]);
    if (key == '?')
      return usage_error(argv[0], "unknown option", argv[optind - 1]);
    if (!(allowed & bit_of(key))) {
      char name[64];
      snprintf(name, sizeof(name), "--%s", long_options[index].name);
      return usage_error(argv[0], "option not available here:", name);
    }
    o->given |= bit_of(key);
    int r = apply(o, key, long_options[index].name, optarg);
    if (r < 0)
      return r;
  }
  return take_rest(o, allowed, argc, argv);
}

void jcli_opts_release(jcli_opts *o) {
  jc_config_free(o->cfg);
  o->cfg = NULL;
}

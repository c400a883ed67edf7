/*
 * jcli_compare — `joule-cgroup compare -- CMD_A ... -- CMD_B ...`: is B
 * cheaper than A?  Runs the commands --iterations times each (default
 * 10), in turn and in a rotating order (A B, B A, A B, ...: drift and the
 * cost of going first hit all alike), each run as `run` makes it (its
 * own cgroup, jcli_profile), after --warmup runs of each that are not
 * counted.  Or, given report files instead (`compare A.json B.json`),
 * compares the runs of reports made with `run --iterations` (jcli_load).
 * Then prints what jcli_contrast says: JSON or CSV on stdout (or
 * --output), the summary on stderr; --max-ratio gates it (jcli_budget)
 * and --plot draws each command's run of the median wall time.
 *
 * The commands are separated by "--" arguments: a command that needs a
 * "--" argument of its own goes through `sh -c`.
 *
 * Exit status: 2 for a usage error, 1 for a report that cannot be read;
 * else 125 when the report cannot be written, else the first status
 * other than 0 of a command, else 125 when the picture cannot be drawn,
 * else JCLI_EXIT_OVER_BUDGET when --max-ratio is exceeded, else 0.
 */
#include "jcli_budget.h"
#include "jcli_cmdline.h"
#include "jcli_commands.h"
#include "jcli_contrast.h"
#include "jcli_grow.h"
#include "jcli_load.h"
#include "jcli_measure.h"
#include "jcli_opts.h"
#include "jcli_plot.h"
#include "jcli_session.h"
#include "jcli_stderr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ITERATIONS 10
#define COMMANDS_MAX 26 /* labels A to Z */
#define LEVEL 0.95

typedef struct {
  jcli_contender c;
  jcli_outcome *runs; /* owned; c.run points here */
  size_t cap;
  jcli_loaded loaded; /* reports mode: owns the runs instead */
} entrant;

typedef struct {
  jcli_opts opts;
  jcli_session session;
  bool from_reports;
  jcli_budget budget; /* --max-ratio */
  jcli_budget_check check;
  entrant e[COMMANDS_MAX];
  size_t n;
  long iterations;
} compare_state;

/* ---- the command line ---------------------------------------------------- */

static void label(entrant *e, size_t i) {
  snprintf(e->c.label, sizeof(e->c.label), "%c", (char)('A' + i));
}

/* The operands split at each "--" (replaced by NULL in argv, so that
 * each command is a NULL-terminated argv of its own). */
static int split_commands(compare_state *s) {
  char **w = s->opts.operands;
  int n = s->opts.operand_count, start = 0;
  for (int i = 0; i <= n; i++) {
    if (i < n && strcmp(w[i], "--") != 0)
      continue;
    if (i == start) {
      jcli_error("compare: an empty command (two \"--\" in a row, or one at "
                 "the end); usage: joule-cgroup compare [OPTIONS] -- CMD_A "
                 "[ARG...] -- CMD_B [ARG...]");
      return -EINVAL;
    }
    if (s->n == COMMANDS_MAX) {
      jcli_error("compare: more than %d commands", COMMANDS_MAX);
      return -E2BIG;
    }
    if (i < n)
      w[i] = NULL; /* ends this command's argv */
    entrant *e = &s->e[s->n];
    label(e, s->n++);
    e->c.command = w + start;
    start = i + 1;
  }
  return 0;
}

/* Options that only running commands uses, given with reports. */
static const char *run_only_option(const jcli_opts *o) {
  return o->iterations      ? "--iterations"
         : o->warmup        ? "--warmup"
         : o->root          ? "--root"
         : o->interval > 0  ? "--interval"
         : o->phases        ? "--phases"
         : o->powercap_root ? "--powercap-root"
         : o->proc_stat     ? "--proc-stat"
                            : NULL;
}

static int check_usage(compare_state *s) {
  char why[256];
  const jcli_opts *o = &s->opts;
  s->from_reports = !o->after_dashes;
  if (s->from_reports && run_only_option(o)) {
    jcli_error("compare: %s is for running commands, not for reports; usage: "
               "joule-cgroup compare [OPTIONS] -- CMD_A ... -- CMD_B ...",
               run_only_option(o));
    return -EINVAL;
  }
  int r = s->from_reports ? 0 : split_commands(s);
  if (r < 0)
    return r;
  size_t given = s->from_reports ? (size_t)o->operand_count : s->n;
  if (given < 2) {
    jcli_error("compare: two commands or reports or more, not %zu; usage: "
               "joule-cgroup compare [OPTIONS] -- CMD_A ... -- CMD_B ..., or "
               "joule-cgroup compare A.json B.json",
               given);
    return -EINVAL;
  }
  if (given > COMMANDS_MAX) {
    jcli_error("compare: more than %d reports", COMMANDS_MAX);
    return -E2BIG;
  }
  s->iterations = o->iterations ? o->iterations : DEFAULT_ITERATIONS;
  if (o->max_ratio && (r = jcli_budget_parse(o->max_ratio, true, &s->budget,
                                             why, sizeof(why))) < 0) {
    jcli_error("--max-ratio \"%s\": %s", o->max_ratio, why);
    return r;
  }
  if (o->max_ratio && !s->from_reports && s->iterations < 2) {
    jcli_error("--max-ratio needs --iterations 2 or more: an interval needs "
               "two runs of each command");
    return -EINVAL;
  }
  return 0;
}

/* ---- running ------------------------------------------------------------- */

static jcli_outcome *next_run(entrant *e) {
  jcli_outcome *grown = jcli_grow(e->runs, e->c.count, &e->cap, sizeof(*grown));
  if (!grown)
    return NULL;
  e->runs = grown;
  e->c.run = grown;
  return &grown[e->c.count];
}

/* One run of e's command; kept (as an outcome) unless a warmup.  0, or
 * the JCLI_EXIT_* status of a run that could not be made. */
static int run_one(compare_state *s, entrant *e, bool keep, bool *interrupted,
                   int *status) {
  jcli_profile_env env = s->session.env;
  env.command = e->c.command;
  jcli_result res;
  int failed = jcli_profile_run(&env, &res, interrupted);
  if (!failed && keep) {
    jcli_run_info info = {
        .command = e->c.command,
        .interval = env.interval,
        .names = &s->session.reader.names,
        .energy = &s->session.reader.energy.zones,
    };
    jcli_outcome *o = next_run(e);
    if (!o || jcli_measure(&info, &res, o) < 0) {
      jcli_error("out of memory after %zu runs of %s", e->c.count, e->c.label);
      failed = JCLI_EXIT_RUN_FAILED;
    } else {
      e->c.count++;
      if (*status == 0)
        *status = res.exit_status;
    }
  }
  jcli_result_release(&res);
  return failed;
}

/* The warmup, then the iterations, each round starting one command
 * further.  A forwarded signal ends it after the run it reached. */
static int run_all(compare_state *s, int *status) {
  bool interrupted = false;
  long rounds = s->opts.warmup + s->iterations;
  for (long r = 0; r < rounds && !interrupted; r++)
    for (size_t k = 0; k < s->n && !interrupted; k++) {
      entrant *e = &s->e[((size_t)r + k) % s->n];
      int failed = run_one(s, e, r >= s->opts.warmup, &interrupted, status);
      if (failed)
        return failed;
    }
  for (size_t k = 0; k < s->n; k++)
    if (s->e[k].c.count == 0) {
      jcli_error("compare: interrupted before a run of %s was made",
                 s->e[k].c.label);
      return JCLI_EXIT_RUN_FAILED;
    }
  return 0;
}

static int load_all(compare_state *s) {
  for (int i = 0; i < s->opts.operand_count; i++) {
    entrant *e = &s->e[s->n];
    char why[512];
    const char *path = s->opts.operands[i];
    int r = jcli_load_file(path, &e->loaded, why, sizeof(why));
    if (r < 0) {
      jcli_error("compare: %s: %s", path, why);
      return r;
    }
    label(e, s->n++);
    e->c.command = e->loaded.command;
    e->c.report = path;
    e->c.run = e->loaded.run;
    e->c.count = e->loaded.count;
  }
  return 0;
}

/* ---- the report ---------------------------------------------------------- */

static void check_budget(compare_state *s) {
  jcli_budget_check_init(&s->check, true);
  for (size_t k = 1; k < s->n; k++)
    for (int f = 0; f < JCLI_FIG_COUNT; f++) {
      jcli_stats_ratio q;
      bool have = jcli_contrast_ratio(&s->e[0].c, &s->e[k].c, NULL, (jcli_fig)f,
                                      LEVEL, &q);
      jcli_budget_check_ratio(&s->budget, s->e[k].c.label, s->e[0].c.label,
                              (jcli_fig)f, have ? &q : NULL, s->e[k].c.count,
                              &s->check);
    }
}

static int print_report(compare_state *s, const jcli_contender *c, int fd) {
  jcli_contrast_info info = {
      .level = LEVEL,
      .iterations = s->from_reports ? 0 : s->iterations,
      .warmup = s->opts.warmup,
      .samples = s->opts.samples,
      .budget = s->opts.max_ratio ? &s->check : NULL,
  };
  int r;
  if (s->opts.format == JCLI_FORMAT_CSV) {
    r = jcli_contrast_csv(&info, c, s->n, fd);
  } else {
    jcli_json *j = jcli_json_new(true);
    if (!j)
      return -ENOMEM;
    jcli_contrast_json(&info, c, s->n, j);
    r = jcli_json_write(j, fd);
    jcli_json_free(j);
  }
  if (r < 0)
    jcli_error("cannot write the report: %s", strerror(-r));
  jcli_contrast_summary(&info, c, s->n);
  return r;
}

/* Each command's run of the median wall time, one strip each. */
static int draw(compare_state *s) {
  jcli_plot_strip strip[COMMANDS_MAX];
  char title[COMMANDS_MAX][320];
  for (size_t k = 0; k < s->n; k++) {
    const jcli_contender *c = &s->e[k].c;
    size_t i = jcli_outcome_median_run(c->run, c->count);
    if (c->run[i].point_count < 2) {
      jcli_error("--plot \"%s\": %s has no samples%s", s->opts.plot, c->label,
                 c->report ? ": make its report with run --samples" : "");
      return -ENODATA;
    }
    char text[256];
    jcli_cmdline_text(c->command, text, sizeof(text));
    snprintf(title[k], sizeof(title[k]),
             "%s, run %zu of %zu (the median "
             "wall time): %s",
             c->label, i + 1, c->count, text);
    strip[k] = (jcli_plot_strip){title[k], &c->run[i]};
  }
  int r = jcli_plot_file(s->opts.plot, strip, s->n, "joule-cgroup compare");
  if (r < 0)
    jcli_error("--plot \"%s\": %s", s->opts.plot, strerror(-r));
  return r;
}

static int report(compare_state *s, int status) {
  jcli_contender c[COMMANDS_MAX];
  for (size_t k = 0; k < s->n; k++)
    c[k] = s->e[k].c;
  if (s->opts.max_ratio)
    check_budget(s);
  if (print_report(s, c, s->session.outfd) < 0)
    return JCLI_EXIT_RUN_FAILED;
  if (s->opts.max_ratio)
    jcli_budget_print(&s->check);
  if (!s->from_reports)
    jcli_energy_print_notes(&s->session.reader.energy);
  bool drawn = !s->opts.plot || draw(s) == 0;
  return jcli_budget_exit_status(status, drawn,
                                 s->opts.max_ratio ? &s->check : NULL);
}

static void release(compare_state *s) {
  jcli_session_close(&s->session);
  for (size_t k = 0; k < s->n; k++) {
    entrant *e = &s->e[k];
    for (size_t i = 0; e->runs && i < e->c.count; i++)
      jcli_outcome_release(&e->runs[i]);
    free(e->runs);
    jcli_loaded_release(&e->loaded);
  }
  jcli_opts_release(&s->opts);
}

int jcli_compare(int argc, char **argv) {
  compare_state s = {.session = {.rootfd = -1,
                                 .sigfd = -1,
                                 .outfd = -1,
                                 .reader = {.meminfo_fd = -1}}};
  int r = jcli_opts_parse(
      &s.opts,
      JCLI_OPT_ROOT | JCLI_OPT_INTERVAL | JCLI_OPT_OUTPUT | JCLI_OPT_OPERANDS |
          JCLI_OPT_PHASES | JCLI_OPT_ITERATIONS | JCLI_OPT_FORMAT |
          JCLI_OPT_ENERGY | JCLI_OPT_PLOT | JCLI_OPT_COMPARE,
      argc, argv);
  if (r == 0 && !s.opts.help)
    r = check_usage(&s);
  if (r < 0 || s.opts.help) {
    jcli_opts_release(&s.opts);
    return r < 0 ? JCLI_EXIT_USAGE : JCLI_EXIT_OK;
  }
  int status = 0;
  if (s.from_reports) {
    /* no session for reports: their output only */
    status = load_all(&s) < 0 ||
                     jcli_session_open_output(&s.session, s.opts.output) < 0
                 ? JCLI_EXIT_FAILURE
                 : report(&s, 0);
  } else if (jcli_session_open(&s.session, &s.opts) < 0) {
    status = JCLI_EXIT_RUN_FAILED;
  } else {
    int failed = run_all(&s, &status);
    status = failed ? failed : report(&s, status);
  }
  release(&s);
  return status;
}

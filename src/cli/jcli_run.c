/*
 * jcli_run — `joule-cgroup run -- CMD`: the joule-profiler job.  Sets up
 * what every run of CMD shares (jcli_session: the root, the signals, the
 * output, the reader of the figures), runs CMD once or --iterations times
 * (jcli_profile), and prints the report: JSON (jcli_report) or CSV
 * (jcli_csv), after CMD's own output on stdout or into --output.
 *
 * --max holds the run (the median of its iterations) to a budget
 * (jcli_budget), --plot draws it (jcli_plot, the run of the median wall
 * time), --samples keeps every reading in the report.
 *
 * Exit status: CMD's; with --iterations the first status that was not 0;
 * when CMD succeeded and a budget was exceeded, JCLI_EXIT_OVER_BUDGET.
 * A forwarded signal (SIGINT, SIGTERM, ...) ends the iterations after the
 * run it reached, and the report of the runs made is still printed.
 */
#include "jcli_budget.h"
#include "jcli_cmdline.h"
#include "jcli_commands.h"
#include "jcli_csv.h"
#include "jcli_grow.h"
#include "jcli_json.h"
#include "jcli_measure.h"
#include "jcli_opts.h"
#include "jcli_plot.h"
#include "jcli_profile.h"
#include "jcli_report.h"
#include "jcli_session.h"
#include "jcli_stderr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  jcli_opts opts;
  jcli_session session;
  jcli_budget budget; /* --max */
  jcli_budget_check check;
  jcli_result *results; /* the runs made, grown as they are made */
  size_t runs; /* to make: --iterations, or 1 */
  size_t done, cap;
  jcli_outcome *outcomes; /* of the runs made, for --max and --plot */
} run_state;

/* ---- the report ---------------------------------------------------------- */

static jcli_run_info run_info(const run_state *s) {
  return (jcli_run_info){
      .command = s->opts.command,
      .interval = s->session.env.interval,
      .global_cgroup = s->session.top,
      .token_pattern = s->session.env.token_pattern,
      .names = &s->session.reader.names,
      .iterations = s->opts.iterations,
      .energy = &s->session.reader.energy.zones,
      .gpus = &s->session.reader.gpus,
      .budget = s->opts.max ? &s->check : NULL,
  };
}

static int print_report(run_state *s) {
  jcli_run_info info = run_info(s);
  int fd = s->session.outfd, r;
  if (s->opts.format == JCLI_FORMAT_CSV) {
    r = jcli_csv_write(&info, s->results, s->done, fd);
  } else {
    jcli_json *j = jcli_json_new(true);
    if (!j) {
      jcli_error("out of memory");
      return -ENOMEM;
    }
    if (s->opts.iterations)
      jcli_report_iterations_json(&info, s->results, s->done, j);
    else
      jcli_report_json(&info, &s->results[0], j);
    r = jcli_json_write(j, fd);
    jcli_json_free(j);
  }
  if (r < 0)
    jcli_error("cannot write the report: %s", strerror(-r));
  jcli_energy_print_notes(&s->session.reader.energy); /* why energy is null */
  return r;
}

/* The runs as outcomes, for the budget and the picture.  0, or a
 * negative errno after an error line. */
static int measure_all(run_state *s) {
  if (!s->opts.max && !s->opts.plot)
    return 0;
  jcli_run_info info = run_info(s);
  s->outcomes = calloc(s->done, sizeof(*s->outcomes));
  int r = s->outcomes ? 0 : -ENOMEM;
  for (size_t i = 0; r == 0 && i < s->done; i++)
    r = jcli_measure(&info, &s->results[i], &s->outcomes[i]);
  if (r < 0)
    jcli_error("out of memory");
  return r;
}

/* The run whose wall time is the median, drawn. */
static int draw(run_state *s) {
  char title[256], head[512];
  size_t i = jcli_outcome_median_run(s->outcomes, s->done);
  jcli_cmdline_text(s->opts.command, title, sizeof(title));
  if (s->done > 1)
    snprintf(head, sizeof(head), "run %zu of %zu (the median wall time): %s",
             i + 1, s->done, title);
  else
    snprintf(head, sizeof(head), "%s", title);
  jcli_plot_strip strip = {head, &s->outcomes[i]};
  int r = jcli_plot_file(s->opts.plot, &strip, 1, "joule-cgroup run");
  if (r == -EINVAL)
    jcli_error("--plot \"%s\": fewer than two samples: nothing to draw",
               s->opts.plot);
  else if (r < 0)
    jcli_error("--plot \"%s\": %s", s->opts.plot, strerror(-r));
  return r;
}

/* Room for one more run's result. */
static jcli_result *next_result(run_state *s) {
  jcli_result *grown = jcli_grow(s->results, s->done, &s->cap, sizeof(*grown));
  if (!grown)
    return NULL;
  s->results = grown;
  return &s->results[s->done];
}

/* Every iteration; the first status that was not 0. */
static int run_iterations(run_state *s, int *ret_status) {
  bool interrupted = false;
  jcli_profile_env env = s->session.env;
  env.command = s->opts.command;
  *ret_status = 0;
  while (s->done < s->runs && !interrupted) {
    jcli_result *res = next_result(s);
    if (!res) {
      jcli_error("out of memory after %zu runs", s->done);
      return JCLI_EXIT_RUN_FAILED;
    }
    int failed = jcli_profile_run(&env, res, &interrupted);
    if (failed) { /* the error is said; no report of a partial set */
      jcli_result_release(res);
      return failed;
    }
    s->done++;
    if (*ret_status == 0)
      *ret_status = res->exit_status;
  }
  return 0;
}

/* Every iteration, then the budget, the report and the picture.  The
 * exit status of `run`: the report not written 125; else CMD's first
 * failure; else the picture not drawn 125; else over budget. */
static int run_all(run_state *s) {
  int status;
  int failed = run_iterations(s, &status);
  if (failed)
    return failed;
  if (measure_all(s) < 0)
    return JCLI_EXIT_RUN_FAILED;
  if (s->opts.max)
    jcli_budget_check_runs(&s->budget, s->outcomes, s->done, &s->check);
  if (print_report(s) < 0)
    return JCLI_EXIT_RUN_FAILED;
  if (s->opts.max)
    jcli_budget_print(&s->check);
  bool drawn = !s->opts.plot || draw(s) == 0;
  return jcli_budget_exit_status(status, drawn, s->opts.max ? &s->check : NULL);
}

static void release(run_state *s) {
  jcli_session_close(&s->session);
  for (size_t i = 0; i < s->done; i++) {
    jcli_result_release(&s->results[i]);
    if (s->outcomes)
      jcli_outcome_release(&s->outcomes[i]);
  }
  free(s->results);
  free(s->outcomes);
  jcli_opts_release(&s->opts);
}

int jcli_run(int argc, char **argv) {
  run_state s = {.session = {.rootfd = -1, .sigfd = -1, .outfd = -1,
                             .reader = {.meminfo_fd = -1}}};
  int r = jcli_opts_parse(&s.opts,
                          JCLI_OPT_ROOT | JCLI_OPT_INTERVAL | JCLI_OPT_KEEP |
                              JCLI_OPT_OUTPUT | JCLI_OPT_COMMAND |
                              JCLI_OPT_PHASES | JCLI_OPT_ITERATIONS |
                              JCLI_OPT_FORMAT | JCLI_OPT_ENERGY |
                              JCLI_OPT_MAX | JCLI_OPT_PLOT | JCLI_OPT_GPU,
                          argc, argv);
  char why[256];
  if (r == 0 && !s.opts.help && s.opts.max &&
      (r = jcli_budget_parse(s.opts.max, false, &s.budget, why, sizeof(why))) <
          0)
    jcli_error("--max \"%s\": %s", s.opts.max, why);
  if (r < 0 || s.opts.help) {
    jcli_opts_release(&s.opts);
    return r < 0 ? JCLI_EXIT_USAGE : JCLI_EXIT_OK;
  }
  s.runs = s.opts.iterations ? (size_t)s.opts.iterations : 1;
  int status = JCLI_EXIT_RUN_FAILED;
  if (jcli_session_open(&s.session, &s.opts) == 0) {
    s.session.env.gpu = true; /* run reports the GPUs; compare does not */
    status = run_all(&s);
  }
  release(&s);
  return status;
}

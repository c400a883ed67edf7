/* Unit tests of what `compare`, the budgets and the picture make of runs,
 * on outcomes written here (no program run, no kernel): --max and
 * --max-ratio read, checked (a figure not measured is a breach, the
 * median of iterations, an interval wholly above the limit) and the exit
 * status they give; reports that are not reports refused with their one
 * message; the JSON and CSV of a comparison and the ratios in them; the
 * SVG of runs whose samples are out of order, huge or missing. */
#include "jcli_budget.h"
#include "jcli_contrast.h"
#include "jcli_load.h"
#include "jcli_plot.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- budgets ------------------------------------------------------------ */

static void test_budget_parse(void) {
  jcli_budget b;
  char err[256] = "";
  ok(jcli_budget_parse("cpu=2.5s,memory=512MiB,energy=40J,wall=10s", false,
                       &b, err, sizeof(err)) == 0 &&
         b.set[JCLI_FIG_CPU] && b.limit[JCLI_FIG_CPU] == 2.5 &&
         b.limit[JCLI_FIG_MEMORY] == 512.0 * 1048576 &&
         b.limit[JCLI_FIG_ENERGY] == 40 && b.limit[JCLI_FIG_WALL] == 10 &&
         !b.set[JCLI_FIG_IO],
     "the issue's own --max: cpu 2.5 s, memory 512 MiB, energy 40 J, wall "
     "10 s (%s)",
     err);
  ok(jcli_budget_parse("cpu=250ms,io=1GB,memory=2G,energy=1Wh,wall=1.5min",
                       false, &b, err, sizeof(err)) == 0 &&
         b.limit[JCLI_FIG_CPU] == 0.25 && b.limit[JCLI_FIG_IO] == 1e9 &&
         b.limit[JCLI_FIG_MEMORY] == 2.0 * (1 << 30) &&
         b.limit[JCLI_FIG_ENERGY] == 3600 && b.limit[JCLI_FIG_WALL] == 90,
     "units: ms, GB (decimal), G (binary, as memory.max), Wh, min");
  ok(jcli_budget_parse("memory=1000000", false, &b, err, sizeof(err)) == 0 &&
         b.limit[JCLI_FIG_MEMORY] == 1e6,
     "a plain number is in the figure's unit (bytes)");
  static const struct {
    const char *spec;
    bool ratio;
    const char *says;
  } bad[] = {
      {"cpu=2.5x", false, "cpu: unknown unit \"x\""},
      {"cpu=2.5x", false, "(use s, ms, us, min, h)"},
      {"power=3W", false, "unknown figure \"power\""},
      {"cpu=1s,cpu=2s", false, "cpu is given twice"},
      {"cpu", false, "cpu: no value"},
      {"cpu=-1s", false, "is not a number, 0 or more"},
      {"", false, "no figure"},
      {"cpu=0", true, "is not a ratio above 0"},
      {"cpu=1.05s", true, "a ratio is a plain number"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    err[0] = '\0';
    int r = jcli_budget_parse(bad[i].spec, bad[i].ratio, &b, err, sizeof(err));
    ok(r == -EINVAL && strstr(err, bad[i].says),
       "%s \"%s\" refused: %s", bad[i].ratio ? "--max-ratio" : "--max",
       bad[i].spec, err);
  }
  ok(jcli_budget_parse("cpu=1.05,memory=1.1", true, &b, err, sizeof(err)) ==
             0 &&
         b.ratio && b.limit[JCLI_FIG_CPU] == 1.05,
     "--max-ratio cpu=1.05,memory=1.1");
}

static jcli_outcome run_of(double wall, double cpu, bool memory, double mem) {
  jcli_outcome o = {.interval = 0.1};
  jcli_figset_set(&o.fig, JCLI_FIG_WALL, true, wall);
  jcli_figset_set(&o.fig, JCLI_FIG_CPU, true, cpu);
  jcli_figset_set(&o.fig, JCLI_FIG_MEMORY, memory, mem);
  return o;
}

static void test_budget_check(void) {
  jcli_budget b;
  char err[256];
  jcli_budget_check c;
  jcli_outcome runs[3] = {run_of(1, 3.0, true, 100), run_of(2, 2.0, true, 50),
                          run_of(3, 2.4, true, 70)};
  jcli_budget_parse("cpu=2.5s,wall=10s", false, &b, err, sizeof(err));
  jcli_budget_check_runs(&b, runs, 3, &c);
  ok(c.count == 2 && c.breaches == 0 && c.item[1].fig == JCLI_FIG_CPU &&
         c.item[1].value == 2.4 && c.item[1].runs == 3,
     "three runs: the median CPU time 2.4 s is within 2.5 s (one run is over)");
  is_int(jcli_budget_exit_status(0, true, &c), 0, "within budget: status 0");
  jcli_budget_parse("cpu=2.3s", false, &b, err, sizeof(err));
  jcli_budget_check_runs(&b, runs, 3, &c);
  ok(c.breaches == 1 && c.item[0].over, "median 2.4 s over 2.3 s: a breach");
  is_int(jcli_budget_exit_status(0, true, &c), JCLI_EXIT_OVER_BUDGET,
         "over budget: status 122");
  is_int(jcli_budget_exit_status(3, true, &c), 3,
         "the command failed (3): its status first");
  is_int(jcli_budget_exit_status(0, false, &c), 125,
         "the picture not drawn: 125 before the budget");
  is_int(jcli_budget_exit_status(0, true, NULL), 0, "no budget: 0");

  jcli_outcome hybrid[2] = {run_of(1, 1, false, 0), run_of(1, 1, true, 10)};
  jcli_budget_parse("memory=1GiB", false, &b, err, sizeof(err));
  jcli_budget_check_runs(&b, hybrid, 2, &c);
  ok(c.breaches == 1 && !c.item[0].measured,
     "memory not measured in one of the runs: a breach, never a pass");

  jcli_budget_parse("cpu=1.05", true, &b, err, sizeof(err));
  jcli_budget_check_init(&c, true);
  jcli_stats_ratio worse = {.ratio = 1.2, .have_interval = true,
                            .bounded = true, .low = 1.1, .high = 1.3};
  jcli_stats_ratio unsure = {.ratio = 1.2, .have_interval = true,
                             .bounded = true, .low = 1.01, .high = 1.4};
  jcli_stats_ratio open = {.ratio = 1.2, .have_interval = true};
  jcli_budget_check_ratio(&b, "B", "A", JCLI_FIG_CPU, &worse, 10, &c);
  jcli_budget_check_ratio(&b, "C", "A", JCLI_FIG_CPU, &unsure, 10, &c);
  jcli_budget_check_ratio(&b, "D", "A", JCLI_FIG_CPU, &open, 10, &c);
  jcli_budget_check_ratio(&b, "E", "A", JCLI_FIG_CPU, NULL, 10, &c);
  jcli_budget_check_ratio(&b, "F", "A", JCLI_FIG_WALL, &worse, 10, &c);
  ok(c.count == 4 && c.item[0].over && !c.item[1].over && !c.item[2].over &&
         !c.item[3].measured && c.breaches == 2,
     "--max-ratio cpu=1.05: interval 1.1-1.3 over; 1.01-1.4 not (not "
     "significantly above 1.05); unbounded not; unknown a breach; wall not "
     "budgeted");
}

/* ---- reports that are not reports ---------------------------------------- */

static void test_load_errors(void) {
  static const struct {
    const char *text, *says;
  } bad[] = {
      {"", "not JSON"},
      {"hello", "not JSON"},
      {"[1, 2]", "not an object"},
      {"{\"command\": [\"x\"]}", "run 1: no wall_seconds"},
      {"{\"iterations\": 2, \"runs\": []}", "no runs in the report"},
      {"{\"runs\": [{\"wall_seconds\": 1}, {\"cpu\": null}]}",
       "run 2: no wall_seconds"},
      {"{\"wall_seconds\": 1, \"phases\": [{\"name\": \"a\"}]}",
       "run 1, phase 1: no name, start_seconds or wall_seconds"},
      {"{\"wall_seconds\": 1e999}", "no wall_seconds"},
      {"{\"wall_seconds\": 1} trailing", "not JSON"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    jcli_loaded l;
    char err[256] = "";
    int r = jcli_load_text(bad[i].text, strlen(bad[i].text), &l, err,
                           sizeof(err));
    ok(r < 0 && strstr(err, bad[i].says) && l.count == 0,
       "refused: '%s': %s", bad[i].text, err);
  }
  char deep[400];
  memset(deep, '[', sizeof(deep));
  jcli_loaded l;
  char err[256] = "";
  ok(jcli_load_text(deep, sizeof(deep), &l, err, sizeof(err)) == -EINVAL &&
         strstr(err, "nested deeper than 64"),
     "400 '[': refused before parsing: %s", err);
  const char *lenient = "{\"wall_seconds\": 2, \"cpu\": {\"usage_usec\": "
                        "\"x\"}, \"memory\": {\"current\": {\"max\": 7}}, "
                        "\"io\": {\"read_bytes\": 1}, \"series\": [{\"t\": 0},"
                        " {\"kind\": \"tick\"}, {\"t\": 1, \"kind\": \"odd\"}]}";
  ok(jcli_load_text(lenient, strlen(lenient), &l, err, sizeof(err)) == 0 &&
         l.count == 1 && !l.run[0].fig.have[JCLI_FIG_CPU] &&
         l.run[0].fig.v[JCLI_FIG_MEMORY] == 7 &&
         !l.run[0].fig.have[JCLI_FIG_IO] && l.run[0].point_count == 2 &&
         l.run[0].point[1].kind == JCLI_POINT_TICK && !l.command,
     "a figure of the wrong type, half an io, a sample without time: left "
     "out, the rest read");
  jcli_loaded_release(&l);
  ok(jcli_load_file("/nonexistent/a.json", &l, err, sizeof(err)) == -ENOENT &&
         strstr(err, "No such file"),
     "a missing file: %s", err);
}

/* ---- the comparison --------------------------------------------------------- */

static char *slurp_fd(int fd) {
  static char buf[1 << 17];
  ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);
  buf[len > 0 ? len : 0] = '\0';
  return buf;
}

static void test_contrast(void) {
  jcli_outcome a[4], b[4];
  static const double ca[] = {1.0, 1.1, 0.9, 1.0}, cb[] = {2.0, 2.2, 1.8, 2.0};
  for (int i = 0; i < 4; i++) {
    a[i] = run_of(1, ca[i], false, 0);
    b[i] = run_of(1, cb[i], false, 0);
  }
  b[3].exit_status = 4;
  char *argv_a[] = {"sh", "-c", "echo a", NULL}, *argv_b[] = {"b", NULL};
  jcli_contender c[2] = {{"A", argv_a, NULL, a, 4}, {"B", argv_b, NULL, b, 4}};
  jcli_stats_ratio q;
  ok(jcli_contrast_ratio(&c[0], &c[1], NULL, JCLI_FIG_CPU, 0.95, &q) &&
         fabs(q.ratio - 2) < 1e-12 && q.significant && q.low < 2 &&
         q.high > 2,
     "B's CPU time 2x A's: %.3f (%.3f-%.3f), significant", q.ratio, q.low,
     q.high);
  ok(jcli_contrast_ratio(&c[0], &c[1], NULL, JCLI_FIG_WALL, 0.95, &q) &&
         q.ratio == 1 && !q.significant,
     "the same wall time: ratio 1, not significant");
  ok(!jcli_contrast_ratio(&c[0], &c[1], NULL, JCLI_FIG_MEMORY, 0.95, &q),
     "no memory figures: no ratio");
  ok(!jcli_contrast_ratio(&c[0], &c[1], "no such phase", JCLI_FIG_CPU, 0.95,
                          &q),
     "a phase neither has: no ratio");

  jcli_contrast_info info = {.level = 0.95, .iterations = 4, .warmup = 1};
  jcli_json *j = jcli_json_new(false);
  jcli_contrast_json(&info, c, 2, j);
  FILE *f = tmpfile();
  ok(jcli_json_write(j, fileno(f)) == 0, "the JSON comparison is complete");
  jcli_json_free(j);
  char *text = slurp_fd(fileno(f));
  ok(strstr(text, "{\"iterations\":4,\"warmup\":1,\"order\":\"interleaved\","
                  "\"confidence\":0.95,\"interval\":\"fieller-welch\","
                  "\"commands\":[{\"label\":\"A\",\"command\":[\"sh\",\"-c\","
                  "\"echo a\"],\"report\":null,\"runs\":4,"
                  "\"exit_statuses\":[0,0,0,0],\"figures\":{\"wall_seconds\""
                  ":{\"n\":4,\"mean\":1,\"median\":1,\"sd\":0,\"min\":1,"
                  "\"max\":1,\"cv\":0,\"values\":[1,1,1,1]},"
                  "\"cpu_seconds\":{\"n\":4,\"mean\":1,\"median\":1,"
                  "\"sd\":0.08165,\"min\":0.9,\"max\":1.1,\"cv\":0.08165,"
                  "\"values\":[1,1.1,0.9,1]},\"memory_peak_bytes\":null,") ==
         text,
     "JSON: the comparison's frame, then each command: its values in run "
     "order, mean, median, sd, spread");
  ok(strstr(text, "\"ratios\":[{\"label\":\"B\",\"against\":\"A\",\"figures\":"
                  "{\"wall_seconds\":{\"ratio\":1,\"low\":1,\"high\":1,"
                  "\"p_value\":1,\"significant\":false,\"df\":null},"
                  "\"cpu_seconds\":{\"ratio\":2,") != NULL,
     "JSON: B against A per figure");
  ok(strstr(text, "\"notes\":[\"B: 1 of its 4 runs exited with a status other "
                  "than 0\"]}") != NULL,
     "JSON: a note for a run that failed");
  fclose(f);

  f = tmpfile();
  ok(jcli_contrast_csv(&info, c, 2, fileno(f)) == 0, "CSV written");
  text = slurp_fd(fileno(f));
  const char *head = "label,against,phase,figure,n,mean,median,sd,min,max,cv,"
                     "ratio,low,high,p_value,significant\n"
                     "A,,START -> END,wall_seconds,4,1,1,0,1,1,0,,,,,\n";
  ok(strncmp(text, head, strlen(head)) == 0 &&
         strstr(text, "\nB,A,START -> END,cpu_seconds,4,2,2,0.163299,1.8,2.2,"
                      "0.08165,2,") &&
         strstr(text, ",true\n"),
     "CSV: a row per command and figure, the ratio on B's");
  fclose(f);
}

/* ---- the picture ------------------------------------------------------------ */

static size_t count(const char *text, const char *what) {
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, what)); p++)
    n++;
  return n;
}

static void test_plot(void) {
  jcli_outcome o = {.interval = 0.1};
  jcli_point pts[] = {
      {.t = 0.3, .cpu_usec = {true, 3e5}},
      {.t = 0, .cpu_usec = {true, 0}, .memory_current = {true, 1e6}},
      {.t = -1, .cpu_usec = {true, 1e300}},
      {.t = 0.2, .cpu_usec = {true, 1e5}, .memory_current = {true, 1e308}},
      {.t = 0.2, .cpu_usec = {true, 2e5}},
  };
  o.point = pts;
  o.point_count = 5;
  jcli_outcome_phase ph[2] = {
      {"START -> <&\"'\xff\x01>", 0, 0.2, {{false}, {0}}},
      {"x", NAN, INFINITY, {{false}, {0}}},
  };
  o.phase = ph;
  o.phase_count = 2;
  jcli_plot_strip s = {"A: \xe2\x82\xac \xc3", &o};
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  ok(jcli_plot_svg(&s, 1, "t", out) == 0, "samples out of order, negative, "
                                          "huge: drawn");
  fclose(out);
  ok(count(buf, "<") == count(buf, ">") && !strchr(buf, '\x01') &&
         strstr(buf, "&lt;&amp;&quot;&apos;\xef\xbf\xbd\xef\xbf\xbd&gt;") &&
         strstr(buf, "A: \xe2\x82\xac \xef\xbf\xbd"),
     "names escaped, bytes that are not UTF-8 and control characters as "
     "U+FFFD");
  ok(strstr(buf, "data-t1=\"0.300000\"") && count(buf, "class=\"phase\"") == 6,
     "the time axis to the last sample, 0.3 s; two bands in each of three "
     "panels");
  free(buf);
  jcli_outcome_phase far = {"far", 2.3e89, 0.1, {{false}, {0}}};
  o.phase = &far;
  o.phase_count = 1;
  out = open_memstream(&buf, &len);
  int drawn = jcli_plot_svg(&s, 1, "t", out);
  fclose(out);
  ok(drawn == 0 &&
         strstr(buf, "far 2.3e+89\xe2\x80\x93" "2.3e+89 s</text>"),
     "a phase 1e89 s in: its times in the key in powers of ten, the dash "
     "whole");
  free(buf);
  o.point_count = 1;
  out = open_memstream(&buf, &len);
  ok(jcli_plot_svg(&s, 1, "t", out) == -EINVAL, "one sample: nothing to draw");
  fclose(out);
  free(buf);
}

int main(void) {
  test_budget_parse();
  test_budget_check();
  test_load_errors();
  test_contrast();
  test_plot();
  return done_testing();
}

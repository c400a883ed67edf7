/*
 * jcli_plot — the picture of a run (`run --plot FILE.svg`) or of the
 * compared commands (`compare --plot`): a self-contained SVG, one strip
 * per run drawn, one under the other on one time axis and one scale per
 * panel, so that their lengths and heights compare.  Each strip has the
 * panels cores busy, memory (memory.current, and the true peak where
 * the kernel gives the interval peak), I/O rate (read, write) and, where
 * some run has RAPL energy, power (the command's part and the package
 * zones'); its phases are bands across the panels, labelled above them
 * and listed below (docs/profiler.md#the-picture).
 *
 * Every text is monospaced, so its width is known here: labels are laid
 * out in lanes where they cannot overlap.  Rates are taken over windows
 * of at least half the interval, as cores_busy_max is, so two readings
 * a moment apart (two markers) make no spike.
 *
 *   jcli_plot_strip s = {"A", "sh -c ...", &outcome};
 *   jcli_plot_svg(&s, 1, "joule-cgroup run", out);     to a FILE
 *   jcli_plot_file(path, &s, 1, "joule-cgroup run");   0 or -errno
 */
#ifndef JCLI_PLOT_H
#define JCLI_PLOT_H

#include "jcli_outcome.h"

#include <stdio.h>

typedef struct {
  const char *title;       /* "A: sh -c ... (run 3 of 10)" */
  const jcli_outcome *run; /* its points and phases */
} jcli_plot_strip;

/* -EINVAL when no strip has two samples; else 0 (write errors are the
 * FILE's). */
int jcli_plot_svg(const jcli_plot_strip *strips, size_t n, const char *title,
                  FILE *out);
int jcli_plot_file(const char *path, const jcli_plot_strip *strips, size_t n,
                   const char *title);

#endif

/*
 * fuzz_report — a report of `joule-cgroup run` read back and drawn, as
 * `compare A.json B.json --plot` does: jcli_load_text on any bytes, then
 * jcli_plot_svg of the runs it gives (one strip each, at most 4).
 *
 * Checks: a report refused says why and gives no run; one read has at
 * least one run, every figure it has finite, every phase named; the
 * picture is drawn unless no run has two samples (-EINVAL), and what it
 * writes is an SVG document whose text is valid UTF-8 without control
 * characters, with as many '<' as '>' (every name escaped) and ending
 * with </svg>.
 */
// fuzz-sources: cli/jcli_load.c cli/jcli_outcome.c cli/jcli_plot.c jc_utf8.c
// fuzz-libs: -lyajl -lm
#include "fuzz_util.h"
#include "jcli_load.h"
#include "jcli_plot.h"

#include <errno.h>
#include <math.h>

static void check_run(const jcli_outcome *o) {
  for (int f = 0; f < JCLI_FIG_COUNT; f++)
    FUZZ_CHECK(!o->fig.have[f] || isfinite(o->fig.v[f]));
  for (size_t i = 0; i < o->phase_count; i++)
    FUZZ_CHECK(o->phase[i].name && isfinite(o->phase[i].start) &&
               isfinite(o->phase[i].wall));
  for (size_t i = 0; i < o->point_count; i++)
    FUZZ_CHECK(isfinite(o->point[i].t));
}

/* Valid UTF-8, no control character but the newline. */
static void check_text(const unsigned char *s, size_t len) {
  for (size_t i = 0; i < len;) {
    unsigned char c = s[i];
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
             : (c & 0xF8) == 0xF0 ? 4 : 0;
    FUZZ_CHECK(n > 0 && i + n <= len);
    FUZZ_CHECK(c >= 0x20 || c == '\n');
    for (size_t k = 1; k < n; k++)
      FUZZ_CHECK((s[i + k] & 0xC0) == 0x80);
    i += n;
  }
}

static void check_svg(const char *svg, size_t len) {
  size_t open = 0, close = 0;
  for (size_t i = 0; i < len; i++) {
    open += svg[i] == '<';
    close += svg[i] == '>';
  }
  FUZZ_CHECK(open == close);
  FUZZ_CHECK(len > 7 && strcmp(svg + len - 7, "</svg>\n") == 0);
  check_text((const unsigned char *)svg, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_copy(data, size), err[256] = "";
  jcli_loaded l;
  int r = jcli_load_text(text, size, &l, err, sizeof(err));
  free(text);
  if (r < 0) {
    FUZZ_CHECK(err[0] && l.count == 0 && !l.run);
    return 0;
  }
  FUZZ_CHECK(l.count >= 1);
  jcli_plot_strip strips[4];
  size_t n = l.count < 4 ? l.count : 4;
  for (size_t i = 0; i < l.count; i++)
    check_run(&l.run[i]);
  for (size_t i = 0; i < n; i++)
    strips[i] = (jcli_plot_strip){"a run \xe2\x80\x94 read back", &l.run[i]};
  char *svg = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&svg, &len);
  FUZZ_CHECK(out != NULL);
  r = jcli_plot_svg(strips, n, "fuzz_report", out);
  FUZZ_CHECK(fclose(out) == 0);
  FUZZ_CHECK(r == 0 || r == -EINVAL);
  if (r == 0)
    check_svg(svg, len);
  else
    FUZZ_CHECK(len == 0);
  free(svg);
  jcli_loaded_release(&l);
  return 0;
}

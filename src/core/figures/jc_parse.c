/*
 * jc_parse — see jc_parse.h.  Hand-written scanners rather than sscanf or
 * strtoull: the buffers are not NUL-terminated, the locale must not matter,
 * and a value one past UINT64_MAX must be an error, not a silent clamp.
 */
#include "jc_parse.h"

#include <errno.h>
#include <string.h>

bool jc_parse_token_eq(jc_token t, const char *s) {
  size_t n = strlen(s);
  return t.len == n && memcmp(t.ptr, s, n) == 0;
}

/* What ends a word: a blank (space, tab) or a newline.  A table rather
 * than comparisons: the scanners pass over every byte of every file at
 * every read, and a load and a test per byte cost less than three
 * compares (docs/performance.md: the read pass). */
enum { CHAR_BLANK = 1, CHAR_NEWLINE = 2 };
static const unsigned char char_class[256] = {
    [' '] = CHAR_BLANK, ['\t'] = CHAR_BLANK, ['\n'] = CHAR_NEWLINE};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_blank(char c) {
  return char_class[(unsigned char)c] & CHAR_BLANK;
}
static bool ends_word(char c) { return char_class[(unsigned char)c] != 0; }

int jc_parse_u64_token(jc_token t, uint64_t *ret_value) {
  if (t.len == 0)
    return -EINVAL;
  uint64_t v = 0;
  for (size_t i = 0; i < t.len; i++) {
    if (!is_digit(t.ptr[i]))
      return -EINVAL;
    unsigned d = (unsigned)(t.ptr[i] - '0');
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
      return -ERANGE;
  }
  *ret_value = v;
  return 0;
}

/* The token up to the next blank or newline, starting at *pos. */
static jc_token next_word(const char **pos, const char *end) {
  const char *p = *pos;
  while (p < end && is_blank(*p))
    p++;
  const char *start = p;
  while (p < end && !ends_word(*p))
    p++;
  *pos = p;
  return (jc_token){start, (size_t)(p - start)};
}

/* Moves *pos past the end of the current line. */
static void skip_line(const char **pos, const char *end) {
  const char *nl = memchr(*pos, '\n', (size_t)(end - *pos));
  *pos = nl ? nl + 1 : end;
}

static bool rest_of_line_blank(const char *p, const char *end) {
  while (p < end && *p != '\n') {
    if (!is_blank(*p))
      return false;
    p++;
  }
  return true;
}

int jc_parse_single(const char *buf, size_t len, uint64_t *ret_value) {
  const char *pos = buf, *end = buf + len;
  jc_token t = next_word(&pos, end);
  if (!rest_of_line_blank(pos, end))
    return -EINVAL;
  if (JC_TOKEN_IS(t, "max")) {
    *ret_value = JC_VALUE_MAX;
    return 0;
  }
  return jc_parse_u64_token(t, ret_value);
}

void jc_parse_cursor_init(jc_cursor *c, const char *buf, size_t len) {
  c->pos = buf;
  c->end = buf + len;
}

static bool at_end(const jc_cursor *c) {
  const char *p = c->pos;
  while (p < c->end && (is_blank(*p) || *p == '\n'))
    p++;
  return p >= c->end;
}

int jc_parse_flat_next(jc_cursor *c, jc_token *ret_key, uint64_t *ret_value) {
  while (c->pos < c->end && *c->pos == '\n')
    c->pos++; /* empty lines */
  if (at_end(c))
    return 0;
  const char *p = c->pos;
  jc_token key = next_word(&p, c->end);
  jc_token value = next_word(&p, c->end);
  bool complete = rest_of_line_blank(p, c->end);
  skip_line(&c->pos, c->end);
  uint64_t v;
  if (key.len == 0 || !complete)
    return -EINVAL;
  int r = jc_parse_u64_token(value, &v);
  if (r < 0)
    return r;
  *ret_key = key;
  *ret_value = v;
  return 1;
}

static int parse_devno(jc_token t, unsigned *ret_major, unsigned *ret_minor) {
  const char *colon = memchr(t.ptr, ':', t.len);
  if (!colon)
    return -EINVAL;
  jc_token maj = {t.ptr, (size_t)(colon - t.ptr)};
  jc_token min = {colon + 1, t.len - maj.len - 1};
  uint64_t a, b;
  if (jc_parse_u64_token(maj, &a) < 0 || jc_parse_u64_token(min, &b) < 0 ||
      a > UINT32_MAX || b > UINT32_MAX)
    return -EINVAL;
  *ret_major = (unsigned)a;
  *ret_minor = (unsigned)b;
  return 0;
}

/* Stores "name=value" into the matching io field; other names are skipped. */
static int io_field(jc_io_line *line, jc_token field) {
  const char *eq = memchr(field.ptr, '=', field.len);
  if (!eq)
    return -EINVAL;
  jc_token name = {field.ptr, (size_t)(eq - field.ptr)};
  jc_token value = {eq + 1, field.len - name.len - 1};
  uint64_t *slot = JC_TOKEN_IS(name, "rbytes")  ? &line->rbytes
                   : JC_TOKEN_IS(name, "wbytes") ? &line->wbytes
                   : JC_TOKEN_IS(name, "rios")   ? &line->rios
                   : JC_TOKEN_IS(name, "wios")   ? &line->wios
                                                 : NULL;
  if (!slot)
    return 0; /* dbytes, dios, cost.*: not ours */
  return jc_parse_u64_token(value, slot);
}

/* The device a line names: "MAJ:MIN", or "(unknown)". */
static int io_device(jc_token t, jc_io_line *line) {
  line->unknown_device = JC_TOKEN_IS(t, "(unknown)");
  if (line->unknown_device) {
    line->major = line->minor = 0;
    return 0;
  }
  return parse_devno(t, &line->major, &line->minor);
}

/* Parses one line; 1 with keys, 0 a device without keys, <0 malformed. */
static int io_line(const char *p, const char *end, jc_io_line *ret_line) {
  jc_io_line line = {0};
  if (io_device(next_word(&p, end), &line) < 0)
    return -EINVAL;
  bool keyed = false;
  for (;;) {
    jc_token field = next_word(&p, end);
    if (field.len == 0)
      break;
    if (!memchr(field.ptr, '=', field.len)) {
      /* Another device: the merged line counts for the last one.  After
       * the first key, a word without "=" is junk. */
      if (keyed || io_device(field, &line) < 0)
        return -EINVAL;
      continue;
    }
    keyed = true;
    int r = io_field(&line, field);
    if (r < 0)
      return r;
  }
  if (keyed)
    *ret_line = line;
  return keyed;
}

int jc_parse_io_next(jc_cursor *c, jc_io_line *ret_line) {
  for (;;) {
    while (c->pos < c->end && *c->pos == '\n')
      c->pos++;
    if (at_end(c))
      return 0;
    const char *p = c->pos;
    skip_line(&c->pos, c->end);
    int r = io_line(p, c->pos, ret_line);
    if (r != 0)
      return r; /* a line, or a malformed one; keyless lines are skipped */
  }
}

int jc_parse_cpu_max(const char *buf, size_t len, uint64_t *ret_quota,
                     uint64_t *ret_period) {
  const char *pos = buf, *end = buf + len;
  jc_token quota = next_word(&pos, end);
  jc_token period = next_word(&pos, end);
  if (!rest_of_line_blank(pos, end))
    return -EINVAL;
  uint64_t q = JC_VALUE_MAX, per;
  if (!JC_TOKEN_IS(quota, "max") &&
      (jc_parse_u64_token(quota, &q) < 0 || q == 0))
    return -EINVAL; /* the kernel refuses a quota below 1 ms */
  if (jc_parse_u64_token(period, &per) < 0 || per == 0)
    return -EINVAL;
  *ret_quota = q;
  *ret_period = per;
  return 0;
}

/* A CPU number of the list at *p (advanced past it). */
static int list_number(const char **p, const char *end, uint64_t *ret) {
  const char *start = *p;
  while (*p < end && **p >= '0' && **p <= '9')
    (*p)++;
  return jc_parse_u64_token((jc_token){start, (size_t)(*p - start)}, ret);
}

int jc_parse_cpu_list(const char *buf, size_t len, uint64_t *words,
                      size_t nwords, bool *ret_beyond) {
  const char *p = buf, *end = buf + len;
  while (end > p && (end[-1] == '\n' || end[-1] == ' '))
    end--;
  memset(words, 0, nwords * sizeof(*words));
  *ret_beyond = false;
  uint64_t bits = (uint64_t)nwords * 64;
  while (p < end) {
    uint64_t lo, hi;
    if (list_number(&p, end, &lo) < 0)
      return -EINVAL;
    hi = lo;
    if (p < end && *p == '-') {
      p++;
      if (list_number(&p, end, &hi) < 0 || hi < lo)
        return -EINVAL;
    }
    if (p < end && *p++ != ',')
      return -EINVAL;
    if (p == end && end[-1] == ',')
      return -EINVAL; /* a list ends with a number */
    if (hi >= bits)
      *ret_beyond = true;
    for (uint64_t cpu = lo; cpu <= hi && cpu < bits; cpu++)
      words[cpu / 64] |= UINT64_C(1) << (cpu % 64);
  }
  return 0;
}

/* "12.34" as the kernel prints it (LOAD_INT.LOAD_FRAC); no locale. */
static int parse_fixed_point(jc_token t, double *ret_value) {
  const char *dot = memchr(t.ptr, '.', t.len);
  jc_token ip = {t.ptr, dot ? (size_t)(dot - t.ptr) : t.len};
  uint64_t whole, frac = 0;
  int r = jc_parse_u64_token(ip, &whole);
  if (r < 0)
    return r;
  double scale = 1.0;
  if (dot) {
    jc_token fp = {dot + 1, t.len - ip.len - 1};
    if (fp.len == 0 || fp.len > 9 || jc_parse_u64_token(fp, &frac) < 0)
      return -EINVAL;
    for (size_t i = 0; i < fp.len; i++)
      scale *= 10.0;
  }
  *ret_value = (double)whole + (double)frac / scale;
  return 0;
}

static int psi_field(jc_psi_line *line, jc_token field, unsigned *seen) {
  const char *eq = memchr(field.ptr, '=', field.len);
  if (!eq)
    return -EINVAL;
  jc_token name = {field.ptr, (size_t)(eq - field.ptr)};
  jc_token value = {eq + 1, field.len - name.len - 1};
  if (JC_TOKEN_IS(name, "total")) {
    *seen |= 8;
    return jc_parse_u64_token(value, &line->total_usec);
  }
  double *slot = JC_TOKEN_IS(name, "avg10")    ? &line->avg10
                 : JC_TOKEN_IS(name, "avg60")  ? &line->avg60
                 : JC_TOKEN_IS(name, "avg300") ? &line->avg300
                                               : NULL;
  if (!slot)
    return 0;
  *seen |= slot == &line->avg10 ? 1u : slot == &line->avg60 ? 2u : 4u;
  int r = parse_fixed_point(value, slot);
  return r == 0 && *slot > 100.0 ? -EINVAL : r; /* a share of time */
}

static int parse_psi_line(const char *p, const char *end, jc_psi_line *line) {
  unsigned seen = 0;
  for (;;) {
    jc_token field = next_word(&p, end);
    if (field.len == 0)
      break;
    int r = psi_field(line, field, &seen);
    if (r < 0)
      return r;
  }
  return seen == 15 ? 0 : -EINVAL;
}

int jc_parse_pressure(const char *buf, size_t len, jc_psi *ret_psi) {
  jc_psi psi = {0};
  const char *pos = buf, *end = buf + len;
  while (pos < end) {
    const char *line = pos;
    skip_line(&pos, end);
    jc_token kind = next_word(&line, pos);
    if (kind.len == 0)
      continue;
    bool some = JC_TOKEN_IS(kind, "some");
    if (!some && !JC_TOKEN_IS(kind, "full"))
      return -EINVAL;
    int r = parse_psi_line(line, pos, some ? &psi.some : &psi.full);
    if (r < 0)
      return r;
    *(some ? &psi.has_some : &psi.has_full) = true;
  }
  if (!psi.has_some)
    return -EINVAL;
  *ret_psi = psi;
  return 0;
}

/* Copies a mountinfo path field, decoding \ooo octal escapes. */
static int unescape_path(jc_token t, char *out, size_t size) {
  size_t n = 0;
  for (size_t i = 0; i < t.len; i++) {
    char ch = t.ptr[i];
    const char *o = t.ptr + i + 1;
    if (ch == '\\' && i + 3 < t.len && o[0] >= '0' && o[0] <= '3' &&
        o[1] >= '0' && o[1] <= '7' && o[2] >= '0' && o[2] <= '7') {
      ch = (char)((o[0] - '0') * 64 + (o[1] - '0') * 8 + (o[2] - '0'));
      i += 3;
    }
    if (n + 1 >= size)
      return -ENAMETOOLONG;
    out[n++] = ch;
  }
  out[n] = '\0';
  return 0;
}

/* A mountinfo line's first fields (id, parent, dev, root, mount point)
 * into field, *p moved past the optional fields and their "-": 0, or
 * -EINVAL for a line that ends before. */
static int mountinfo_head(const char **p, const char *end, jc_token field[5]) {
  for (int i = 0; i < 5; i++) {
    field[i] = next_word(p, end);
    if (field[i].len == 0)
      return -EINVAL;
  }
  for (;;) { /* optional fields end with a lone "-" */
    jc_token t = next_word(p, end);
    if (t.len == 0)
      return -EINVAL;
    if (JC_TOKEN_IS(t, "-"))
      return 0;
  }
}

int jc_parse_mountinfo_cgroup2(const char *buf, size_t len, char *ret_root,
                               char *ret_mount, size_t size) {
  const char *p = buf, *end = buf + len;
  jc_token field[5];
  if (mountinfo_head(&p, end, field) < 0)
    return -EINVAL;
  jc_token fstype = next_word(&p, end);
  if (!JC_TOKEN_IS(fstype, "cgroup2"))
    return fstype.len ? 0 : -EINVAL;
  if ((ret_root && unescape_path(field[3], ret_root, size) < 0) ||
      unescape_path(field[4], ret_mount, size) < 0)
    return -ENAMETOOLONG;
  return 1;
}

int jc_parse_mountinfo_upper(const char *buf, size_t len, char *ret_upper,
                             size_t size) {
  const char *p = buf, *end = buf + len;
  jc_token field[5];
  if (mountinfo_head(&p, end, field) < 0)
    return -EINVAL;
  jc_token fstype = next_word(&p, end), source = next_word(&p, end);
  jc_token opts = next_word(&p, end);
  if (opts.len == 0)
    return fstype.len && source.len ? 0 : -EINVAL; /* no super options */
  if (!JC_TOKEN_IS(field[4], "/") || !JC_TOKEN_IS(fstype, "overlay"))
    return 0;
  /* The options' values have their ',' escaped: split at each one. */
  for (size_t at = 0; at < opts.len;) {
    const char *o = opts.ptr + at;
    const char *comma = memchr(o, ',', opts.len - at);
    size_t olen = comma ? (size_t)(comma - o) : opts.len - at;
    if (olen > 9 && memcmp(o, "upperdir=", 9) == 0)
      return unescape_path((jc_token){o + 9, olen - 9}, ret_upper, size) < 0
                 ? -ENAMETOOLONG
                 : 1;
    at += olen + 1;
  }
  return 0;
}

int jc_parse_mountinfo_line(const char *buf, size_t len, char *ret_path,
                            size_t size) {
  return jc_parse_mountinfo_cgroup2(buf, len, NULL, ret_path, size);
}

/*
 * jc_pattern — see jc_pattern.h.  Globs are split into levels once at
 * compile time; a level is matched with fnmatch(3), "**" by backtracking
 * over path levels (bounded by JC_PATTERN_MAX_GLOBSTARS and the depth of
 * the path).
 */
#include "jc_pattern.h"

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 64

struct jc_pattern {
  char *text;
  bool is_regex;
  regex_t regex;
  char *levels_buf;            /* the glob with '/' replaced by '\0' */
  const char *level[MAX_LEVELS];
  size_t level_count;
};

const char *jc_pattern_text(const jc_pattern *p) { return p->text; }

static bool is_regex_text(const char *text) {
  size_t n = strlen(text);
  return n >= 2 && text[0] == '/' && text[n - 1] == '/';
}

/*
 * glibc's regcomp copies an atom for each repetition it stands for: "a+"
 * is "aa*", "x{64}" 64 x's, and nested repetitions multiply, so the 17
 * bytes "(a{32767}){32767}" ask for 10^9 nodes and take all the host's
 * memory; adjacent duplication symbols ("a+++", "(a)****"), undefined in
 * POSIX, cost exponential memory or polynomial time of a high degree.
 * regexec's time grows with the cube of the expansion: at 1000 atoms a 4 KiB
 * path takes 0.6 s, at 2000 atoms 5 s, for every cgroup at every read.
 * Back-references (a glibc extension to ERE) make regexec exponential: a
 * 200-byte cgroup name, which any user can create under user.slice, holds
 * the read thread for seconds or more.  Refuse all three before regcomp.
 */
#define REGEX_MAX_NODES 1000
#define REGEX_TOO_BIG "repeats too much (over 1000 atoms once expanded)"
#define REGEX_MAX_DEPTH 32

/* The largest count of the interval at *pp ("{m}", "{m,}", "{m,n}", "{,n}"),
 * moving *pp past it; 0 when it is not an interval (a literal '{'). */
static unsigned long interval_count(const char **pp) {
  const char *q = *pp + 1;
  unsigned long a = 0, b = 0;
  bool comma = false, digits = false;
  for (; *q && *q != '}'; q++) {
    if (*q == ',' && !comma) {
      comma = true;
    } else if (*q >= '0' && *q <= '9') {
      unsigned long *v = comma ? &b : &a;
      *v = *v > REGEX_MAX_NODES ? *v : *v * 10 + (unsigned long)(*q - '0');
      digits = true;
    } else {
      return 0;
    }
  }
  if (*q != '}' || !digits)
    return 0;
  *pp = q;
  unsigned long n = comma && b == 0 ? a + 1 : (a > b ? a : b);
  return n > 0 ? n : 1;
}

/* Skips the bracket expression at *pp ("[]a]", "[^[:alpha:]]"). */
static void skip_bracket(const char **pp) {
  const char *q = *pp + 1;
  if (*q == '^')
    q++;
  if (*q == ']')
    q++;
  for (; *q && *q != ']'; q++)
    if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
      const char *close = strchr(q + 2, q[1]);
      while (close && close[1] != ']')
        close = strchr(close + 1, q[1]);
      if (!close)
        break;
      q = close + 1;
    }
  *pp = *q ? q : q - 1;
}

/* Why body is too costly for regcomp, or NULL. */
static const char *regex_cost(const char *body) {
  unsigned long size[REGEX_MAX_DEPTH + 1] = {0}, last[REGEX_MAX_DEPTH + 1];
  int depth = 0;
  bool after_dup = false;
  last[0] = 0;
  for (const char *p = body; *p; p++) {
    unsigned long times = 0;
    bool dup = false;
    switch (*p) {
    case '*':
    case '?':
      dup = true, times = 1;
      break;
    case '+':
      dup = true, times = 2;
      break;
    case '{':
      times = interval_count(&p);
      dup = times > 0;
      break;
    case '(':
      if (depth == REGEX_MAX_DEPTH)
        return "nests groups too deeply";
      size[++depth] = 0;
      last[depth] = 0;
      after_dup = false;
      continue;
    case ')':
      if (depth > 0) {
        depth--;
        size[depth] += size[depth + 1];
        last[depth] = size[depth + 1];
        after_dup = false;
        if (size[depth] > REGEX_MAX_NODES)
          return REGEX_TOO_BIG;
        continue;
      }
      break;
    case '|':
      last[depth] = 0;
      after_dup = false;
      continue;
    case '[':
      skip_bracket(&p);
      break;
    case '\\':
      if (p[1] >= '1' && p[1] <= '9')
        return "uses a back-reference, not part of POSIX extended regexes "
               "(matching one can take exponential time)";
      if (p[1])
        p++;
      break;
    }
    if (dup && after_dup)
      return "has adjacent repetition operators";
    if (dup) {
      size[depth] += last[depth] * (times - 1);
      last[depth] *= times;
    } else {
      size[depth]++;
      last[depth] = 1;
    }
    after_dup = dup;
    if (size[depth] > REGEX_MAX_NODES)
      return REGEX_TOO_BIG;
  }
  return NULL;
}

static int compile_regex(jc_pattern *p, char *why, size_t size) {
  size_t n = strlen(p->text);
  char *body = strndup(p->text + 1, n - 2);
  if (!body) {
    snprintf(why, size, "out of memory");
    return -ENOMEM;
  }
  const char *costly = regex_cost(body);
  if (costly) {
    snprintf(why, size, "invalid regular expression: %s", costly);
    free(body);
    return -EINVAL;
  }
  int r = regcomp(&p->regex, body, REG_EXTENDED | REG_NOSUB);
  free(body);
  if (r != 0) {
    char msg[128];
    regerror(r, &p->regex, msg, sizeof(msg));
    snprintf(why, size, "invalid regular expression: %s", msg);
    return -EINVAL;
  }
  p->is_regex = true;
  return 0;
}

/* Rejects what could name something outside the root or nothing at all. */
static const char *check_glob_level(const char *level) {
  if (level[0] == '\0')
    return "has an empty path level (leading, trailing or double \"/\")";
  if (strcmp(level, "..") == 0)
    return "contains \"..\"; patterns stay inside CgroupRoot";
  if (strcmp(level, ".") == 0)
    return "contains a \".\" path level";
  return NULL;
}

static int split_glob(jc_pattern *p, char *why, size_t size) {
  p->levels_buf = strdup(p->text);
  if (!p->levels_buf) {
    snprintf(why, size, "out of memory");
    return -ENOMEM;
  }
  if (p->text[0] == '/') {
    snprintf(why, size,
             "is absolute; patterns are relative to CgroupRoot (write \"%s\")",
             p->text + 1);
    return -EINVAL;
  }
  size_t globstars = 0;
  /* strsep keeps empty levels, so "a//b" can be refused. */
  char *rest = p->levels_buf;
  while (rest) {
    char *level = strsep(&rest, "/");
    const char *bad = check_glob_level(level);
    if (bad) {
      snprintf(why, size, "%s", bad);
      return -EINVAL;
    }
    bool globstar = strcmp(level, "**") == 0;
    if (globstar && p->level_count > 0 &&
        strcmp(p->level[p->level_count - 1], "**") == 0)
      continue; /* "**" / "**" is one "**" */
    if (globstar && ++globstars > JC_PATTERN_MAX_GLOBSTARS) {
      snprintf(why, size, "uses \"**\" more than %d times",
               JC_PATTERN_MAX_GLOBSTARS);
      return -EINVAL;
    }
    if (p->level_count == MAX_LEVELS) {
      snprintf(why, size, "is deeper than %d levels", MAX_LEVELS);
      return -EINVAL;
    }
    p->level[p->level_count++] = level;
  }
  return 0;
}

int jc_pattern_compile(const char *text, jc_pattern **ret, char *why,
                       size_t err_size) {
  jc_pattern *p = calloc(1, sizeof(*p));
  if (!p || !(p->text = strdup(text))) {
    snprintf(why, err_size, "out of memory");
    free(p);
    return -ENOMEM;
  }
  int r = is_regex_text(text) ? compile_regex(p, why, err_size)
                              : split_glob(p, why, err_size);
  if (r < 0) {
    jc_pattern_free(p);
    return r;
  }
  *ret = p;
  return 0;
}

void jc_pattern_free(jc_pattern *p) {
  if (!p)
    return;
  if (p->is_regex)
    regfree(&p->regex);
  free(p->levels_buf);
  free(p->text);
  free(p);
}

/*
 * Matches pattern levels against path levels.  With `below`, the question
 * is whether some path strictly below the given one could match.
 */
static bool match_levels(const char *const *pat, size_t pn,
                         const char *const *path, size_t sn, bool below) {
  if (sn == 0) {
    if (below)
      return pn > 0;
    for (size_t i = 0; i < pn; i++)
      if (strcmp(pat[i], "**") != 0)
        return false;
    return true;
  }
  if (pn == 0)
    return false;
  if (strcmp(pat[0], "**") == 0)
    return match_levels(pat + 1, pn - 1, path, sn, below) ||
           match_levels(pat, pn, path + 1, sn - 1, below);
  return fnmatch(pat[0], path[0], 0) == 0 &&
         match_levels(pat + 1, pn - 1, path + 1, sn - 1, below);
}

/*
 * Splits relpath into levels in buf (a copy).  Returns the level count, or
 * -ENAMETOOLONG when the path is too deep or too long to be a cgroup we
 * would track.
 */
static int split_path(const char *relpath, char *buf, size_t size,
                      const char **level) {
  size_t n = strlen(relpath);
  if (n >= size)
    return -ENAMETOOLONG;
  memcpy(buf, relpath, n + 1);
  if (n == 0)
    return 0;
  int count = 0;
  for (char *rest = buf; rest;) {
    if (count == MAX_LEVELS)
      return -ENAMETOOLONG;
    level[count++] = strsep(&rest, "/");
  }
  return count;
}

static bool glob_test(const jc_pattern *p, const char *relpath, bool below) {
  char buf[4096];
  const char *level[MAX_LEVELS];
  int n = split_path(relpath, buf, sizeof(buf), level);
  if (n < 0)
    return false;
  return match_levels(p->level, p->level_count, level, (size_t)n, below);
}

bool jc_pattern_match(const jc_pattern *p, const char *relpath) {
  if (relpath[0] == '\0')
    return false;
  if (p->is_regex)
    return regexec(&p->regex, relpath, 0, NULL, 0) == 0;
  return glob_test(p, relpath, false);
}

bool jc_pattern_may_match_below(const jc_pattern *p, const char *relpath) {
  if (p->is_regex)
    return true;
  return glob_test(p, relpath, true);
}

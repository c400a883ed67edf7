/*
 * jcli_cread — see jcli_cread.h.
 */
#include "jcli_cread.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <wordexp.h>

typedef struct {
  jcli_cread *conf;
  char *why;
  size_t n;
} reader;

static int note(reader *rd, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int note(reader *rd, bool error, const char *fmt, ...) {
  jcli_cread *c = rd->conf;
  jcli_cread_note *grown =
      realloc(c->notes, (c->note_count + 1) * sizeof(*grown));
  if (!grown)
    return -ENOMEM;
  c->notes = grown;
  va_list ap;
  va_start(ap, fmt);
  int r = vasprintf(&grown[c->note_count].text, fmt, ap);
  va_end(ap);
  if (r < 0)
    return -ENOMEM;
  grown[c->note_count++].error = error;
  return 0;
}

/* The message of a failure in rd's buffer; returns r, its negative
 * errno. */
static int rd_fail(reader *rd, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int rd_fail(reader *rd, int r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rd->why, rd->n, fmt, ap);
  va_end(ap);
  return r;
}

/* "FILE:LINE: Include \"PATH\"", or the path alone for the top file. */
static void where_from(const jc_conf_item *from, const char *path, char *out,
                       size_t size) {
  if (from)
    snprintf(out, size, "%s:%d: Include \"%s\"", from->file, from->line,
             path);
  else
    snprintf(out, size, "%s", path);
}

/* Moves src's children to the end of dst's. */
static int take_children(jc_conf_item *dst, jc_conf_item *src) {
  if (src->children_num == 0)
    return 0;
  jc_conf_item *grown = realloc(
      dst->children,
      (size_t)(dst->children_num + src->children_num) * sizeof(*grown));
  if (!grown)
    return -ENOMEM;
  memcpy(grown + dst->children_num, src->children,
         (size_t)src->children_num * sizeof(*grown));
  dst->children = grown;
  dst->children_num += src->children_num;
  free(src->children);
  src->children = NULL;
  src->children_num = 0;
  return 0;
}

static int read_generic(reader *rd, const char *path, const char *pattern,
                        int depth, const jc_conf_item *from,
                        jc_conf_item *out);

/* A file's name kept for its items and messages. */
static const char *keep_name(reader *rd, const char *file) {
  jcli_cread *c = rd->conf;
  char **grown = realloc(c->files, (c->file_count + 1) * sizeof(*grown));
  if (!grown)
    return NULL;
  c->files = grown;
  char *copy = strdup(file);
  if (copy)
    grown[c->file_count++] = copy;
  return copy;
}

static int read_text(const char *file, char **ret, size_t *ret_len) {
  FILE *f = fopen(file, "re");
  if (!f)
    return -errno;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  int r = 0;
  for (;;) {
    if (len == cap) {
      char *grown = realloc(buf, cap = cap ? 2 * cap : 4096);
      if (!grown) {
        r = -ENOMEM;
        break;
      }
      buf = grown;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      r = ferror(f) ? -EIO : 0;
      break;
    }
  }
  fclose(f);
  if (r < 0) {
    free(buf);
    return r;
  }
  *ret = buf;
  *ret_len = len;
  return 0;
}

static int include_all(reader *rd, jc_conf_item *root, int depth);

/* 1: its name does not match the Filter (collectd leaves it out).  where
 * is the Include that names it, or the file itself. */
static int read_file(reader *rd, const char *file, const char *pattern,
                     int depth, const char *where, jc_conf_item *out) {
  if (pattern) {
    const char *base = strrchr(file, '/');
    if (fnmatch(pattern, base ? base + 1 : file, 0) != 0)
      return 1;
  }
  const char *name = keep_name(rd, file);
  char *text = NULL;
  size_t len = 0;
  int r = name ? read_text(file, &text, &len) : -ENOMEM;
  if (r < 0 && strcmp(where, file) == 0)
    return rd_fail(rd, r, "%s: cannot read it: %s", file, strerror(-r));
  if (r < 0)
    return rd_fail(rd, r, "%s: %s: cannot read it: %s", where, file,
                   strerror(-r));
  r = jcli_cconf_parse(text, len, name, out, rd->why, rd->n);
  free(text);
  if (r == 0 && (r = include_all(rd, out, depth)) < 0)
    jcli_cconf_items_clear(out);
  return r;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t count) {
  for (size_t i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

/* The entries of dir not starting with ".", as paths, sorted. */
static int list_dir(reader *rd, const char *dir, char ***ret, size_t *ret_count) {
  DIR *d = opendir(dir);
  if (!d)
    return rd_fail(rd, -errno, "%s: cannot read the directory: %s", dir,
                   strerror(errno));
  char **names = NULL;
  size_t count = 0;
  int r = 0;
  struct dirent *de;
  while (r == 0 && (de = readdir(d))) {
    if (de->d_name[0] == '.' || de->d_name[0] == '\0')
      continue;
    char name[1024];
    if ((size_t)snprintf(name, sizeof(name), "%s/%s", dir, de->d_name) >=
        sizeof(name)) {
      r = rd_fail(rd, -ENAMETOOLONG, "%s/%s: name too long for collectd", dir,
                  de->d_name);
      break;
    }
    char **grown = realloc(names, (count + 1) * sizeof(*grown));
    if (!grown || !(grown[count] = strdup(name))) {
      names = grown ? grown : names;
      r = rd_fail(rd, -ENOMEM, "out of memory");
      break;
    }
    names = grown;
    count++;
  }
  closedir(d);
  if (r < 0) {
    free_names(names, count);
    return r;
  }
  if (count)
    qsort(names, count, sizeof(*names), compare_names);
  *ret = names;
  *ret_count = count;
  return 0;
}

/* Every entry of dir; one collectd cannot read or parse is left out with
 * an ERROR, one the Filter does not match silently, as collectd does. */
static int read_dir(reader *rd, const char *dir, const char *pattern,
                    int depth, jc_conf_item *out) {
  char **names = NULL;
  size_t count = 0;
  int r = list_dir(rd, dir, &names, &count);
  if (r < 0)
    return r;
  for (size_t i = 0; r == 0 && i < count; i++) {
    jc_conf_item got = {0};
    int status = read_generic(rd, names[i], pattern, depth, NULL, &got);
    if (status != 0) { /* 1: its name does not match the Filter */
      if (status < 0)
        r = note(rd, true, "%s; collectd leaves %s out (ERROR) and reads on",
                 rd->why, names[i]);
      continue;
    }
    r = take_children(out, &got);
    jcli_cconf_items_clear(&got);
  }
  free_names(names, count);
  return r < 0 ? rd_fail(rd, r, "out of memory") : 0;
}

static const char *wordexp_why(int r) {
  switch (r) {
  case WRDE_BADCHAR: return "a character of |&;<>(){} or a newline";
  case WRDE_BADVAL: return "an undefined variable";
  case WRDE_CMDSUB: return "a command substitution, which collectd refuses";
  case WRDE_NOSPACE: return "out of memory";
  default: return "a shell syntax error";
  }
}

/* collectd's cf_read_generic: path expanded, each match read.  0, a
 * negative errno, or 1 (why set) when a file does not match the Filter:
 * collectd then gives up the whole path, which stops it for an Include
 * (-EINVAL there) and skips the entry of a directory. */
static int read_generic(reader *rd, const char *path, const char *pattern,
                        int depth, const jc_conf_item *from,
                        jc_conf_item *out) {
  char where[1200];
  where_from(from, path, where, sizeof(where));
  if (depth >= JCLI_CREAD_MAX_DEPTH)
    return rd_fail(rd, -ELOOP,
                   "%s: Includes nested deeper than %d levels (a file "
                   "that includes itself?)",
                   where, JCLI_CREAD_MAX_DEPTH);
  wordexp_t we;
  int r = wordexp(path, &we, WRDE_NOCMD);
  if (r != 0) {
    if (r == WRDE_NOSPACE)
      wordfree(&we);
    return rd_fail(rd, r == WRDE_NOSPACE ? -ENOMEM : -EINVAL,
                   "%s: collectd cannot expand the path (wordexp: %s)", where,
                   wordexp_why(r));
  }
  if (we.we_wordc)
    qsort(we.we_wordv, we.we_wordc, sizeof(*we.we_wordv), compare_names);
  r = 0;
  for (size_t i = 0; r == 0 && i < we.we_wordc; i++) {
    const char *p = we.we_wordv[i];
    struct stat st;
    jc_conf_item got = {0};
    if (stat(p, &st) < 0)
      r = note(rd, false, "%s: %s: %s; collectd goes on without it", where,
               p, strerror(errno));
    else if (S_ISREG(st.st_mode))
      r = read_file(rd, p, pattern, depth, where, &got);
    else if (S_ISDIR(st.st_mode))
      r = read_dir(rd, p, pattern, depth, &got);
    else
      r = note(rd, false, "%s: %s is neither a file nor a directory; "
                          "collectd goes on without it",
               where, p);
    if (r == 1)
      rd_fail(rd, 1,
              "%s: %s does not match the Filter \"%s\", and collectd "
              "5.12 then gives up reading its configuration (\"Unable "
              "to read config file\"); include its directory instead",
              where, p, pattern);
    if (r == 0 && (r = take_children(out, &got)) < 0)
      r = rd_fail(rd, r, "out of memory");
    jcli_cconf_items_clear(&got);
  }
  wordfree(&we);
  return r;
}

/* The Filter of an <Include> block; its other children are noted. */
static int include_filter(reader *rd, const jc_conf_item *inc,
                          const char **ret) {
  *ret = NULL;
  for (int j = 0; j < inc->children_num; j++) {
    const jc_conf_item *c = &inc->children[j];
    int r = 0;
    if (strcasecmp(c->key, "Filter") != 0)
      r = note(rd, true, "%s:%d: option %s is not allowed in <Include>; "
                         "collectd ignores it",
               c->file, c->line, c->key);
    else if (c->values_num != 1 || c->values[0].type != JC_CONF_STRING)
      r = note(rd, true, "%s:%d: Filter needs exactly one string; collectd "
                         "ignores it",
               c->file, c->line);
    else
      *ret = c->values[0].string;
    if (r < 0)
      return rd_fail(rd, r, "out of memory");
  }
  return 0;
}

/* Replaces root->children[i] with the children of got. */
static int replace_child(jc_conf_item *root, int i, jc_conf_item *got) {
  int add = got->children_num, after = root->children_num - i - 1;
  jc_conf_item old = root->children[i];
  if (add > 1) {
    jc_conf_item *grown = realloc(
        root->children, (size_t)(root->children_num + add - 1) * sizeof(*grown));
    if (!grown)
      return -ENOMEM;
    root->children = grown;
  }
  memmove(root->children + i + add, root->children + i + 1,
          (size_t)after * sizeof(*root->children));
  if (add)
    memcpy(root->children + i, got->children, (size_t)add * sizeof(*got->children));
  root->children_num += add - 1;
  free(got->children);
  got->children = NULL;
  got->children_num = 0;
  jcli_cconf_items_clear(&old);
  return 0;
}

/* collectd's cf_include_all: each Include among root's items replaced by
 * what it reads. */
static int include_all(reader *rd, jc_conf_item *root, int depth) {
  for (int i = 0; i < root->children_num; i++) {
    jc_conf_item *inc = &root->children[i];
    if (strcasecmp(inc->key, "Include") != 0)
      continue;
    if (inc->values_num != 1 || inc->values[0].type != JC_CONF_STRING) {
      int r = note(rd, true,
                   "%s:%d: Include needs exactly one string, the "
                   "path; collectd ignores it",
                   inc->file, inc->line);
      if (r < 0)
        return rd_fail(rd, r, "out of memory");
      continue;
    }
    const char *pattern;
    int r = include_filter(rd, inc, &pattern);
    if (r < 0)
      return r;
    jc_conf_item got = {0};
    if ((r = read_generic(rd, inc->values[0].string, pattern, depth + 1, inc,
                          &got)) != 0)
      return r < 0 ? r : -EINVAL;
    if ((r = replace_child(root, i, &got)) < 0) {
      jcli_cconf_items_clear(&got);
      return rd_fail(rd, r, "out of memory");
    }
    i--; /* the first item read is looked at next, as collectd does */
  }
  return 0;
}

int jcli_cread_file(const char *path, jcli_cread **ret, char *why, size_t n) {
  jcli_cread *c = calloc(1, sizeof(*c));
  if (!c) {
    snprintf(why, n, "out of memory");
    return -ENOMEM;
  }
  reader rd = {c, why, n};
  struct stat st;
  if (!strpbrk(path, "*?[~$ \t") && stat(path, &st) < 0) { /* plainly not there */
    int e = errno;
    snprintf(why, n,
             "%s: %s (collectd: \"Configuration file %s is empty\", "
             "and it stops)",
             path, strerror(e), path);
    jcli_cread_free(c);
    return -e;
  }
  int r = read_generic(&rd, path, NULL, 0, NULL, &c->root);
  if (r != 0) {
    jcli_cread_free(c);
    return r < 0 ? r : -EINVAL;
  }
  if (c->root.children_num == 0) {
    snprintf(why, n, "%s holds no configuration%s%s%s (collectd: "
                     "\"Configuration file %s is empty\", and it stops)",
             path, c->note_count ? ": " : "",
             c->note_count ? c->notes[0].text : "",
             c->note_count > 1 ? ", ..." : "", path);
    jcli_cread_free(c);
    return -ENODATA;
  }
  *ret = c;
  return 0;
}

void jcli_cread_free(jcli_cread *c) {
  if (!c)
    return;
  jcli_cconf_items_clear(&c->root);
  free_names(c->files, c->file_count);
  for (size_t i = 0; i < c->note_count; i++)
    free(c->notes[i].text);
  free(c->notes);
  free(c);
}

/*
 * fuzz_cconf — jcli_cconf_parse() (collectd's configuration syntax, the
 * command's reader of it) on any bytes: a file's text, NULs included.
 *
 * Checks: it parses to 0, or -EINVAL (-ENOMEM) with a message
 * "NAME:LINE: ..."; a parsed tree has keys of [0-9A-Za-z_] only (and .:[] of an address,
 * which collectd's scanner makes a word too), every option one value or
 * more, no block with neither values nor children, lines that never go
 * back within a level, each item of the file parsed; and the tree written
 * back as configuration text (strings quoted with their quotes and
 * backslashes escaped, numbers with an exponent) parses to the same tree.
 */
// fuzz-sources: cli/jcli_cconf.c
#include "fuzz_util.h"
#include "jcli_cconf.h"

#include <errno.h>
#include <math.h>

static const char name[] = "fuzz.conf";

static void check_items(const jc_conf_item *parent) {
  int line = 0;
  for (int i = 0; i < parent->children_num; i++) {
    const jc_conf_item *ci = &parent->children[i];
    FUZZ_CHECK(ci->key && ci->key[0]);
    for (const char *k = ci->key; *k; k++)
      FUZZ_CHECK((*k >= '0' && *k <= '9') || (*k >= 'a' && *k <= 'z') ||
                 (*k >= 'A' && *k <= 'Z') || strchr("_.:[]", *k));
    FUZZ_CHECK(ci->values_num > 0 || ci->children_num > 0);
    FUZZ_CHECK(ci->file == name && ci->line >= line && ci->line > parent->line);
    line = ci->line;
    for (int k = 0; k < ci->values_num; k++) {
      const jc_conf_value *v = &ci->values[k];
      FUZZ_CHECK(v->type == JC_CONF_STRING || v->type == JC_CONF_NUMBER ||
                 v->type == JC_CONF_BOOLEAN);
      FUZZ_CHECK(v->type != JC_CONF_STRING || v->string);
    }
    check_items(ci);
  }
}

/* Appends to a growing text; aborts when out of memory (not the
 * property under test). */
typedef struct {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *s, size_t len) {
  if (t->len + len + 1 > t->cap) {
    t->cap = 2 * (t->len + len + 1);
    t->s = realloc(t->s, t->cap);
    FUZZ_CHECK(t->s);
  }
  memcpy(t->s + t->len, s, len);
  t->len += len;
  t->s[t->len] = '\0';
}

static void put_str(text *t, const char *s) { put(t, s, strlen(s)); }

/* The values of ci; false when one cannot be written back (a number
 * that is not finite: its text was no number either way). */
static bool write_values(text *t, const jc_conf_item *ci) {
  for (int k = 0; k < ci->values_num; k++) {
    const jc_conf_value *v = &ci->values[k];
    char num[64];
    put_str(t, " ");
    if (v->type == JC_CONF_BOOLEAN) {
      put_str(t, v->boolean ? "true" : "false");
    } else if (v->type == JC_CONF_NUMBER) {
      if (!isfinite(v->number))
        return false;
      snprintf(num, sizeof(num), "%.17e", v->number);
      put_str(t, num);
    } else {
      put_str(t, "\"");
      for (const char *c = v->string; *c; c++) {
        if (*c == '"' || *c == '\\')
          put_str(t, "\\");
        put(t, c, 1);
      }
      put_str(t, "\"");
    }
  }
  return true;
}

static bool write_items(text *t, const jc_conf_item *parent) {
  for (int i = 0; i < parent->children_num; i++) {
    const jc_conf_item *ci = &parent->children[i];
    bool block = ci->children_num > 0;
    put_str(t, block ? "<" : "");
    put_str(t, ci->key);
    if (!write_values(t, ci))
      return false;
    put_str(t, block ? ">\n" : "\n");
    if (block) {
      if (!write_items(t, ci))
        return false;
      put_str(t, "</");
      put_str(t, ci->key);
      put_str(t, ">\n");
    }
  }
  return true;
}

static void check_same(const jc_conf_item *a, const jc_conf_item *b) {
  FUZZ_CHECK(a->children_num == b->children_num);
  for (int i = 0; i < a->children_num; i++) {
    const jc_conf_item *x = &a->children[i], *y = &b->children[i];
    FUZZ_CHECK(strcmp(x->key, y->key) == 0);
    FUZZ_CHECK(x->values_num == y->values_num);
    for (int k = 0; k < x->values_num; k++) {
      const jc_conf_value *v = &x->values[k], *w = &y->values[k];
      FUZZ_CHECK(v->type == w->type);
      if (v->type == JC_CONF_STRING)
        FUZZ_CHECK(strcmp(v->string, w->string) == 0);
      else if (v->type == JC_CONF_NUMBER)
        FUZZ_CHECK(v->number == w->number);
      else
        FUZZ_CHECK(v->boolean == w->boolean);
    }
    check_same(x, y);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  char err[512];
  jc_conf_item root;
  int r = jcli_cconf_parse(buf, size, name, &root, err, sizeof(err));
  FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
  if (r < 0) {
    FUZZ_CHECK(strncmp(err, "fuzz.conf:", 10) == 0);
  } else {
    check_items(&root);
    text t = {0};
    put_str(&t, "");
    if (write_items(&t, &root)) {
      jc_conf_item again;
      FUZZ_CHECK(jcli_cconf_parse(t.s, t.len, name, &again, err,
                                  sizeof(err)) == 0);
      check_same(&root, &again);
      jcli_cconf_items_clear(&again);
    }
    free(t.s);
    jcli_cconf_items_clear(&root);
  }
  free(buf);
  return 0;
}

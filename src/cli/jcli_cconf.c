/*
 * jcli_cconf — see jcli_cconf.h.
 *
 * The scanner below is liboconfig's scanner.l done by hand: at each
 * position every rule is tried, the longest match wins and, of equal
 * ones, the rule written first; a character no rule matches is skipped
 * (flex's default rule echoes it).  The IPv4 and IPv6 rules are the
 * scanner's regular expressions done as sets of the places a match can
 * end (below), of which the furthest is the rule's match.  The grammar
 * (parser.y) is small enough for a recursive descent.
 */
#include "jcli_cconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the scanner --------------------------------------------------- */

typedef enum {
  TK_EOF,
  TK_EOL,
  TK_SLASH,
  TK_OPEN,
  TK_CLOSE,
  TK_TRUE,
  TK_FALSE,
  TK_NUMBER,
  TK_STRING, /* a quoted string, unquoted */
  TK_WORD,   /* an unquoted string: a key, or a bare value */
} tk_kind;

typedef struct {
  tk_kind kind;
  char *text; /* TK_STRING, TK_WORD: owned until taken */
  double number;
  int line;
  char near[40]; /* what the user wrote, for messages */
  int lost_line; /* TK_EOF: a continued string that never ended began here */
} token;

/* Deeper blocks than this are refused (bison's stack ends near 5,000). */
#define MAX_NESTING 1000

typedef struct {
  const char *s;
  size_t len, pos;
  int line;
  const char *name;
  char *why;
  size_t n;
} parser;

static int fail(parser *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(parser *p, int line, const char *fmt, ...) {
  int len = snprintf(p->why, p->n, "%s:%d: ", p->name, line);
  va_list ap;
  va_start(ap, fmt);
  if (len >= 0 && (size_t)len < p->n)
    vsnprintf(p->why + len, p->n - (size_t)len, fmt, ap);
  va_end(ap);
  return -EINVAL;
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\b'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_word(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c == '_';
}
static bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Moves to pos + k, counting the lines passed. */
static void advance(parser *p, size_t k) {
  for (size_t i = 0; i < k; i++)
    if (p->s[p->pos + i] == '\n')
      p->line++;
  p->pos += k;
}

static size_t eol_at(const parser *p, size_t i) {
  if (i < p->len && p->s[i] == '\n')
    return 1;
  if (i + 1 < p->len && p->s[i] == '\r' && p->s[i + 1] == '\n')
    return 2;
  return 0;
}

static size_t word_len(const parser *p, size_t i) {
  size_t k = i;
  while (k < p->len && is_word(p->s[k]))
    k++;
  return k - i;
}

/* The length of the first of words that starts at i (0: none). */
static size_t keyword_len(const parser *p, size_t i, const char *const *words) {
  for (; *words; words++) {
    size_t l = strlen(*words);
    if (i + l <= p->len && memcmp(p->s + i, *words, l) == 0)
      return l;
  }
  return 0;
}

static size_t digits(const parser *p, size_t i) {
  size_t k = i;
  while (k < p->len && is_digit(p->s[k]))
    k++;
  return k - i;
}

/* NUMBER: the longest of FLOAT_NUMBER, HEX_NUMBER, OCT_NUMBER, DEC_NUMBER. */
static size_t number_len(const parser *p, size_t i) {
  const char *s = p->s;
  size_t best = 0, k = i;
  if (k < p->len && (s[k] == '+' || s[k] == '-'))
    k++;
  size_t whole = digits(p, k);
  if (whole)
    best = k + whole - i; /* DEC_NUMBER */
  size_t f = k + whole;
  if (f < p->len && s[f] == '.' && digits(p, f + 1)) { /* FLOAT_NUMBER */
    f += 1 + digits(p, f + 1);
    if (f + 2 < p->len && (s[f] == 'e' || s[f] == 'E') &&
        (s[f + 1] == '+' || s[f + 1] == '-') && digits(p, f + 2))
      f += 2 + digits(p, f + 2);
    best = f - i > best ? f - i : best;
  }
  if (i + 1 < p->len && s[i] == '0') {
    size_t h = i + 2;
    if (s[i + 1] == 'x' || s[i + 1] == 'X')
      while (h < p->len && is_hex(s[h]))
        h++;
    if (h > i + 2 && h - i > best)
      best = h - i; /* HEX_NUMBER */
    size_t o = i + 1;
    while (o < p->len && s[o] >= '0' && s[o] <= '7')
      o++;
    if (o > i + 1 && o - i > best)
      best = o - i; /* OCT_NUMBER */
  }
  return best;
}

/*
 * The address rules.  A set of ends, bit k: a match can end k bytes
 * after the token's start b (no address is 64 bytes long).  Each step
 * takes the ends so far and gives those after one more part, so that
 * `[0-9A-Fa-f]{1,4}` followed by `:` tries every length, as a regular
 * expression does.
 */
typedef uint64_t ends;
#define END_MAX 63

/* One character of each class of seq (NULL-terminated) in turn. */
static ends seq(const parser *p, size_t b, ends from,
                const char *const *seq) {
  for (; *seq && from; seq++) {
    ends out = 0;
    for (int k = 0; k < END_MAX; k++)
      if ((from >> k & 1) && b + (size_t)k < p->len && p->s[b + k] != '\0' &&
          strchr(*seq, p->s[b + k]))
        out |= (ends)1 << (k + 1);
    from = out;
  }
  return from;
}

#define D "0123456789"
#define SEQ(...) seq(p, b, from, (const char *const[]){__VA_ARGS__, NULL})

static ends hex16(const parser *p, size_t b, ends from) {
  static const char *const x = D "abcdefABCDEF";
  ends one = SEQ(x), two = seq(p, b, one, (const char *const[]){x, NULL});
  ends three = seq(p, b, two, (const char *const[]){x, NULL});
  return one | two | three | seq(p, b, three, (const char *const[]){x, NULL});
}

/* IP_BYTE: (2(5[0-5]|[0-4][0-9])|1[0-9][0-9]|[1-9]?[0-9]) */
static ends ip_byte(const parser *p, size_t b, ends from) {
  return SEQ("2", "5", "012345") | SEQ("2", "01234", D) | SEQ("1", D, D) |
         SEQ("123456789", D) | SEQ(D);
}

/* PORT: 1 to 65535 without leading zeros */
static ends port(const parser *p, size_t b, ends from) {
  return SEQ("6", "5", "5", "3", "012345") | SEQ("6", "5", "5", "012", D) |
         SEQ("6", "5", "01234", D, D) | SEQ("6", "01234", D, D, D) |
         SEQ("12345", D, D, D, D) | SEQ("123456789") |
         SEQ("123456789", D) | SEQ("123456789", D, D) |
         SEQ("123456789", D, D, D);
}

static ends maybe_port(const parser *p, size_t b, ends from) {
  return from | port(p, b, SEQ(":"));
}

static ends ipv4(const parser *p, size_t b, ends from) {
  for (int i = 0; i < 4; i++)
    from = ip_byte(p, b, i ? SEQ(".") : from);
  return maybe_port(p, b, from);
}

/* ({HEX16}:) n times, for n from min to max */
static ends hex_colons(const parser *p, size_t b, ends from, int min,
                       int max) {
  ends out = min == 0 ? from : 0;
  for (int n = 1; n <= max; n++) {
    from = hex16(p, b, from);
    from = SEQ(":");
    if (n >= min)
      out |= from;
  }
  return out;
}

static ends v6_part(const parser *p, size_t b, ends from) {
  ends h = hex16(p, b, from);
  return hex16(p, b, seq(p, b, h, (const char *const[]){":", NULL})) |
         ipv4(p, b, from);
}

/* (({HEX16}:){0,n}{HEX16})?:: */
static ends left_colons(const parser *p, size_t b, ends from, int n) {
  ends left = from | hex16(p, b, hex_colons(p, b, from, 0, n));
  return seq(p, b, left, (const char *const[]){":", ":", NULL});
}

static ends ipv6_base(const parser *p, size_t b, ends from) {
  ends out = v6_part(p, b, hex_colons(p, b, from, 6, 6));
  out |= v6_part(p, b, hex_colons(p, b, SEQ(":", ":"), 5, 5));
  out |= v6_part(p, b, hex_colons(p, b, left_colons(p, b, from, -1), 4, 4));
  out |= v6_part(p, b, hex_colons(p, b, left_colons(p, b, from, 1), 3, 3));
  out |= v6_part(p, b, hex_colons(p, b, left_colons(p, b, from, 2), 2, 2));
  out |= v6_part(p, b, hex_colons(p, b, left_colons(p, b, from, 3), 1, 1));
  out |= v6_part(p, b, left_colons(p, b, from, 4));
  out |= hex16(p, b, left_colons(p, b, from, 5));
  return out | left_colons(p, b, from, 6);
}

static ends ipv6(const parser *p, size_t b, ends from) {
  ends inside = ipv6_base(p, b, SEQ("["));
  return ipv6_base(p, b, from) |
         maybe_port(p, b, seq(p, b, inside, (const char *const[]){"]", NULL}));
}

#undef SEQ
#undef D

/* The furthest end, or 0. */
static size_t furthest(ends e) {
  size_t k = 0;
  for (e >>= 1; e; e >>= 1)
    k++;
  return k;
}

/* From i (after an opening quote or the first character of a continued
 * string), QUOTED_STRING as far as it goes: *ret_quote is the end of a
 * match closed by a quote (0: none), *ret_cont the end of the longest
 * closed by a backslash and a newline (0: none), *ret_cut where that
 * backslash is. */
static void scan_quoted(const parser *p, size_t i, size_t *ret_quote,
                        size_t *ret_cont, size_t *ret_cut) {
  const char *s = p->s;
  *ret_quote = *ret_cont = *ret_cut = 0;
  while (i < p->len) {
    if (s[i] == '"') {
      *ret_quote = i + 1;
      return;
    }
    if (s[i] != '\\') {
      i++;
      continue;
    }
    size_t eol = eol_at(p, i + 1);
    if (eol) {
      *ret_cont = i + 1 + eol;
      *ret_cut = i;
    }
    if (eol == 1 || i + 1 >= p->len)
      return; /* `\.` takes no newline; a lone backslash ends it */
    i += 2;
  }
}

/* liboconfig's unquote(): the surrounding quotes off, then every
 * backslash dropped and the character after it kept. */
static void unquote(char *s) {
  size_t len = strlen(s);
  if (len < 2 || s[0] != '"' || s[len - 1] != '"')
    return;
  len -= 2;
  memmove(s, s + 1, len);
  s[len] = '\0';
  for (size_t i = 0; i < len; i++)
    if (s[i] == '\\') {
      memmove(s + i, s + i + 1, len - i);
      len--;
    }
}

/* Appends src[0..len), as a C string (it ends at a NUL, as flex's
 * yytext does for liboconfig), to the growing *buf. */
static int append_text(char **buf, size_t *used, const char *src,
                       size_t len) {
  len = strnlen(src, len);
  char *grown = realloc(*buf, *used + len + 1);
  if (!grown)
    return -ENOMEM;
  memcpy(grown + *used, src, len);
  *used += len;
  grown[*used] = '\0';
  *buf = grown;
  return 0;
}

static void near_text(token *t, const char *s, size_t len) {
  if (len == 1 && s[0] == '\n') {
    snprintf(t->near, sizeof(t->near), "<newline>");
    return;
  }
  size_t k = 0;
  for (size_t i = 0; i < len && k + 4 < sizeof(t->near); i++)
    t->near[k++] = s[i] == '\n' || s[i] == '\0' ? ' ' : s[i];
  if (len > k)
    memcpy(t->near + k, "...", 4);
  else
    t->near[k] = '\0';
}

/* A string continued over lines (the scanner's ML state): buf holds its
 * text up to the first backslash-newline, p->pos is at the next line. */
static int scan_continued(parser *p, char *buf, size_t used, token *t) {
  bool bol = true;
  for (;;) {
    if (p->pos >= p->len) { /* flex ends the scan: the string is lost */
      free(buf);
      t->kind = TK_EOF;
      t->lost_line = t->line;
      t->line = p->line;
      return 0;
    }
    char c = p->s[p->pos];
    if (is_blank(c)) { /* a line's leading blanks go (^{WHITE_SPACE}+); */
      do                 /* another blank matches no rule */
        advance(p, 1);
      while (bol && p->pos < p->len && is_blank(p->s[p->pos]));
      bol = false;
      continue;
    }
    size_t quote, cont, cut;
    scan_quoted(p, p->pos + 1, &quote, &cont, &cut);
    if (!quote && !cont) {
      bol = c == '\n';
      advance(p, 1);
      continue;
    }
    size_t start = p->pos;
    size_t end = quote > cont ? quote : cont;
    int r = append_text(&buf, &used, p->s + start,
                        (quote > cont ? quote : cut) - start);
    if (r < 0) {
      free(buf);
      return r;
    }
    advance(p, end - start);
    if (quote > cont) {
      unquote(buf);
      t->kind = TK_STRING;
      t->text = buf;
      return 0;
    }
    bol = true;
  }
}

/* The rules that start a word, string or number, in the scanner's order
 * (the first wins a tie). */
enum { R_TRUE, R_FALSE, R_IPV4, R_IPV6, R_NUMBER, R_QUOTED, R_WORD, R_CONT,
       R_COUNT };

static void word_rules(parser *p, size_t i, size_t len[R_COUNT],
                       size_t *ret_cut) {
  static const char *const yes[] = {"true", "yes", "on", NULL};
  static const char *const no[] = {"false", "no", "off", NULL};
  memset(len, 0, R_COUNT * sizeof(*len));
  char c = p->s[i];
  len[R_TRUE] = keyword_len(p, i, yes);
  len[R_FALSE] = keyword_len(p, i, no);
  if (is_hex(c) || c == ':' || c == '[') {
    len[R_IPV4] = furthest(ipv4(p, i, 1));
    len[R_IPV6] = furthest(ipv6(p, i, 1));
  }
  len[R_NUMBER] = number_len(p, i);
  if (c == '"') {
    size_t quote, cont;
    scan_quoted(p, i + 1, &quote, &cont, ret_cut);
    len[R_QUOTED] = quote ? quote - i : 0;
    len[R_CONT] = cont ? cont - i : 0;
  }
  len[R_WORD] = word_len(p, i);
}

/* The next token at p->pos. */
static int scan(parser *p, token *t) {
  *t = (token){.kind = TK_EOF};
  for (;;) {
    t->line = p->line;
    if (p->pos >= p->len) {
      snprintf(t->near, sizeof(t->near), "end of file");
      return 0;
    }
    const char *s = p->s + p->pos;
    size_t eol = eol_at(p, p->pos);
    if (is_blank(*s)) {
      advance(p, 1);
    } else if (*s == '#') {
      size_t k = 0;
      while (p->pos + k < p->len && s[k] != '\n')
        k++;
      advance(p, k);
    } else if (*s == '\\' && eol_at(p, p->pos + 1)) {
      advance(p, 1 + eol_at(p, p->pos + 1)); /* a line continued */
    } else if (eol || *s == '/' || *s == '<' || *s == '>') {
      t->kind = eol ? TK_EOL : *s == '/' ? TK_SLASH : *s == '<' ? TK_OPEN : TK_CLOSE;
      near_text(t, s, 1);
      advance(p, eol ? eol : 1);
      return 0;
    } else {
      size_t len[R_COUNT], cut = 0;
      int best = -1;
      word_rules(p, p->pos, len, &cut);
      for (int r = 0; r < R_COUNT; r++)
        if (len[r] && (best < 0 || len[r] > len[best]))
          best = r;
      if (best < 0) { /* no rule: flex echoes the character */
        advance(p, 1);
        continue;
      }
      size_t k = len[best];
      near_text(t, s, best == R_CONT ? cut - p->pos : k);
      if (best == R_TRUE || best == R_FALSE) {
        t->kind = best == R_TRUE ? TK_TRUE : TK_FALSE;
        advance(p, k);
        return 0;
      }
      char *text = NULL;
      size_t used = 0;
      int r = append_text(&text, &used, s, best == R_CONT ? cut - p->pos : k);
      if (r < 0)
        return r;
      advance(p, k);
      if (best == R_CONT)
        return scan_continued(p, text, used, t);
      if (best == R_NUMBER) {
        t->kind = TK_NUMBER;
        t->number = strtod(text, NULL);
        free(text);
        return 0;
      }
      if (best == R_QUOTED)
        unquote(text);
      t->kind = best == R_QUOTED ? TK_STRING : TK_WORD;
      t->text = text;
      return 0;
    }
  }
}

/* ---- the grammar --------------------------------------------------- */

static void value_clear(jc_conf_value *v) {
  if (v->type == JC_CONF_STRING)
    free(v->string);
}

static void item_clear(jc_conf_item *ci) {
  free(ci->key);
  for (int i = 0; i < ci->values_num; i++)
    value_clear(&ci->values[i]);
  free(ci->values);
  for (int i = 0; i < ci->children_num; i++)
    item_clear(&ci->children[i]);
  free(ci->children);
}

void jcli_cconf_items_clear(jc_conf_item *root) {
  if (!root)
    return;
  item_clear(root);
  *root = (jc_conf_item){0};
}

static bool is_value(const token *t) {
  return t->kind == TK_NUMBER || t->kind == TK_TRUE || t->kind == TK_FALSE ||
         t->kind == TK_STRING || t->kind == TK_WORD;
}

/* Takes the value of t into ci's values. */
static int add_value(jc_conf_item *ci, token *t) {
  jc_conf_value *grown =
      realloc(ci->values, (size_t)(ci->values_num + 1) * sizeof(*grown));
  if (!grown)
    return -ENOMEM;
  ci->values = grown;
  jc_conf_value *v = &grown[ci->values_num++];
  if (t->kind == TK_NUMBER)
    *v = (jc_conf_value){.type = JC_CONF_NUMBER, .number = t->number};
  else if (t->kind == TK_TRUE || t->kind == TK_FALSE)
    *v = (jc_conf_value){.type = JC_CONF_BOOLEAN, .boolean = t->kind == TK_TRUE};
  else
    *v = (jc_conf_value){.type = JC_CONF_STRING, .string = t->text};
  t->text = NULL;
  return 0;
}

static int out_of_memory(parser *p) {
  fail(p, p->line, "out of memory");
  return -ENOMEM;
}

/* Values up to the token that ends them, left in *t. */
static int scan_values(parser *p, jc_conf_item *ci, token *t) {
  for (;;) {
    if (scan(p, t) < 0)
      return out_of_memory(p);
    if (!is_value(t))
      return 0;
    if (add_value(ci, t) < 0) {
      free(t->text);
      return out_of_memory(p);
    }
  }
}

/* A string continued with a backslash that the file ends inside. */
static int lost_string(parser *p, const token *t) {
  return fail(p, t->lost_line, "a quoted string continued with a backslash "
                               "at the end of the line runs to the end of "
                               "the file without its closing quote");
}

/* t must be the end of a line. */
static int expect_eol(parser *p, const token *t, const char *after) {
  if (t->kind == TK_EOL)
    return 0;
  if (t->lost_line)
    return lost_string(p, t);
  if (t->kind == TK_EOF)
    return fail(p, t->line, "the file ends without a newline after %s; "
                            "collectd's parser needs one",
                after);
  return fail(p, t->line, "unexpected \"%s\" after %s; expected the end of "
                          "the line",
              t->near, after);
}

static int parse_list(parser *p, const jc_conf_item *block, int depth,
                      jc_conf_item *parent);

/* `Key value ...` with its first token, the key, in t. */
static int parse_option(parser *p, token *t, jc_conf_item *ci) {
  *ci = (jc_conf_item){.key = t->text, .file = p->name, .line = t->line};
  t->text = NULL;
  token end;
  int r = scan_values(p, ci, &end);
  if (r < 0)
    return r;
  if (end.lost_line)
    return lost_string(p, &end);
  if (ci->values_num == 0)
    return fail(p, ci->line, "%s has no value; an option needs one or more "
                             "(near \"%s\")",
                ci->key, end.near);
  char after[96];
  snprintf(after, sizeof(after), "the values of %s", ci->key);
  return expect_eol(p, &end, after);
}

/* `</Key>` after its `<`: 1 when it closes block, -1 on a mismatch. */
static int parse_block_end(parser *p, const jc_conf_item *block, int line) {
  token t;
  if (scan(p, &t) < 0)
    return out_of_memory(p);
  if (t.kind != TK_WORD) {
    free(t.text);
    return fail(p, line, "unexpected \"%s\" after \"</\"; expected a block's "
                         "name",
                t.near);
  }
  char *name = t.text;
  if (!block) {
    int r = fail(p, line, "</%s> closes no block", name);
    free(name);
    return r;
  }
  bool same = strcmp(name, block->key) == 0;
  if (!same)
    fail(p, line, "</%s> does not close <%s> of line %d (collectd: block not "
                  "closed; the names must match, case included)",
         name, block->key, block->line);
  free(name);
  if (!same)
    return -EINVAL;
  if (scan(p, &t) < 0)
    return out_of_memory(p);
  if (t.kind != TK_CLOSE) {
    free(t.text);
    return fail(p, line, "unexpected \"%s\" in </%s>; expected \">\"",
                t.near, block->key);
  }
  if (scan(p, &t) < 0)
    return out_of_memory(p);
  free(t.text);
  char after[96];
  snprintf(after, sizeof(after), "</%s>", block->key);
  int r = expect_eol(p, &t, after);
  return r < 0 ? r : 1;
}

/* `<Key value ...>` after its `<`, its children and its end. */
static int parse_block(parser *p, token *t, int depth, jc_conf_item *ci) {
  *ci = (jc_conf_item){.key = t->text, .file = p->name, .line = t->line};
  t->text = NULL;
  if (depth >= MAX_NESTING)
    return fail(p, ci->line, "blocks nested deeper than %d levels",
                MAX_NESTING);
  token end;
  int r = scan_values(p, ci, &end);
  if (r < 0)
    return r;
  if (end.lost_line)
    return lost_string(p, &end);
  if (end.kind != TK_CLOSE) {
    free(end.text);
    return fail(p, ci->line, "unexpected \"%s\" in <%s ...>; expected \">\"",
                end.near, ci->key);
  }
  if (scan(p, &end) < 0)
    return out_of_memory(p);
  free(end.text);
  char after[96];
  snprintf(after, sizeof(after), "<%s>", ci->key);
  if ((r = expect_eol(p, &end, after)) < 0)
    return r;
  return parse_list(p, ci, depth + 1, ci);
}

static int add_child(parser *p, jc_conf_item *parent, jc_conf_item *ci) {
  jc_conf_item *grown = realloc(parent->children,
                                (size_t)(parent->children_num + 1) * sizeof(*grown));
  if (!grown) {
    item_clear(ci);
    return out_of_memory(p);
  }
  parent->children = grown;
  grown[parent->children_num++] = *ci;
  return 0;
}

/* Statements into parent's children until the end of the file (block
 * NULL) or of block. */
static int parse_list(parser *p, const jc_conf_item *block, int depth,
                      jc_conf_item *parent) {
  for (;;) {
    token t;
    if (scan(p, &t) < 0)
      return out_of_memory(p);
    if (t.kind == TK_EOL)
      continue;
    if (t.kind == TK_EOF) {
      if (!block)
        return 0;
      return fail(p, block->line, "<%s> is not closed: the file ends before "
                                  "its </%s>",
                  block->key, block->key);
    }
    jc_conf_item ci = {0};
    int r;
    if (t.kind == TK_WORD) {
      r = parse_option(p, &t, &ci);
    } else if (t.kind == TK_OPEN) {
      int line = t.line;
      if (scan(p, &t) < 0)
        return out_of_memory(p);
      if (t.kind == TK_SLASH)
        return (r = parse_block_end(p, block, line)) < 0 ? r : 0;
      if (t.kind != TK_WORD) {
        free(t.text);
        return fail(p, line, "unexpected \"%s\" after \"<\"; expected a "
                             "block's name",
                    t.near);
      }
      r = parse_block(p, &t, depth, &ci);
      /* collectd drops a block with neither values nor children */
      if (r == 0 && ci.values_num == 0 && ci.children_num == 0) {
        item_clear(&ci);
        continue;
      }
    } else {
      free(t.text);
      return fail(p, t.line, "unexpected \"%s\" at the start of a line; "
                             "expected an option's name or a block",
                  t.near);
    }
    if (r < 0) {
      item_clear(&ci);
      return r;
    }
    if ((r = add_child(p, parent, &ci)) < 0)
      return r;
  }
}

int jcli_cconf_parse(const char *text, size_t len, const char *name,
                     jc_conf_item *ret_root, char *why, size_t n) {
  parser p = {.s = text, .len = len, .line = 1, .name = name, .why = why,
              .n = n};
  *ret_root = (jc_conf_item){.file = name};
  int r = parse_list(&p, NULL, 0, ret_root);
  if (r < 0)
    jcli_cconf_items_clear(ret_root);
  return r;
}

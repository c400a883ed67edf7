/* Unit tests of jcli_cconf and jcli_cread: collectd's configuration syntax as collectd
 * 5.12 parses it (each expected tree below is what collectd made of the
 * same text, as its own error messages showed it), and its Includes on
 * trees of files made here.  tests/cli_check.sh holds both to the real
 * collectd. */
#include "fixture_util.h"
#include "jcli_cread.h"
#include "tap.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[2048];

/* The tree as text: one line per item, values as the plugin's messages
 * show them, children indented. */
static void dump(const jc_conf_item *ci, int depth, char *out, size_t size) {
  for (int i = 0; i < ci->children_num; i++) {
    const jc_conf_item *c = &ci->children[i];
    size_t len = strlen(out);
    snprintf(out + len, size - len, "%*s%s", depth * 2, "", c->key);
    for (int k = 0; k < c->values_num; k++) {
      const jc_conf_value *v = &c->values[k];
      len = strlen(out);
      if (v->type == JC_CONF_STRING)
        snprintf(out + len, size - len, " \"%s\"", v->string);
      else if (v->type == JC_CONF_NUMBER)
        snprintf(out + len, size - len, " %g", v->number);
      else
        snprintf(out + len, size - len, " %s", v->boolean ? "true" : "false");
    }
    len = strlen(out);
    snprintf(out + len, size - len, "\n");
    dump(c, depth + 1, out, size);
  }
}

static void parses(const char *text, const char *want, const char *what) {
  jc_conf_item root;
  char got[4096] = "";
  int r = jcli_cconf_parse(text, strlen(text), "t.conf", &root, err,
                           sizeof(err));
  if (r == 0)
    dump(&root, 0, got, sizeof(got));
  ok(r == 0 && strcmp(got, want) == 0, "%s", what);
  if (r < 0)
    printf("# error: %s\n", err);
  else if (strcmp(got, want) != 0)
    printf("# got:\n%s# want:\n%s", got, want);
  jcli_cconf_items_clear(&root);
}

static void refused(const char *text, const char *part, const char *what) {
  jc_conf_item root;
  int r = jcli_cconf_parse(text, strlen(text), "t.conf", &root, err,
                           sizeof(err));
  ok(r < 0 && strstr(err, part), "%s: %s", what, r < 0 ? err : "accepted");
  if (r == 0)
    jcli_cconf_items_clear(&root);
}

static void syntax(void) {
  parses("Zz \"a\\\"b\" 1.5 true on yes off no True 0x10 010 -3 +.5 1e5 "
         "1.2.3.4 1.2e+3 fe80::1 [::1]:80 abc_9\n",
         "Zz \"a\"b\" 1.5 true true true false false \"True\" 16 10 -3 0.5 "
         "\"1e5\" \"1.2.3.4\" 1200 \"fe80::1\" \"[::1]:80\" \"abc_9\"\n",
         "values: the longest rule wins, booleans are six words");
  parses("Zz a-b c:d e.f\n", "Zz \"a\" \"b\" \"c\" \"d\" \"e\" \"f\"\n",
         "a character no rule matches is skipped");
  parses("Zz 1.5e3 .5 5. 08 0x 0xg\n",
         "Zz 1.5 \"e3\" 0.5 5 8 \"0x\" \"0xg\"\n",
         "numbers: an exponent needs its sign; 08 is decimal");
  parses("Zz 1.2.3.456 :: 1::2 a::b:c [fe80::1]:8080 256.1.1.1 "
         "1.2.3.4:99999 ::ffff:1.2.3.4 dead:beef\n",
         "Zz \"1.2.3.45\" 6 \"::\" \"1::2\" \"a::b:c\" \"[fe80::1]:8080\" "
         "256.1 0.1 0.1 \"1.2.3.4:9999\" 9 \"::ffff:1.2.3.4\" \"dead\" "
         "\"beef\"\n",
         "addresses: IPv4 and IPv6 as collectd's scanner matches them");
  parses("Zz onion on off_ +1 -x .x 1.\n",
         "Zz \"onion\" true \"off_\" 1 \"x\" \"x\" 1\n",
         "words that start like booleans and numbers");
  parses("Zz \"multi\\\n   line\"\n", "Zz \"multiline\"\n",
         "a string continued with a backslash: the next line's blanks go");
  parses("Zz \"multi\n   line\"\n", "Zz \"multi\n   line\"\n",
         "a quoted string spans lines");
  parses("Zz \"a\\\n  b\\\n c\"\n", "Zz \"abc\"\n",
         "a string continued over three lines");
  parses("Zz \"x\\ny\\\\z\"\n", "Zz \"xny\\z\"\n",
         "\\x in a quoted string is x");
  parses("Zz foo # comment \"x\"\nZz foo \\\n bar\n",
         "Zz \"foo\"\nZz \"foo\" \"bar\"\n",
         "comments; a line continued with a backslash");
  parses("Zz \"a\" \"b\\\"\n", "Zz \"a\" \"b\"\n",
         "an unclosed quote is skipped, the word kept");
  parses("A 1\r\n<B x>\r\n  C \"y\"\r\n</B>\r\n", "A 1\nB \"x\"\n  C \"y\"\n",
         "CRLF line ends");
  parses("Zz \"a\\\r\n  b\" x\n", "Zz \"a\r\n  b\" \"x\"\n",
         "a backslash before CRLF inside a closed string is an escape");
  parses("<Plugin a>\n</Plugin>\n<P>\n</P>\n<Q>\n  <R>\n  </R>\n</Q>\n",
         "Plugin \"a\"\n",
         "a block with neither values nor children is dropped");
  parses("", "", "an empty text");
  parses("\n\n# only\n  \n", "", "blank lines and comments only");
  parses("X 1\n\"abc\\\n", "X 1\n",
         "a string continued to the end: flex drops it");

  jc_conf_item root;
  const char *text = "\n\nA 1\n<B \"x\">\n\n  C 2\n</B>\n";
  if (jcli_cconf_parse(text, strlen(text), "t.conf", &root, err,
                       sizeof(err)) == 0) {
    ok(root.children_num == 2 && root.children[0].line == 3 &&
           root.children[1].line == 4 && root.children[1].children[0].line == 6 &&
           strcmp(root.children[1].children[0].file, "t.conf") == 0,
       "each item knows its file and line");
    jcli_cconf_items_clear(&root);
  } else {
    ok(0, "each item knows its file and line: %s", err);
  }
  static const char nul[] = "Zz \"a\0b\" c\n";
  if (jcli_cconf_parse(nul, sizeof(nul) - 1, "t.conf", &root, err,
                       sizeof(err)) == 0) {
    char got[256] = "";
    dump(&root, 0, got, sizeof(got));
    is_str(got, "Zz \"\"a\" \"c\"\n",
           "a NUL cuts a string as collectd's strdup does");
    jcli_cconf_items_clear(&root);
  } else {
    ok(0, "a NUL inside a string: %s", err);
  }

  refused("Interval 10", "ends without a newline after the values of Interval",
          "the last line's newline");
  refused("<Plugin a>\n  K 1\n</Plugin>", "without a newline after </Plugin>",
          "after </Plugin>");
  refused("Interval\n", "Interval has no value", "an option without value");
  refused("<Plugin a>\nK 1\n", "t.conf:1: <Plugin> is not closed",
          "a block the file ends in");
  refused("<Plugin a>\n</plugin>\n", "</plugin> does not close <Plugin>",
          "block names match with their case");
  refused("</Plugin>\n", "</Plugin> closes no block", "an end without block");
  refused("K 1 <\n", "unexpected \"<\" after the values of K", "a < after values");
  refused("\"x\" 1\n", "at the start of a line", "a line starting with a string");
  refused("<Plugin \"a\\\n", "runs to the end of the file",
          "a continued string never closed");
  refused("Zz \"a\\\n  b\\\n c\\\n\"d\n", "runs to the end of the file",
          "a continued string whose last line opens another");
  refused("X 1\n\"abc\\", "abc has no value", "a backslash at the very end");
  refused("<1 x>\n</1>\n", "unexpected \"1\" after \"<\"", "a block named by a number");
  char deep[8 * 1100 + 1] = "";
  for (int i = 0; i < 1100; i++)
    strcat(deep, "<A 1>\n");
  refused(deep, "nested deeper than 1000", "blocks nested too deep");
}

/* ---- Includes ---------------------------------------------------------- */

static const char *dir; /* fx_tmpdir's */

/* want (or text) with DIR replaced by the temporary directory. */
static void with_dir(const char *text, char *out, size_t size) {
  out[0] = '\0';
  for (const char *w = text; *w;) {
    const char *d = strstr(w, "DIR");
    size_t len = strlen(out);
    if (!d) {
      snprintf(out + len, size - len, "%s", w);
      break;
    }
    snprintf(out + len, size - len, "%.*s%s", (int)(d - w), w, dir);
    w = d + 3;
  }
}

/* The tree after the read with the notes after it ("warning: ..."), or
 * the error; DIR in main_text and want is the temporary directory. */
static void reads(const char *main_text, const char *want, const char *what) {
  char text[4096], want_full[4096];
  with_dir(main_text, text, sizeof(text));
  with_dir(want, want_full, sizeof(want_full));
  fx_write("main.conf", text);
  char path[PATH_MAX + 16], got[4096] = "";
  snprintf(path, sizeof(path), "%s/main.conf", dir);
  jcli_cread *c;
  if (jcli_cread_file(path, &c, err, sizeof(err)) < 0) {
    snprintf(got, sizeof(got), "error: %s\n", err);
  } else {
    dump(&c->root, 0, got, sizeof(got));
    for (size_t i = 0; i < c->note_count; i++) {
      size_t len = strlen(got);
      snprintf(got + len, sizeof(got) - len, "%s: %s\n",
               c->notes[i].error ? "error" : "warning", c->notes[i].text);
    }
    jcli_cread_free(c);
  }
  ok(strcmp(got, want_full) == 0, "%s", what);
  if (strcmp(got, want_full) != 0)
    printf("# got:\n%s# want:\n%s", got, want_full);
}

static void includes(void) {
  dir = fx_tmpdir();
  fx_mkdirs("d/.hid");
  fx_mkdirs("d/sub");
  fx_mkdir("e");
  fx_write("d/1.conf", "<Plugin \"d1\">\n  K 1\n</Plugin>\n");
  fx_write("d/2.txt", "T \"d2\"\n");
  fx_write("d/Z.conf", "Z 1\n");
  fx_write("d/.hidden.conf", "Hidden 1\n");
  fx_write("d/.hid/x.conf", "HiddenDir 1\n");
  fx_write("d/sub/3.conf", "Sub 3\n");
  fx_write("d/sub.conf", "SubConf 1\n");
  fx_writef("a.conf", "A 1\nInclude \"%s/b.conf\"\nA 2\n", dir);
  fx_write("b.conf", "B 1\n");
  fx_write("bad.conf", "Bad\n");
  fx_writef("loop.conf", "Include \"%s/loop.conf\"\n", dir);
  fx_write("e/1.conf", "Bad\n");
  fx_write("e/2.conf", "Good 1\n");

  reads("First 1\nInclude \"DIR/d\"\nLast 1\n",
        "First 1\nPlugin \"d1\"\n  K 1\nT \"d2\"\nZ 1\nSub 3\nSubConf 1\nLast 1\n",
        "a directory: sorted, dot files out, subdirectories in");
  reads("<Include \"DIR/d\">\n  Filter \"*.conf\"\n</Include>\n",
        "Plugin \"d1\"\n  K 1\nZ 1\nSub 3\nSubConf 1\n",
        "Filter keeps the files whose names match, in subdirectories too");
  reads("Include \"DIR/a.conf\"\n", "A 1\nB 1\nA 2\n",
        "an included file's Include is followed in place");
  reads("Include \"DIR/[ab].conf\"\n", "A 1\nB 1\nA 2\nB 1\n",
        "a glob: each match in order");
  reads("X 1\nInclude \"DIR/nothing*.conf\"\n",
        "X 1\nwarning: DIR/main.conf:2: Include \"DIR/nothing*.conf\": "
        "DIR/nothing*.conf: No such file or directory; collectd goes on "
        "without it\n",
        "a path that matches nothing: a warning, as collectd's");
  reads("<Include \"DIR/a.conf\">\n  Filter \"*.txt\"\n</Include>\n",
        "error: DIR/main.conf:1: Include \"DIR/a.conf\": DIR/a.conf does not "
        "match the Filter \"*.txt\", and collectd 5.12 then gives up "
        "reading its configuration (\"Unable to read config file\"); "
        "include its directory instead\n",
        "a file its own Filter leaves out stops collectd");
  reads("Include \"DIR/bad.conf\"\n",
        "error: DIR/bad.conf:1: Bad has no value; an option needs one or "
        "more (near \"<newline>\")\n",
        "a parse error in an included file stops it");
  reads("Include \"DIR/e\"\n",
        "Good 1\nerror: DIR/e/1.conf:1: Bad has no value; an option needs "
        "one or more (near \"<newline>\"); collectd leaves DIR/e/1.conf out "
        "(ERROR) and reads on\n",
        "a parse error in a file of an included directory: left out");
  reads("Include \"DIR/loop.conf\"\n",
        "error: DIR/loop.conf:1: Include \"DIR/loop.conf\": Includes nested "
        "deeper than 8 levels (a file that includes itself?)\n",
        "an Include loop ends at 8 levels");
  reads("Include \"DIR/a.conf\" \"x\"\n<Include \"DIR/b.conf\">\n  Bogus 1\n"
        "</Include>\n<Plugin p>\n  Include \"DIR/b.conf\"\n</Plugin>\n",
        "Include \"DIR/a.conf\" \"x\"\nB 1\nPlugin \"p\"\n  Include "
        "\"DIR/b.conf\"\nerror: DIR/main.conf:1: Include needs exactly one "
        "string, the path; collectd ignores it\nerror: DIR/main.conf:3: "
        "option Bogus is not allowed in <Include>; collectd ignores it\n",
        "bad Includes are noted; an Include inside a block is not one");
  reads("Include \"DIR/{a,b}.conf\"\n",
        "error: DIR/main.conf:1: Include \"DIR/{a,b}.conf\": collectd cannot "
        "expand the path (wordexp: a character of |&;<>(){} or a newline)\n",
        "a path wordexp refuses");
  reads("# nothing\n", "error: DIR/main.conf holds no configuration "
                       "(collectd: \"Configuration file DIR/main.conf is "
                       "empty\", and it stops)\n",
        "a configuration without items");
  fx_cleanup();
}

int main(void) {
  syntax();
  includes();
  return done_testing();
}

/* Unit tests of jc_name: instances from paths and basenames, the 127-byte
 * rule with its hash prefix, and collision suffixes; names chosen by
 * others read as jc_utf8 reads them, strictly, and shown escaped. */
#include "jc_name.h"
#include "jc_utf8.h"
#include "tap.h"

#include <errno.h>

int main(void) {
  char name[JC_INSTANCE_SIZE];
  is_u64(jc_name_fnv1a32(""), 0x811c9dc5u, "fnv1a32 of \"\" is the offset basis");
  is_u64(jc_name_fnv1a32("a"), 0xe40c292cu, "fnv1a32(\"a\") known value");
  is_u64(jc_name_fnv1a32("foobar"), 0xbf9cf968u, "fnv1a32(\"foobar\") known value");

  jc_name_instance("", JC_INSTANCE_FROM_PATH, name);
  is_str(name, "root", "root cgroup");
  jc_name_instance("", JC_INSTANCE_FROM_BASENAME, name);
  is_str(name, "root", "root cgroup with basename");
  jc_name_instance("system.slice/nginx.service", JC_INSTANCE_FROM_PATH, name);
  is_str(name, "system.slice_nginx.service", "path: / becomes _");
  jc_name_instance("system.slice/nginx.service", JC_INSTANCE_FROM_BASENAME,
                   name);
  is_str(name, "nginx.service", "basename");
  jc_name_instance("init.scope", JC_INSTANCE_FROM_BASENAME, name);
  is_str(name, "init.scope", "basename of a first-level cgroup");

  const char *k8s =
      "kubepods.slice/kubepods-burstable.slice/"
      "kubepods-burstable-pod6b1e2a4c_9f3d_4e2b_8a7c_1d2e3f4a5b6c.slice/"
      "cri-containerd-"
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope";
  jc_name_instance(k8s, JC_INSTANCE_FROM_PATH, name);
  is_int(strlen(name), JC_INSTANCE_MAX, "long path: exactly 127 bytes");
  char prefix[16];
  snprintf(prefix, sizeof(prefix), "%08x~", jc_name_fnv1a32(k8s));
  ok(strncmp(name, prefix, 9) == 0, "long path: hash prefix %s", prefix);
  ok(strstr(name, "cri-containerd-0123456789abcdef") &&
         strcmp(name + strlen(name) - 6, ".scope") == 0,
     "long path: keeps the container id tail (%s)", name);

  char exact[JC_INSTANCE_SIZE + 1];
  memset(exact, 'x', JC_INSTANCE_MAX);
  exact[JC_INSTANCE_MAX] = '\0';
  jc_name_instance(exact, JC_INSTANCE_FROM_PATH, name);
  is_str(name, exact, "127 bytes stay as they are");

  /* A multi-byte character is never cut in half by the tail. */
  char utf8[300];
  strcpy(utf8, "");
  for (int i = 0; i < 70; i++)
    strcat(utf8, "\xc3\xa9"); /* é */
  strcat(utf8, "/end");
  jc_name_instance(utf8, JC_INSTANCE_FROM_PATH, name);
  ok(((unsigned char)name[9] & 0xC0) != 0x80, "tail starts on a character");
  ok(strlen(name) <= JC_INSTANCE_MAX, "utf-8 tail fits");

  strcpy(name, "a_b_c");
  jc_name_disambiguate(name, "a_b/c");
  char want[64];
  snprintf(want, sizeof(want), "a_b_c~%08x", jc_name_fnv1a32("a_b/c"));
  is_str(name, want, "collision gets ~hash");
  jc_name_instance(k8s, JC_INSTANCE_FROM_PATH, name);
  jc_name_disambiguate(name, k8s);
  ok(strlen(name) <= JC_INSTANCE_MAX, "disambiguated long name still fits");

  /* Names chosen by whoever started a container (jc_name_label). */
  is_int(jc_name_label("shop_web-7d9f8_nginx", "a/b", name), 0, "label: a name");
  is_str(name, "shop_web-7d9f8_nginx", "label: as it is");
  jc_name_label("shop/web", "a/b", name);
  is_str(name, "shop_web", "label: '/' becomes '_' as in paths");
  jc_name_label("caf\xc3\xa9", "a/b", name);
  is_str(name, "caf\xc3\xa9", "label: UTF-8 is kept");
  strcpy(name, "untouched");
  const char *bad[] = {"", "we b", "tab\there", "quo\"te", "back\\slash",
                       "nl\n", "del\x7f", "\xff\xfe", "\xc0\xaf", "cut\xc3"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    ok(jc_name_label(bad[i], "a/b", name) == -EILSEQ && !strcmp(name, "untouched"),
       "label refused: bad[%zu]", i);
  /* The strict reading (jc_utf8): each of these has its path name. */
  static const struct {
    const char *label, *what;
  } strict[] = {
      {"web\xc0\xafx", "an overlong '/' (C0 AF)"},
      {"web\xe0\x80\xafx", "an overlong '/' in three bytes (E0 80 AF)"},
      {"web\xf0\x80\x80\xafx", "an overlong '/' in four bytes"},
      {"web\xed\xa0\x80x", "a high surrogate (ED A0 80, U+D800)"},
      {"web\xed\xbf\xbfx", "a low surrogate (ED BF BF, U+DFFF)"},
      {"web\xf4\x90\x80\x80x", "past U+10FFFF (F4 90 80 80)"},
      {"web\xf8\x88\x80\x80\x80x", "a five-byte form"},
      {"web\x80x", "a continuation byte alone"},
      {"web\xe2\x82", "a sequence cut short at the end"},
  };
  for (size_t i = 0; i < sizeof(strict) / sizeof(*strict); i++) {
    strcpy(name, "untouched");
    ok(jc_name_label(strict[i].label, "a/b", name) == -EILSEQ &&
           !strcmp(name, "untouched"),
       "label refused: %s", strict[i].what);
  }
  static const char *const edges[] = {
      "\xed\x9f\xbf",     /* U+D7FF, below the surrogates */
      "\xee\x80\x80",     /* U+E000, above them */
      "\xf4\x8f\xbf\xbf", /* U+10FFFF, the last */
      "\xc2\x80",         /* U+0080, the first of two bytes */
      "\xf0\x90\x80\x80", /* U+10000, the first of four */
  };
  for (size_t i = 0; i < sizeof(edges) / sizeof(*edges); i++) {
    char edge[16];
    snprintf(edge, sizeof(edge), "w%sx", edges[i]);
    ok(jc_name_label(edge, "a/b", name) == 0 && !strcmp(name, edge),
       "label kept: the edge code point edges[%zu]", i);
  }

  /* The reader itself, and a name refused as a log line shows it. */
  uint32_t cp = 0;
  is_int(jc_utf8_decode((const unsigned char *)"\xf4\x8f\xbf\xbf", 4, &cp), 4,
         "utf8: U+10FFFF is four bytes");
  ok(cp == 0x10FFFF, "utf8: its code point");
  is_int(jc_utf8_decode((const unsigned char *)"\xe2\x82\xac", 2, NULL), 0,
         "utf8: a sequence longer than the bytes left is none");
  ok(jc_utf8_valid("caf\xc3\xa9", 5) && !jc_utf8_valid("p\xed\xa0\x80q", 5),
     "utf8: a whole string");
  char shown[64];
  jc_utf8_escape("p\xed\xa0\x80q_s\xed\xbf\xbfv \"\x01\xc3\xa9", shown,
                 sizeof(shown));
  is_str(shown, "p\\xed\\xa0\\x80q_s\\xed\\xbf\\xbfv \\x22\\x01\xc3\xa9",
         "escape: bytes that are not UTF-8, quotes and controls as \\xNN");
  jc_utf8_escape("ab\xc3\xa9", shown, 4);
  is_str(shown, "ab", "escape: a sequence that does not fit is left out whole");
  jc_utf8_escape("ab\xff", shown, 5);
  is_str(shown, "ab", "escape: so is an escape");
  char label[300];
  memset(label, 'x', 299);
  label[299] = '\0';
  is_int(jc_name_label(label, "a/b", name), 0, "label: 299 bytes");
  snprintf(prefix, sizeof(prefix), "%08x~", jc_name_fnv1a32("a/b"));
  ok(strlen(name) == JC_INSTANCE_MAX && !strncmp(name, prefix, 9),
     "label: cut to 127 bytes behind the path's hash");
  return done_testing();
}

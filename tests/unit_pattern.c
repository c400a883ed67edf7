/* Unit tests of jc_pattern: globs within a level, "**" across levels,
 * regexes, pruning, and the patterns refused at config time. */
#include "jc_pattern.h"
#include "tap.h"

#include <errno.h>

static bool matches(const char *pattern, const char *path) {
  char err[256];
  jc_pattern *p = NULL;
  bool r = jc_pattern_compile(pattern, &p, err, sizeof(err)) == 0 &&
           jc_pattern_match(p, path);
  jc_pattern_free(p);
  return r;
}

static bool below(const char *pattern, const char *path) {
  char err[256];
  jc_pattern *p = NULL;
  bool r = jc_pattern_compile(pattern, &p, err, sizeof(err)) == 0 &&
           jc_pattern_may_match_below(p, path);
  jc_pattern_free(p);
  return r;
}

static void refused(const char *pattern, const char *why_part) {
  char err[256] = "";
  jc_pattern *p = NULL;
  int r = jc_pattern_compile(pattern, &p, err, sizeof(err));
  ok(r == -EINVAL && !p && strstr(err, why_part), "refused \"%s\" (%s)",
     pattern, err);
  jc_pattern_free(p);
}

int main(void) {
  static const struct {
    const char *pattern, *path;
    bool match;
  } cases[] = {
      {"*", "system.slice", true},
      {"*", "system.slice/nginx.service", false},
      {"*", "", false},
      {"system.slice/*.service", "system.slice/nginx.service", true},
      {"system.slice/*.service", "system.slice/dev-hugepages.mount", false},
      {"system.slice/*.service", "system.slice/a/b.service", false},
      {"system.slice/getty@*.service", "system.slice/getty@tty1.service", true},
      {"system.slice/systemd-*", "system.slice/systemd-journald.service", true},
      {"user.slice/user-100?.slice", "user.slice/user-1000.slice", true},
      {"user.slice/user-[0-9]*.slice", "user.slice/user-1000.slice", true},
      {"**", "a", true},
      {"**", "a/b/c", true},
      {"kubepods.slice/**/*.scope",
       "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
       "cri-containerd-abc.scope",
       true},
      {"kubepods.slice/**/*.scope", "kubepods.slice/x.scope", true},
      {"kubepods.slice/**/*.scope", "kubepods.slice/a.slice", false},
      {"kubepods.slice/**/*.scope", "system.slice/a.scope", false},
      {"a/**", "a", true},
      {"a/**", "a/b/c", true},
      {"**/*.service", "system.slice/nginx.service", true},
      {"**/*.service", "nginx.service", true},
      {"/^kubepods\\.slice/.*\\.scope$/", "kubepods.slice/p.slice/c.scope", true},
      {"/^kubepods\\.slice/.*\\.scope$/", "kubepods.slice/p.slice", false},
      {"/service$/", "system.slice/nginx.service", true},
      {"/^system/", "", false},
      {"system.slice/systemd-fsck@dev-disk-by\\\\x2dlabel-boot.service",
       "system.slice/systemd-fsck@dev-disk-by\\x2dlabel-boot.service", true},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
    ok(matches(cases[i].pattern, cases[i].path) == cases[i].match,
       "\"%s\" %s \"%s\"", cases[i].pattern,
       cases[i].match ? "matches" : "does not match", cases[i].path);

  ok(below("system.slice/*.service", ""), "prune: root may hold matches");
  ok(below("system.slice/*.service", "system.slice"),
     "prune: descend into system.slice");
  ok(!below("system.slice/*.service", "user.slice"),
     "prune: user.slice is skipped");
  ok(!below("system.slice/*.service", "system.slice/nginx.service"),
     "prune: nothing below a leaf level");
  ok(!below("*", "system.slice"), "prune: \"*\" never descends");
  ok(below("kubepods.slice/**/*.scope", "kubepods.slice/a/b/c"),
     "prune: \"**\" descends at any depth");
  ok(!below("kubepods.slice/**/*.scope", "system.slice"),
     "prune: \"**\" still anchored");
  ok(below("/anything/", "x/y"), "prune: regexes always descend");

  refused("a/../b", "\"..\"");
  refused("..", "\"..\"");
  refused("a/./b", "\".\"");
  refused("/system.slice", "relative to CgroupRoot");
  refused("a//b", "empty path level");
  refused("a/", "empty path level");
  refused("/[unclosed/", "invalid regular expression");
  refused("**/a/**/b/**/c/**/d/**/e", "more than");
  /* Regexes that would take glibc's regcomp or regexec seconds or
     gigabytes (found by fuzzing): refused at config time. */
  refused("/(a{32767}){32767}/", "repeats too much");
  refused("/a++/", "adjacent repetition");
  refused("/^(a*)\\1$/", "back-reference");
  ok(matches("/^system\\.slice/docker-[0-9a-f]{64}\\.scope$/",
             "system.slice/docker-"
             "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
             ".scope"),
     "an ordinary interval still compiles and matches");
  ok(matches("/(a*)*b/", "aab"), "a group repeated after its own repeat is fine");
  ok(matches("a/**/**/b", "a/b"), "consecutive \"**\" collapse");
  return done_testing();
}

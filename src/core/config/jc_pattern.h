// jc_pattern — the Select/Ignore patterns of the configuration.
//
// A pattern is matched against a cgroup's path relative to CgroupRoot
// ("system.slice/nginx.service": no leading slash; the root cgroup itself
// is never matched by patterns, ReportRoot decides about it).
//
//   glob   "system.slice/*.service"      * ? [..] match inside one level;
//          "kubepods.slice/**/*.scope"   a "**" level matches any number
//                                        of levels, zero included.
//   regex  "/^kubepods\.slice/.*\.scope$/"  POSIX extended regex on the
//          whole relative path, written between slashes.
//
// (Line comments here because the examples contain the C comment opener.)
//
// Life cycle: jc_pattern_compile() → jc_pattern_match() and
// jc_pattern_may_match_below() any number of times → jc_pattern_free().
// A compiled pattern owns its copy of the text and its regex and is never
// modified afterwards, so matching is thread-safe.
#ifndef JC_PATTERN_H
#define JC_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct jc_pattern jc_pattern;

/* Glob patterns may use "**" at most this many times (bounds backtracking). */
#define JC_PATTERN_MAX_GLOBSTARS 4

/*
 * Compiles text into *ret.  0, or -EINVAL (-ENOMEM) with a message for the
 * user ("contains \"..\"", the regcomp error, ...) in why: only the
 * compiler knows which part of the text was wrong.
 */
int jc_pattern_compile(const char *text, jc_pattern **ret, char *why,
                       size_t err_size);
void jc_pattern_free(jc_pattern *p);

const char *jc_pattern_text(const jc_pattern *p);

/* Does relpath itself match? */
bool jc_pattern_match(const jc_pattern *p, const char *relpath);

/*
 * Could a cgroup strictly below relpath ("" for the root) match?  Used to
 * prune the walk; may answer true when unsure (regexes always do).
 */
bool jc_pattern_may_match_below(const jc_pattern *p, const char *relpath);

#endif

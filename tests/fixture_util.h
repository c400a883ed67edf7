/* fixture_util — build small cgroup-v2-shaped trees in a temporary
 * directory, for tests that rewrite files between reads. */
#ifndef JC_FIXTURE_UTIL_H
#define JC_FIXTURE_UTIL_H

/* Creates a temporary root with cgroup.controllers; returns its path. */
const char *fx_root(const char *controllers);
/* The full path of rel below the root ("" for the root); static buffer. */
const char *fx_path(const char *rel);
void fx_mkdir(const char *rel);
void fx_write(const char *rel, const char *text);
void fx_remove(const char *rel); /* a file or a directory tree */
void fx_symlink(const char *target, const char *rel);
/* A cgroup directory with cpu.stat (usage/user/system) and memory files. */
void fx_cgroup(const char *rel, unsigned long long usage_usec);
void fx_cleanup(void);

#endif

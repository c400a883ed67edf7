/* fixture_util — the unit tests' temporary trees: one directory below
 * /tmp at a time, files written into it, copies of the fixtures of
 * tests/fixtures, and everything removed at the end.
 *
 *   fx_tmpdir() or fx_root("cpu memory\n")   the directory, made
 *   fx_write("cg/cpu.stat", ...) ...          paths relative to it
 *   fx_cleanup()                              it and all below, removed
 *
 * Every helper aborts the test (exit 99) when it fails: setting the scene
 * must work, a test of nothing proves nothing. */
#ifndef JC_FIXTURE_UTIL_H
#define JC_FIXTURE_UTIL_H

#include <sys/types.h>

/* Creates an empty temporary directory (mode 0700, as mkdtemp makes
 * it); returns its path, valid until fx_cleanup. */
const char *fx_tmpdir(void);
/* The same with a cgroup.controllers: the root of a cgroup v2 tree. */
const char *fx_root(const char *controllers);
/* The full path of rel below the root ("" for the root); one static
 * buffer, overwritten by the next call. */
const char *fx_path(const char *rel);
/* The full path of rel in the source tree ($top_srcdir, else ".."); one
 * static buffer, overwritten by the next call. */
const char *fx_source(const char *rel);
void fx_mkdir(const char *rel);
void fx_mkdirs(const char *rel); /* and its parents, as mkdir -p */
void fx_write(const char *rel, const char *text);
void fx_writef(const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* fx_write, then the file's mode set (chmod: the umask does not apply). */
void fx_write_mode(const char *rel, const char *text, mode_t mode);
void fx_append(const char *rel, const char *text);
void fx_remove(const char *rel); /* a file or a directory tree */
void fx_symlink(const char *target, const char *rel);
/* rel becomes a fresh copy (cp -a: modes, links) of src, a path in the
 * source tree (tests/fixtures/...); what rel held before is removed. */
void fx_copy(const char *src, const char *rel);
/* A cgroup directory with cpu.stat (usage/user/system) and memory files. */
void fx_cgroup(const char *rel, unsigned long long usage_usec);
void fx_cleanup(void);

#endif

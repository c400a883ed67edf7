/* Collect "disk" (docs/metrics.md, Disk; docs/containers.md, What each
 * container fills on disk).  The walk (jc_dwalk) against GNU du on a tree
 * of every kind of file: allocated bytes and inodes equal to `du -x
 * --block-size=1 -s` and `du -x --inodes -s` a few entries at a time, a
 * file of two names counted once, a FIFO, a socket and a directory of
 * mode 000 counted and nothing waited on, files made and removed while
 * it walks never failing it, its descriptors asked of the budget and all
 * given back; the log files (jc_dlogs) through a rotation; then the step
 * through a collector on every runtime's fixture host of
 * tests/fixtures/hosts: each container's writable layer found where its
 * runtime keeps it (the one whose etc/container-id is its id) and sized
 * as du sizes it, its logs the bytes of its runtime's log files, each
 * pod's emptyDir volumes; the walk spread over passes by DiskWalkEntries,
 * the figure replaced only when a walk ends, its age; what a runtime does
 * not say told once; the descriptor budget stopping a walk said once; a
 * cgroup that goes taking its descriptors with it. */
#include "fixture_util.h"
#include "jc_collector.h"
#include "jc_config.h"
#include "jc_dlogs.h"
#include "jc_dquota.h"
#include "jc_dwalk.h"
#include "jc_dwatch.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- GNU du, the figure to equal ------------------------------------------ */

/* `du -x OPT -s PATH`'s number (du prints it even where it could not read
 * a directory, and says so on stderr, here thrown away). */
static uint64_t du(const char *opt, const char *path) {
  int p[2];
  if (pipe(p) < 0)
    return UINT64_MAX;
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(p[1], 1);
    dup2(null, 2);
    close(p[0]);
    execlp("du", "du", "-x", opt, "-s", "--", path, (char *)NULL);
    _exit(127);
  }
  close(p[1]);
  char out[256] = "";
  ssize_t len = read(p[0], out, sizeof(out) - 1);
  close(p[0]);
  waitpid(pid, NULL, 0);
  return len > 0 ? strtoull(out, NULL, 10) : UINT64_MAX;
}

static uint64_t du_bytes(const char *path) { return du("--block-size=1", path); }
static uint64_t du_inodes(const char *path) { return du("--inodes", path); }

static int open_fds(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  for (struct dirent *de; d && (de = readdir(d));)
    n += de->d_name[0] != '.';
  if (d)
    closedir(d);
  return n - 1; /* opendir's own */
}

/* ---- the walk ------------------------------------------------------------- */

static int kept, keep_limit = 1 << 20, kept_most;

static bool t_keep(void *ctx) {
  (void)ctx;
  if (kept >= keep_limit)
    return false;
  if (++kept > kept_most)
    kept_most = kept;
  return true;
}

static void t_unkept(void *ctx) {
  (void)ctx;
  kept--;
}

static const jc_dfds fds = {t_keep, t_unkept, NULL};

/* Walks dir `per` entries a call, calling between(call) between calls:
 * run's last return; *ret_calls the calls it took. */
static int walk_all(const char *dir, uint64_t per, jc_dwalk_result *res,
                    int *ret_calls, void (*between)(int call)) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  jc_dwalk *w = jc_dwalk_new(fd, &fds);
  if (!w)
    return -errno;
  int r = 0, calls = 0;
  while (r == 0) {
    uint64_t budget = per;
    r = jc_dwalk_run(w, &budget);
    calls++;
    if (r == 0 && budget != 0)
      r = -EINVAL; /* more to do, and budget left: not the contract */
    if (r == 0 && between)
      between(calls);
  }
  jc_dwalk_get(w, res);
  jc_dwalk_free(w);
  *ret_calls = calls;
  return r;
}

static void write_size(const char *rel, size_t size) {
  char *text = malloc(size + 1);
  memset(text, 'x', size);
  text[size] = '\0';
  fx_write(rel, text);
  free(text);
}

/* A tree of every kind of entry a container's layer may hold. */
static void make_tree(void) {
  fx_mkdirs("t/a/b/c");
  write_size("t/a/b/c/deep.txt", 1000);
  fx_write("t/empty", "");
  write_size("t/one", 1);
  write_size("t/block", 4097);
  write_size("t/big", 100000);
  int fd = open(fx_path("t/sparse"), O_WRONLY | O_CREAT, 0644);
  if (fd >= 0) { /* 10 MiB long, one block of it written */
    if (pwrite(fd, "z", 1, 10 << 20) != 1)
      fd = -1;
    close(fd);
  }
  fx_symlink("one", "t/link");
  fx_symlink("nowhere/at/all", "t/dangling");
  write_size("t/h1", 8192);
  char from[512];
  snprintf(from, sizeof(from), "%s", fx_path("t/h1"));
  if (link(from, fx_path("t/a/h2")) < 0) /* one file, two names */
    printf("# no hard link: %s\n", strerror(errno));
  write_size("outside", 3000);
  snprintf(from, sizeof(from), "%s", fx_path("outside"));
  if (link(from, fx_path("t/h3")) < 0) /* its other name out of the tree */
    printf("# no hard link: %s\n", strerror(errno));
  mkfifo(fx_path("t/fifo"), 0644);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", fx_path("t/sock"));
  if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
    printf("# no socket made: %s\n", strerror(errno));
  if (s >= 0)
    close(s);
  fx_mkdir("t/locked");
  write_size("t/locked/secret", 5000);
  chmod(fx_path("t/locked"), 0);
  if (geteuid() == 0) /* an overlay whiteout: a character device 0:0 */
    mknod(fx_path("t/whiteout"), S_IFCHR | 0, makedev(0, 0));
}

static int churn_step;

/* Files made and removed while the walk goes on: new ones, ones not yet
 * looked at, a whole directory, one renamed. */
static void churn(int call) {
  char rel[64];
  churn_step = call;
  snprintf(rel, sizeof(rel), "c/d%d/new-%d", call % 7, call);
  fx_write(rel, "fresh");
  snprintf(rel, sizeof(rel), "c/d%d/f%d", (call * 3) % 7, call % 20);
  unlink(fx_path(rel));
  if (call == 3)
    fx_remove("c/d9");
  if (call == 5)
    rename(fx_path("c/d8"), fx_path("c/d8-renamed"));
  if (call == 7) {
    fx_mkdirs("c/d7/sub/deeper");
    fx_write("c/d7/sub/deeper/x", "y");
  }
}

static void test_walk(void) {
  fx_tmpdir();
  make_tree();
  int fds_before = open_fds();
  alarm(30); /* a FIFO waited on would hang: SIGALRM fails the test */
  jc_dwalk_result res;
  int calls;
  int r = walk_all(fx_path("t"), 1, &res, &calls, NULL);
  alarm(0);
  is_int(r, 1, "a walk of one entry a call ends (FIFO, socket, mode 000 "
               "directory: nothing waited on)");
  ok(calls >= 20, "  in %d calls", calls);
  is_u64(res.size.bytes, du_bytes(fx_path("t")),
         "allocated bytes = du -x --block-size=1 -s (sparse file, symlinks, a "
         "file of two names once, FIFO, socket, mode 000 directory%s)",
         geteuid() == 0 ? ", whiteout" : "");
  is_u64(res.size.inodes, du_inodes(fx_path("t")),
         "inodes = du -x --inodes -s");
  is_int((int)res.unreadable, geteuid() == 0 ? 0 : 1,
         "the mode 000 directory: %s", geteuid() == 0
                                            ? "read (root)"
                                            : "counted, its entries not (not "
                                              "root), said in unreadable");
  is_int(kept, 0, "every descriptor kept was given back");
  ok(kept_most >= 4 && kept_most <= 5, "one kept a level: %d at most", kept_most);
  is_int(open_fds(), fds_before, "no descriptor left open");

  /* The same in one call. */
  r = walk_all(fx_path("t"), 1000, &res, &calls, NULL);
  ok(r == 1 && calls == 1 && res.size.bytes == du_bytes(fx_path("t")),
     "a budget larger than the tree: one call, the same bytes");

  /* The budget of descriptors: two levels, the tree has four. */
  keep_limit = 2;
  r = walk_all(fx_path("t"), 1, &res, &calls, NULL);
  is_int(r, -EMFILE, "a third level without room: -EMFILE");
  is_int(kept, 0, "  and what it held is given back");
  keep_limit = 0;
  int fd = open(fx_path("t"), O_RDONLY | O_DIRECTORY);
  errno = 0;
  ok(jc_dwalk_new(fd, &fds) == NULL && errno == EMFILE,
     "no room for the top: NULL, EMFILE");
  is_int(open_fds(), fds_before, "  its descriptor closed");
  keep_limit = 1 << 20;
  fd = open(fx_path("t/one"), O_RDONLY);
  errno = 0;
  ok(jc_dwalk_new(fd, &fds) == NULL && errno == ENOTDIR && kept == 0,
     "a file for a top: NULL, ENOTDIR");
  chmod(fx_path("t/locked"), 0755);

  /* Churn: 10 directories of 20 files, changed between calls. */
  for (int d = 0; d < 10; d++)
    for (int f = 0; f < 20; f++) {
      char rel[64];
      snprintf(rel, sizeof(rel), "c/d%d/f%d", d, f);
      if (f == 0) {
        snprintf(rel, sizeof(rel), "c/d%d", d);
        fx_mkdirs(rel);
        snprintf(rel, sizeof(rel), "c/d%d/f%d", d, f);
      }
      write_size(rel, 100 + (size_t)f * 300);
    }
  r = walk_all(fx_path("c"), 7, &res, &calls, churn);
  ok(r == 1 && churn_step > 20,
     "files made and removed, a directory removed and one renamed while "
     "it walks: it ends (%d changes)", churn_step);
  ok(res.size.inodes > 150 && res.size.inodes < 260,
     "  with a figure between the trees before and after (%llu inodes)",
     (unsigned long long)res.size.inodes);
  r = walk_all(fx_path("c"), 7, &res, &calls, NULL);
  ok(r == 1 && res.size.bytes == du_bytes(fx_path("c")) &&
         res.size.inodes == du_inodes(fx_path("c")),
     "the next walk, the tree still: du's figures");
  is_int(kept, 0, "nothing kept after them");
  fx_cleanup();
}

/* ---- log files ----------------------------------------------------------------- */

static void test_logs(void) {
  fx_tmpdir();
  const char *id = "c9d947af";
  char rel[128];
  fx_mkdir("d");
  snprintf(rel, sizeof(rel), "d/%s-json.log", id);
  write_size(rel, 100);
  snprintf(rel, sizeof(rel), "d/%s-json.log.1", id);
  write_size(rel, 300);
  write_size("d/config.v2.json", 5000);
  snprintf(rel, sizeof(rel), "d/%s-json.log.d", id);
  fx_mkdir(rel); /* not a regular file */
  char prefix[64];
  snprintf(prefix, sizeof(prefix), "%s-json.log", id);
  int fds_before = open_fds();
  jc_dlogs *l = jc_dlogs_new(prefix, 0);
  int fd = open(fx_path("d"), O_RDONLY | O_DIRECTORY);
  uint64_t bytes = 0;
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 400,
     "Docker's log and its rotated file: 400 bytes, config.v2.json and a "
     "directory of the name left out (%llu)", (unsigned long long)bytes);
  snprintf(rel, sizeof(rel), "d/%s-json.log", id);
  fx_append(rel, "0123456789");
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 410, "it grows: 410");
  /* A rotation: .1 replaced by the log, a new log. */
  char from[512], to[512];
  snprintf(from, sizeof(from), "%s", fx_path(rel));
  snprintf(rel, sizeof(rel), "d/%s-json.log.1", id);
  snprintf(to, sizeof(to), "%s", fx_path(rel));
  rename(from, to);
  snprintf(rel, sizeof(rel), "d/%s-json.log", id);
  write_size(rel, 7);
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 117,
     "rotated (the log another inode): listed again, the new log and the "
     "old one, 117");
  /* Renamed away, not made again yet. */
  snprintf(from, sizeof(from), "%s", fx_path(rel));
  snprintf(rel, sizeof(rel), "d/%s-json.log.1", id);
  snprintf(to, sizeof(to), "%s", fx_path(rel));
  rename(from, to);
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 7,
     "the log renamed away and none yet: the rotated one, 7");
  snprintf(rel, sizeof(rel), "d/%s-json.log", id);
  write_size(rel, 100);
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 107, "  made: 107");
  /* A file rotated earlier compressed later, the log unchanged: the
   * listing of every JC_DLOGS_RELIST-th call sees it. */
  snprintf(rel, sizeof(rel), "d/%s-json.log.2.gz", id);
  write_size(rel, 50);
  int calls = 1;
  while (jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes != 157 && calls < 200)
    calls++;
  ok(bytes == 157 && jc_dlogs_files(l) == 3 && calls <= JC_DLOGS_RELIST,
     "a compressed one beside them, the log unchanged: 157, 3 files, "
     "within %d calls (%d)", JC_DLOGS_RELIST, calls);
  /* Truncated in place (copytruncate): the same inode, its size. */
  snprintf(rel, sizeof(rel), "d/%s-json.log", id);
  fx_write(rel, "");
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 57,
     "the log truncated in place: 57 at the next call");
  jc_dlogs_free(l);
  /* Phases: a listing again at the call the phase says. */
  l = jc_dlogs_new(prefix, JC_DLOGS_RELIST - 2);
  jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes);
  snprintf(rel, sizeof(rel), "d/%s-json.log.3.gz", id);
  write_size(rel, 40);
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 57 &&
         jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 97,
     "phase %d: listed again at the second call (57, then 97)",
     JC_DLOGS_RELIST - 2);
  jc_dlogs_free(l);
  /* Told what changed (a watch): nothing looked at without a look. */
  l = jc_dlogs_new(prefix, 0);
  jc_dlogs_size(l, fd, 0, &bytes);
  snprintf(rel, sizeof(rel), "d/%s-json.log", id);
  fx_append(rel, "abc");
  ok(jc_dlogs_size(l, fd, 0, &bytes) == 0 && bytes == 97 &&
         jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 100,
     "look 0: the last sizes (97); JC_DLOGS_LOOK: the log grown (100)");
  snprintf(rel, sizeof(rel), "d/%s-json.log.4.gz", id);
  write_size(rel, 30);
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 100 &&
         jc_dlogs_size(l, fd, JC_DLOGS_LIST, &bytes) == 0 && bytes == 130,
     "a name made: not seen by a look (100), listed (130)");
  jc_dlogs_free(l);
  l = jc_dlogs_new("", 3);
  ok(jc_dlogs_size(l, fd, JC_DLOGS_LOOK, &bytes) == 0 && bytes == 5130,
     "prefix \"\" (the kubelet's directory of a container): every regular "
     "file, 5130 (%llu)", (unsigned long long)bytes);
  jc_dlogs_free(l);
  close(fd);
  is_int(open_fds(), fds_before, "no descriptor left open");

  uint32_t projid = 7;
  fd = open(fx_path("d"), O_RDONLY | O_DIRECTORY);
  int r = jc_dquota_project(fd, &projid);
  ok(r == 0 || r == -ENOTTY || r == -EOPNOTSUPP || r == -EINVAL,
     "a directory's project here: %s (%u)", r ? strerror(-r) : "read", projid);
  jc_dsize q;
  r = jc_dquota_usage(fd, 4242, &q);
  ok(r < 0, "the usage of a project the file system has no quota for: %s",
     strerror(-r));
  close(fd);
  fx_cleanup();
}

/* ---- the log directories' watch ----------------------------------------------------- */

static unsigned told[2]; /* what was said of owners 0 and 1 */
static int told_overflow;

static void on_told(void *ctx, void *owner, unsigned what) {
  (void)ctx;
  if (!owner)
    told_overflow++;
  else
    told[*(int *)owner] |= what;
}

static unsigned told_of(jc_dwatch *w, int k) {
  told[0] = told[1] = 0;
  jc_dwatch_read(w, on_told, NULL);
  return told[k];
}

static void test_watch(void) {
  fx_tmpdir();
  fx_mkdir("a");
  fx_mkdir("b");
  fx_write("a/0.log", "x");
  static int owner[2] = {0, 1};
  jc_dwatch *w = jc_dwatch_new();
  ok(w != NULL, "an inotify instance");
  if (!w)
    return;
  int fa = open(fx_path("a"), O_RDONLY | O_DIRECTORY);
  int fb = open(fx_path("b"), O_RDONLY | O_DIRECTORY);
  int wa = jc_dwatch_add(w, fa, &owner[0]), wb = jc_dwatch_add(w, fb, &owner[1]);
  ok(wa > 0 && wb > 0 && wa != wb, "two directories watched through their "
                                   "descriptors");
  ok(told_of(w, 0) == 0 && told[1] == 0, "nothing happened: nothing said");
  fx_append("a/0.log", "more");
  ok(told_of(w, 0) == JC_DWATCH_WRITTEN && told[1] == 0,
     "a file of a written to: WRITTEN, of a only");
  char from[512];
  snprintf(from, sizeof(from), "%s", fx_path("a/0.log"));
  rename(from, fx_path("a/0.log.1"));
  fx_write("a/0.log", "");
  ok(told_of(w, 0) & JC_DWATCH_CHANGED, "a rotation (rename, a new file): "
                                        "CHANGED");
  fx_write("b/x", "1");
  jc_dwatch_remove(w, wb);
  fx_append("b/x", "2");
  ok(told_of(w, 1) == 0, "a watch removed: what was queued for it before "
                         "and after, not said");
  close(fb);
  close(fa); /* (an open descriptor keeps its inode: no event until then) */
  fx_remove("a");
  ok(told_of(w, 0) & JC_DWATCH_GONE, "the directory removed: GONE");
  jc_dwatch_remove(w, -2);
  jc_dwatch_remove(NULL, wa);
  jc_dwatch_free(w);
  ok(told_overflow == 0, "no overflow");
  fx_cleanup();
}

/* ---- the step, on the runtimes' hosts ------------------------------------------ */

static char logged[64 * 1024];

static void log_cb(void *ctx, int level, const char *msg) {
  (void)ctx;
  size_t len = strlen(logged);
  snprintf(logged + len, sizeof(logged) - len, "%d %s\n", level, msg);
}

static struct {
  char relpath[512];
  char key[64];
  double v;
} sent[512];
static int sent_count;

static void collect_cb(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx;
  if (sent_count == 512)
    return;
  snprintf(sent[sent_count].relpath, sizeof(sent[0].relpath), "%s", t->relpath);
  snprintf(sent[sent_count].key, sizeof(sent[0].key), "%s-%s", m->type,
           m->type_instance);
  sent[sent_count++].v = m->gauge[0];
}

static double got(const char *relpath, const char *key) {
  for (int i = 0; i < sent_count; i++)
    if (!strcmp(sent[i].relpath, relpath) && !strcmp(sent[i].key, key))
      return sent[i].v;
  return -1;
}

static long walk_entries = -1, open_files = -1;

static jc_collector *start(const char *containerd_dir) {
  char err[256];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, fx_path("host/sys/fs/cgroup"), err, sizeof(err));
  jc_config_set_runtime_root(cfg, fx_path("host"), err, sizeof(err));
  jc_config_set_proc_root(cfg, fx_path("host/proc"), err, sizeof(err));
  if (containerd_dir)
    jc_config_set_runtime_dir(cfg, "containerd", containerd_dir, err,
                              sizeof(err));
  jc_config_add_pattern(cfg, false, "**", err, sizeof(err));
  cfg->report_root = false;
  jc_config_add_collect(cfg, "disk", err, sizeof(err));
  if (walk_entries >= 0)
    jc_config_set_disk_walk_entries(cfg, (double)walk_entries, err,
                                    sizeof(err));
  if (open_files >= 0)
    jc_config_set_max_open_files(cfg, (double)open_files, err, sizeof(err));
  if (jc_config_finish(cfg, err, sizeof(err)) < 0) {
    printf("# config: %s\n", err);
    return NULL;
  }
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  if (jc_collector_init(c) < 0) {
    printf("# %s\n", logged);
    jc_collector_free(c);
    return NULL;
  }
  return c;
}

static void pass(jc_collector *c) {
  sent_count = 0;
  jc_collector_read(c, collect_cb, NULL);
}

/* The 64 hex digits of a container's id in a cgroup's last level; "". */
static const char *id_of(const char *relpath, char out[65]) {
  const char *last = strrchr(relpath, '/');
  last = last ? last + 1 : relpath;
  out[0] = '\0';
  for (const char *p = last; *p; p++)
    if (strspn(p, "0123456789abcdef") == 64) {
      memcpy(out, p, 64);
      out[64] = '\0';
      break;
    }
  return out;
}

/* What the step said it found for relpath (its DEBUG line): part
 * "writable layer", "logs" or "emptyDir volumes" into out. */
static bool said_path(const char *relpath, const char *part, char *out,
                      size_t size) {
  char head[600];
  snprintf(head, sizeof(head), "cgroup \"%s\": writable layer", relpath);
  const char *line = strstr(logged, head);
  if (!line)
    return false;
  const char *p = strstr(line, part);
  if (!p || (p = strchr(p, '"')) == NULL)
    return false;
  const char *end = strchr(p + 1, '"');
  snprintf(out, size, "%.*s", (int)(end - p - 1), p + 1);
  return true;
}

static uint64_t file_size(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
                                                      : 0;
}

/* The bytes of the log files a container's runtime writes, from the
 * fixture's layout: Docker's <id>-json.log*, Podman's ctr.log, the
 * directory the kubelet's /var/log/containers link of it points into. */
static uint64_t logs_of(const char *id, bool *ret_any) {
  char pattern[600], link[600];
  glob_t g;
  uint64_t sum = 0;
  *ret_any = false;
  snprintf(pattern, sizeof(pattern), "%s/var/lib/docker/containers/%s/%s-json.log*",
           fx_path("host"), id, id);
  if (glob(pattern, 0, NULL, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; i++, *ret_any = true)
      sum += file_size(g.gl_pathv[i]);
  globfree(&g);
  if (*ret_any)
    return sum;
  snprintf(pattern, sizeof(pattern),
           "%s/{var/lib/containers/storage,home/*/.local/share/containers/"
           "storage,srv/users/*/.local/share/containers/storage}/"
           "overlay-containers/%s/userdata/ctr.log",
           fx_path("host"), id);
  if (glob(pattern, GLOB_BRACE, NULL, &g) == 0 && g.gl_pathc == 1) {
    *ret_any = true;
    sum = file_size(g.gl_pathv[0]);
  }
  globfree(&g);
  if (*ret_any)
    return sum;
  snprintf(pattern, sizeof(pattern), "%s/var/log/containers/*-%s.log",
           fx_path("host"), id);
  if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1) {
    ssize_t len = readlink(g.gl_pathv[0], link, sizeof(link) - 1);
    if (len > 0) {
      link[len] = '\0';
      *strrchr(link, '/') = '\0';
      snprintf(pattern, sizeof(pattern), "%s%s/*", fx_path("host"), link);
      glob_t all;
      if (glob(pattern, 0, NULL, &all) == 0)
        for (size_t i = 0; i < all.gl_pathc; i++, *ret_any = true)
          sum += file_size(all.gl_pathv[i]);
      globfree(&all);
    }
  }
  globfree(&g);
  return sum;
}

/* The emptyDir volumes of pod uid, from the fixture: du of each. */
static bool volumes_of(const char *uid, uint64_t *bytes, uint64_t *inodes) {
  char pattern[600];
  glob_t g;
  *bytes = *inodes = 0;
  snprintf(pattern, sizeof(pattern),
           "%s/var/lib/kubelet/pods/%s/volumes/kubernetes.io~empty-dir/*",
           fx_path("host"), uid);
  if (glob(pattern, 0, NULL, &g) != 0)
    return false;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    *bytes += du_bytes(g.gl_pathv[i]);
    *inodes += du_inodes(g.gl_pathv[i]);
  }
  globfree(&g);
  return true;
}

/* The pod uid of a pod's cgroup (kubepods-…-pod<uid with _>.slice,
 * pod<uid>), with dashes; "". */
static const char *pod_uid_of(const char *relpath, char out[40]) {
  const char *last = strrchr(relpath, '/');
  last = last ? last + 1 : relpath;
  const char *p = strstr(last, "-pod");
  p = p ? p + 4 : !strncmp(last, "pod", 3) ? last + 3 : NULL;
  out[0] = '\0';
  if (!p)
    return out;
  size_t n = strcspn(p, ".");
  if (n == 32 || n == 36) {
    for (size_t i = 0; i < n; i++)
      out[i] = p[i] == '_' ? '-' : p[i];
    out[n] = '\0';
  }
  return out;
}

/* Every container's and pod's lists on host name, against the fixture. */
static void host_figures(const char *name, const char *containerd_dir) {
  char src[128];
  fx_tmpdir();
  snprintf(src, sizeof(src), "tests/fixtures/hosts/%s", name);
  fx_copy(src, "host");
  logged[0] = '\0';
  jc_collector *c = start(containerd_dir);
  ok(c != NULL, "%s: init with Collect \"disk\"", name);
  if (!c)
    return;
  pass(c);
  int containers = 0, layers_right = 0, logs_right = 0, logs_want = 0,
      pods = 0, pods_right = 0;
  jc_collector_stats st;
  jc_collector_get_stats(c, &st);
  char seen[128][512];
  int seen_count = 0;
  for (int i = 0; i < sent_count && seen_count < 128; i++) {
    bool dup = false;
    for (int k = 0; k < seen_count; k++)
      dup |= !strcmp(seen[k], sent[i].relpath);
    if (!dup)
      snprintf(seen[seen_count++], sizeof(seen[0]), "%s", sent[i].relpath);
  }
  for (int k = 0; k < seen_count; k++) {
    const char *rp = seen[k];
    char id[65], uid[40], layer[PATH_MAX], full[PATH_MAX + 600],
        text[PATH_MAX + 700];
    if (id_of(rp, id)[0]) {
      containers++;
      bool any;
      uint64_t want_logs = logs_of(id, &any);
      if (any) {
        logs_want++;
        if (got(rp, "bytes-logs") == (double)want_logs)
          logs_right++;
        else
          printf("#   %s: bytes-logs %.0f, want %llu\n", rp,
                 got(rp, "bytes-logs"), (unsigned long long)want_logs);
      }
      if (!said_path(rp, "writable layer", layer, sizeof(layer)) || !layer[0]) {
        printf("#   %s: no layer said\n", rp);
        continue;
      }
      snprintf(full, sizeof(full), "%s/%s", fx_path("host"), layer);
      snprintf(text, sizeof(text), "%s/etc/container-id", full);
      FILE *f = fopen(text, "r");
      char whose[80] = "";
      if (f && fgets(whose, sizeof(whose), f))
        whose[strcspn(whose, "\n")] = '\0';
      if (f)
        fclose(f);
      if (strcmp(whose, id) == 0 &&
          got(rp, "bytes-layer") == (double)du_bytes(full) &&
          got(rp, "files-layer") == (double)du_inodes(full) &&
          got(rp, "duration-layer_age") >= 0)
        layers_right++;
      else
        printf("#   %s: layer %s (of \"%s\"): %.0f bytes, %.0f inodes; du %llu, "
               "%llu\n",
               rp, layer, whose, got(rp, "bytes-layer"), got(rp, "files-layer"),
               (unsigned long long)du_bytes(full),
               (unsigned long long)du_inodes(full));
    } else if (pod_uid_of(rp, uid)[0]) {
      uint64_t b, n;
      pods++;
      if (volumes_of(uid, &b, &n) && got(rp, "bytes-emptydir") == (double)b &&
          got(rp, "files-emptydir") == (double)n)
        pods_right++;
      else
        printf("#   %s: emptydir %.0f bytes %.0f inodes, want %llu %llu\n", rp,
               got(rp, "bytes-emptydir"), got(rp, "files-emptydir"),
               (unsigned long long)b, (unsigned long long)n);
    }
  }
  ok(containers > 0 && layers_right == containers,
     "%s: each container's writable layer the upper directory of its own "
     "(its etc/container-id), bytes and inodes as du's (%d of %d)",
     name, layers_right, containers);
  ok(logs_want > 0 && logs_right == logs_want,
     "  its logs: the bytes of its runtime's log files (%d of %d)", logs_right,
     logs_want);
  if (strstr(name, "podman") == NULL && strcmp(name, "docker") != 0)
    ok(pods > 0 && pods_right == pods,
       "  each pod's emptyDir volumes: du's bytes and inodes summed (%d of %d)",
       pods_right, pods);
  ok(strstr(logged, "\n3 ") == NULL && strncmp(logged, "3 ", 2) != 0 &&
         strstr(logged, "\n4 ") == NULL && strncmp(logged, "4 ", 2) != 0,
     "  nothing said above NOTICE");
  if (strstr(logged, "\n4 ") || strstr(logged, "\n3 ") || !strncmp(logged, "4 ", 2))
    printf("# %s", logged);
  jc_collector_free(c);
  fx_cleanup();
}

static void test_hosts(void) {
  walk_entries = 1000000; /* every layer walked at the first pass */
  host_figures("docker", NULL);
  host_figures("cri-dockerd", NULL);
  host_figures("crio", NULL);
  host_figures("containerd-systemd", NULL);
  host_figures("k3s-cgroupfs", "/run/k3s/containerd");
  host_figures("podman-rootful", NULL);
  host_figures("podman-rootless", NULL);
  walk_entries = -1;
}

/* ---- the step's passes, on a Docker host of its own ------------------------------ */

#define ID1 "1111111111111111111111111111111111111111111111111111111111111111"
#define ID2 "2222222222222222222222222222222222222222222222222222222222222222"
#define MOUNT1 "aaaa000000000000000000000000000000000000000000000000000000000001"
#define MOUNT2 "aaaa000000000000000000000000000000000000000000000000000000000002"
#define ID3 "3333333333333333333333333333333333333333333333333333333333333333"
#define MOUNT3 "aaaa000000000000000000000000000000000000000000000000000000000003"

/* A Docker container's state and its cgroup (pid 4242 + n), its layer
 * `files` files in directories `depth` deep. */
static void docker_files(const char *id, const char *mount, int n, int files,
                         int depth, const char *driver) {
  char rel[600], dir[600];
  snprintf(rel, sizeof(rel), "host/var/lib/docker/containers/%s", id);
  fx_mkdirs(rel);
  snprintf(rel, sizeof(rel), "host/var/lib/docker/containers/%s/config.v2.json", id);
  fx_writef(rel,
            "{\"ID\":\"%s\",\"Name\":\"/c%d\",\"Driver\":\"%s\",\"LogPath\":"
            "\"/var/lib/docker/containers/%s/%s-json.log\"}",
            id, n, driver, id, id);
  snprintf(rel, sizeof(rel), "host/var/lib/docker/containers/%s/%s-json.log", id, id);
  write_size(rel, 1000 + (size_t)n);
  snprintf(rel, sizeof(rel), "host/var/lib/docker/image/overlay2/layerdb/mounts/%s", id);
  fx_mkdirs(rel);
  snprintf(rel, sizeof(rel),
           "host/var/lib/docker/image/overlay2/layerdb/mounts/%s/mount-id", id);
  fx_write(rel, mount);
  snprintf(dir, sizeof(dir), "host/var/lib/docker/overlay2/%s/diff", mount);
  for (int d = 0; d < depth; d++) {
    size_t len = strlen(dir);
    snprintf(dir + len, sizeof(dir) - len, "/d%d", d);
  }
  fx_mkdirs(dir);
  for (int f = 0; f < files; f++) {
    snprintf(rel, sizeof(rel), "%s/f%d", dir, f);
    write_size(rel, 100 + (size_t)f * 50);
  }
}

static void docker_container(const char *id, const char *mount, int n,
                             int files, int depth, const char *driver) {
  char rel[600];
  snprintf(rel, sizeof(rel), "host/sys/fs/cgroup/system.slice/docker-%s.scope", id);
  fx_cgroup(rel, 1000);
  snprintf(rel, sizeof(rel),
           "host/sys/fs/cgroup/system.slice/docker-%s.scope/cgroup.procs", id);
  fx_writef(rel, "%d\n", 4242 + n);
  docker_files(id, mount, n, files, depth, driver);
}

static const char *upper_of(const char *mount) {
  static char p[PATH_MAX];
  char rel[200];
  snprintf(rel, sizeof(rel), "host/var/lib/docker/overlay2/%s/diff", mount);
  snprintf(p, sizeof(p), "%s", fx_path(rel));
  return p;
}

#define CG1 "system.slice/docker-" ID1 ".scope"
#define CG2 "system.slice/docker-" ID2 ".scope"
#define CG3 "system.slice/docker-" ID3 ".scope"

static int count_said(const char *what) {
  int n = 0;
  for (const char *p = logged; (p = strstr(p, what)); p++)
    n++;
  return n;
}

static void test_passes(void) {
  fx_tmpdir();
  fx_mkdirs("host/sys/fs/cgroup/system.slice");
  fx_write("host/sys/fs/cgroup/cgroup.controllers", "cpu\n");
  fx_mkdirs("host/proc");
  docker_container(ID1, MOUNT1, 1, 40, 1, "overlay2");
  walk_entries = 5;
  logged[0] = '\0';
  jc_collector *c = start(NULL);
  ok(c != NULL, "a Docker host, DiskWalkEntries 5");
  if (!c)
    return;
  /* 42 entries (top, d0, 40 files): 9 passes of 5. */
  int first = 0;
  for (int i = 1; i <= 12 && !first; i++) {
    pass(c);
    if (got(CG1, "bytes-layer") >= 0)
      first = i;
    else
      ok(got(CG1, "bytes-logs") == 1001, "pass %d: the log (1001 bytes), no "
                                         "layer figure while its first walk "
                                         "runs", i);
  }
  ok(first >= 8 && first <= 10, "the layer's figure at the pass its walk "
                                 "ends: %d (42 entries, 5 a pass)", first);
  is_u64((uint64_t)got(CG1, "bytes-layer"), du_bytes(upper_of(MOUNT1)),
         "  du's bytes");
  is_u64((uint64_t)got(CG1, "files-layer"), du_inodes(upper_of(MOUNT1)),
         "  du's inodes");
  double old = got(CG1, "bytes-layer");

  /* Its log written to, then rotated: told by inotify, seen at the next
   * pass. */
  char rel[600], from[600];
  snprintf(rel, sizeof(rel), "host/var/lib/docker/containers/%s/%s-json.log", ID1, ID1);
  fx_append(rel, "0123456789");
  pass(c);
  ok(got(CG1, "bytes-logs") == 1011, "its log written to: 1011 at the next pass");
  snprintf(from, sizeof(from), "%s", fx_path(rel));
  snprintf(rel, sizeof(rel), "host/var/lib/docker/containers/%s/%s-json.log.1", ID1, ID1);
  rename(from, fx_path(rel));
  snprintf(rel, sizeof(rel), "host/var/lib/docker/containers/%s/%s-json.log", ID1, ID1);
  fx_write(rel, "new");
  pass(c);
  ok(got(CG1, "bytes-logs") == 1014, "rotated: both files, 1014");

  /* Grown: the figure changes only when a walk ends, walks being 9
   * passes long; its age grows meanwhile. */
  for (int f = 0; f < 10; f++) {
    snprintf(rel, sizeof(rel), "host/var/lib/docker/overlay2/%s/diff/new%d", MOUNT1, f);
    write_size(rel, 20000);
  }
  double last = old, age_most = 0;
  int changes = 0, since_change = 100, tight = 0, i;
  for (i = 0; i < 30; i++) {
    usleep(20000);
    pass(c);
    double now = got(CG1, "bytes-layer"), age = got(CG1, "duration-layer_age");
    age_most = age > age_most ? age : age_most;
    if (now != last) {
      changes++;
      tight += since_change < 5;
      since_change = 0;
      last = now;
    } else {
      since_change++;
    }
  }
  ok(changes >= 1 && tight == 0,
     "the figure replaced %d times in 30 passes, never two walks apart "
     "by less than 5 passes", changes);
  is_u64((uint64_t)last, du_bytes(upper_of(MOUNT1)),
         "  to du's bytes of the grown layer (%.0f before)", old);
  ok(age_most >= 0.15 && age_most < 2,
     "its age: up to %.3f s, the time since the start of the walk that "
     "made it (9 passes 20 ms apart)", age_most);

  /* A new container is walked before the first one's next walk. */
  docker_container(ID2, MOUNT2, 2, 15, 6, "overlay2");
  jc_collector_stats st;
  int when = 0;
  long kept_walking = 0;
  for (i = 1; i <= 8 && !when; i++) {
    pass(c);
    jc_collector_get_stats(c, &st);
    kept_walking = st.fds_kept > kept_walking ? st.fds_kept : kept_walking;
    if (got(CG2, "bytes-layer") >= 0)
      when = i;
  }
  ok(when >= 3 && when <= 6,
     "a new container (22 entries): its figure %d passes after it came "
     "(walked first, before the other one's next walk)", when);
  is_u64((uint64_t)got(CG2, "bytes-layer"), du_bytes(upper_of(MOUNT2)),
         "  du's bytes");
  ok(kept_walking >= 8,
     "while its walk ran, its seven levels were held open (%ld kept)",
     kept_walking);

  /* One that goes in the middle of its first walk: what it held is given
   * back. */
  docker_container(ID3, MOUNT3, 3, 60, 6, "overlay2");
  pass(c); /* looked up (the pass's budget) */
  pass(c);
  pass(c); /* its first walk seven levels deep */
  jc_collector_get_stats(c, &st);
  long before = st.fds_kept;
  fx_remove("host/sys/fs/cgroup/" CG3);
  pass(c);
  jc_collector_get_stats(c, &st);
  ok(got(CG3, "bytes-layer") < 0 && got(CG3, "bytes-logs") < 0 &&
         st.fds_kept <= before - 7,
     "its cgroup gone: no list, its walk's seven levels given back (%ld "
     "kept, %ld before)", st.fds_kept, before);
  jc_collector_free(c);
  fx_remove("host/var/lib/docker/containers/" ID3);

  /* No descriptor to keep: the walk cannot start, said once; the logs
   * are sized all the same. */
  open_files = 0;
  logged[0] = '\0';
  c = start(NULL);
  for (i = 0; i < 3 && c; i++)
    pass(c);
  ok(c && got(CG1, "bytes-layer") < 0 && got(CG1, "bytes-logs") == 1014,
     "MaxOpenFiles 0: no layer figure, the logs' bytes");
  is_int(count_said("budget has no room"), 1,
         "  the budget stopping the walk said once, with the remedy");
  jc_collector_free(c);
  open_files = -1;

  /* A driver whose layers the layer store does not name, and its
   * processes' root no overlay: not understood, said once for both. */
  fx_remove("host/sys/fs/cgroup/" CG2);
  docker_container(ID2, MOUNT2, 2, 1, 0, "btrfs");
  for (int pid = 4243; pid <= 4244; pid++) {
    snprintf(rel, sizeof(rel), "host/proc/%d/mountinfo", pid);
    fx_mkdirs(rel);
    fx_remove(rel);
    fx_write(rel, "2001 1990 0:52 /@/docker/btrfs/subvolumes/x / rw,relatime - "
                  "btrfs /dev/sda2 rw,ssd,subvol=/@/docker/btrfs/subvolumes/x\n"
                  "2002 2001 0:53 / /proc rw - proc proc rw\n");
  }
  snprintf(rel, sizeof(rel), "host/var/lib/docker/containers/%s/config.v2.json", ID1);
  fx_writef(rel, "{\"Name\":\"/c1\",\"Driver\":\"btrfs\",\"LogPath\":\"\"}");
  logged[0] = '\0';
  c = start(NULL);
  pass(c);
  ok(got(CG1, "bytes-layer") < 0 && got(CG2, "bytes-layer") < 0 &&
         got(CG2, "bytes-logs") == 1002 && got(CG1, "bytes-logs") < 0,
     "Docker's btrfs: no layer figure; the logs of the one with a LogPath");
  is_int(count_said("its writable layer is not sized"), 1,
         "  said once for both, as a WARNING");
  ok(strstr(logged, "4 Collect \"disk\": cgroup") &&
         strstr(logged, fx_path("host/proc")) && strstr(logged, "mountinfo"),
     "  with the file looked at: %s/<pid>/mountinfo", fx_path("host/proc"));
  is_int(count_said("no log file of its own is sized"), 1,
         "the one without a LogPath: said once, with its file");
  pass(c);
  is_int(count_said("4 Collect \"disk\"") + count_said("6 Collect \"disk\""), 2,
         "  nothing more at the next pass");
  jc_collector_free(c);

  /* A container whose runtime has not written its files yet. */
  fx_remove("host/var/lib/docker/containers/" ID2);
  fx_remove("host/var/lib/docker/image/overlay2/layerdb/mounts/" ID2);
  logged[0] = '\0';
  c = start(NULL);
  pass(c);
  ok(got(CG2, "bytes-layer") < 0 && got(CG2, "bytes-logs") < 0,
     "its files not written yet: nothing");
  docker_files(ID2, MOUNT2, 2, 3, 0, "overlay2");
  pass(c);
  ok(got(CG2, "bytes-logs") == 1002, "written: found at the next pass");
  for (i = 0; i < 8 && got(CG2, "bytes-layer") < 0; i++)
    pass(c);
  is_u64((uint64_t)got(CG2, "bytes-layer"), du_bytes(upper_of(MOUNT2)),
         "  its layer walked");
  jc_collector_free(c);
  walk_entries = -1;
  fx_cleanup();
}

/* What a runtime does not say, on its fixture host: Podman's logs in
 * journald (no ctr.log), a pod of the kubelet's whose directory is not
 * there. */
static void test_untold(void) {
  fx_tmpdir();
  fx_copy("tests/fixtures/hosts/podman-rootful", "host");
  glob_t g;
  char pattern[600];
  snprintf(pattern, sizeof(pattern), "%s/var/lib/containers/storage/overlay-containers/*/userdata/ctr.log",
           fx_path("host"));
  if (glob(pattern, 0, NULL, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; i++)
      unlink(g.gl_pathv[i]);
  globfree(&g);
  logged[0] = '\0';
  jc_collector *c = start(NULL);
  pass(c);
  pass(c);
  is_int(count_said("no log file of its own is sized"), 1,
         "Podman without ctr.log (journald): said once for its 3 containers");
  ok(strstr(logged, "6 Collect \"disk\"") && strstr(logged, "ctr.log") &&
         strstr(logged, "journald"),
     "  at INFO, the file looked for and why");
  jc_collector_free(c);
  fx_cleanup();
}

int main(void) {
  signal(SIGALRM, SIG_DFL);
  test_walk();
  test_logs();
  test_watch();
  test_hosts();
  test_passes();
  test_untold();
  printf("1..%d\n", tap_count);
  return tap_failed ? 1 : 0;
}

/* Unit tests of the trust boundary: jc_cgwrite refuses anything but the
 * kernel's cgroup2 file system (a symlinked cgroup.procs in a copy of a
 * tree keeps its bytes), jc_pidfile reads only pid files no one else can
 * write, jc_proc refuses PID 1, kernel threads and processes outside the
 * root and holds a process from its check to its move (a pidfd, or its
 * start time), and the helpers they use (controller lines, hierarchy
 * paths). */
#include "fixture_util.h"
#include "jc_cgwrite.h"
#include "jc_hier.h"
#include "jc_parse.h"
#include "jc_pidfile.h"
#include "jc_proc.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir; /* fx_tmpdir's */

/* Paths below dir; four buffers, for calls that take more than one. */
static char *at(const char *name) {
  static char path[4][PATH_MAX];
  static int next;
  char *p = path[next++ % 4];
  snprintf(p, PATH_MAX, "%s/%s", dir, name);
  return p;
}

/* Setting the scene must work: a test of nothing proves nothing. */
static void must(int r, const char *what) {
  if (r < 0) {
    perror(what);
    exit(99);
  }
}

static void slurp(const char *name, char *buf, size_t size) {
  buf[0] = '\0';
  FILE *f = fopen(at(name), "r");
  if (!f)
    return;
  size_t len = fread(buf, 1, size - 1, f);
  buf[len] = '\0';
  fclose(f);
}

static void test_controllers(void) {
  char line[128];
  jc_hier_ctrl_format(JC_CTRL_MEMORY | JC_CTRL_IO | JC_CTRL_PIDS | JC_CTRL_CPU,
                 line, sizeof(line));
  is_str(line, "+cpu +memory +io +pids", "controller line for all four");
  jc_hier_ctrl_format(JC_CTRL_MEMORY, line, sizeof(line));
  is_str(line, "+memory", "controller line for one");
  jc_hier_ctrl_format(0, line, sizeof(line));
  is_str(line, "", "controller line for none");
  ok(jc_hier_ctrl_bit("hugetlb") == 0 && jc_hier_ctrl_bit("io") == JC_CTRL_IO,
     "only the controllers we read have bits");
  is_str(jc_hier_ctrl_name(JC_CTRL_PIDS), "pids", "name of a bit");
}

static void test_paths(void) {
  ok(jc_hier_path_within("/", "/"), "/ within /");
  ok(jc_hier_path_within("/a/b", "/a"), "/a/b within /a");
  ok(jc_hier_path_within("/a", "/a"), "/a within /a");
  ok(!jc_hier_path_within("/ab", "/a"), "/ab not within /a");
  ok(!jc_hier_path_within("/", "/a"), "/ not within /a");
  ok(!jc_hier_path_within("/../x", "/"),
     "a path outside our cgroup namespace is within nothing");
  ok(!jc_hier_path_within("/a/../b", "/a"), "a \"..\" level never counts");
  ok(jc_hier_path_within("/a/..b", "/a"), "\"..b\" is a name");

  char root[PATH_MAX], mnt[PATH_MAX], path[PATH_MAX];
  const char line[] = "41 31 0:38 /sub /mnt/cg\\040x rw - cgroup2 cgroup2 rw";
  is_int(jc_parse_mountinfo_cgroup2(line, sizeof(line) - 1, root, mnt,
                                    sizeof(mnt)),
         1, "mountinfo: cgroup2 line with its root");
  ok(strcmp(root, "/sub") == 0 && strcmp(mnt, "/mnt/cg x") == 0,
     "mountinfo: root %s, mount point %s", root, mnt);

  fx_write_mode("mountinfo",
      "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
      "42 31 0:38 /jobs /srv/jobs rw - cgroup2 cgroup2 rw\n",
      0644);
  is_int(jc_hier_cgroup_of(at("mountinfo"), "/sys/fs/cgroup/unified", path,
                           sizeof(path)),
         0, "the mount point itself");
  is_str(path, "/", "is the hierarchy's /");
  jc_hier_cgroup_of(at("mountinfo"), "/sys/fs/cgroup/unified/a/b", path,
                    sizeof(path));
  is_str(path, "/a/b", "a cgroup below the mount point");
  jc_hier_cgroup_of(at("mountinfo"), "/srv/jobs/x", path, sizeof(path));
  is_str(path, "/jobs/x", "below a mount of part of the hierarchy");
  is_int(jc_hier_cgroup_of(at("mountinfo"), "/sys/fs/cgroup/unifiedx", path,
                           sizeof(path)),
         -ENOENT, "a directory on no cgroup2 mount");
}

static void count_pid(pid_t pid, void *ctx) {
  (void)pid;
  (*(int *)ctx)++;
}

/* A copy of a tree: every write refused, nothing changed. */
static void test_writes_refused(void) {
  fx_mkdir("tree");
  fx_mkdir("tree/job");
  fx_write_mode("victim", "SECRET-DATA-LINE-ONE\n", 0644);
  fx_symlink(at("victim"), "tree/job/cgroup.procs");
  fx_symlink(at("victim"), "tree/job/cgroup.subtree_control");
  int treefd = open(at("tree"), O_RDONLY | O_DIRECTORY);
  int jobfd = open(at("tree/job"), O_RDONLY | O_DIRECTORY);
  is_int(jc_cgwrite_attach(jobfd, getpid()), -EMEDIUMTYPE,
         "attach in a copy of a tree refused");
  is_int(jc_cgwrite_enable(jobfd, JC_CTRL_MEMORY), -EMEDIUMTYPE,
         "enable in a copy of a tree refused");
  int moved = 0;
  is_int(jc_cgwrite_evacuate(jobfd, count_pid, &moved), -EMEDIUMTYPE,
         "evacuate in a copy of a tree refused");
  is_int(moved, 0, "and no process was moved");
  is_int(jc_cgwrite_open(jobfd, "cgroup.procs", O_WRONLY), -EMEDIUMTYPE,
         "opening a control file for writing refused");
  uint64_t id = 0;
  is_int(jc_cgwrite_mkdir(treefd, "new", &id), -EMEDIUMTYPE,
         "mkdir in a copy of a tree refused");
  ok(access(at("tree/new"), F_OK) < 0, "and nothing was created");
  jc_cgwrite_id(jobfd, &id);
  is_int(jc_cgwrite_rmdir(treefd, "job", id), -EMEDIUMTYPE,
         "rmdir in a copy of a tree refused");
  char text[64];
  slurp("victim", text, sizeof(text));
  is_str(text, "SECRET-DATA-LINE-ONE\n", "the symlinks' target is unchanged");
  close(jobfd);
  close(treefd);
}

static void pidfile_is(const char *name, int want, const char *why_part,
                       const char *what) {
  char why[512] = "";
  pid_t pid = 0;
  int r = jc_pidfile_read(at(name), &pid, why, sizeof(why));
  ok(r == want && (!why_part || strstr(why, why_part)), "%s: %d (%s)", what,
     r, why);
}

static void test_pidfiles(void) {
  char why[512];
  pid_t pid = 0;
  fx_write_mode("good.pid", "4242\n", 0644);
  is_int(jc_pidfile_read(at("good.pid"), &pid, why, sizeof(why)), 0,
         "a pid file of ours: %s", why);
  is_int(pid, 4242, "its pid");
  fx_write_mode("open.pid", "4242\n", 0644);
  chmod(at("open.pid"), 0666); /* past the umask */
  pidfile_is("open.pid", -EPERM, "writable by group or others (mode 0666)",
             "mode 0666");
  fx_symlink(at("good.pid"), "link.pid");
  pidfile_is("link.pid", -EPERM, "is a symlink", "the file is a symlink");
  mkfifo(at("fifo.pid"), 0600);
  pidfile_is("fifo.pid", -EPERM, "not a regular file",
             "a FIFO (read without blocking)");
  fx_write_mode("garbage.pid", "twelve\n", 0644);
  pidfile_is("garbage.pid", -EINVAL, "does not hold a process id", "garbage");
  pidfile_is("none.pid", -ENOENT, NULL, "missing");

  mkdir(at("open"), 0777);
  chmod(at("open"), 0777);
  fx_write_mode("open/job.pid", "4242\n", 0644);
  pidfile_is("open/job.pid", -EPERM, "/open is writable by group or others",
             "a directory others can write");
  mkdir(at("sticky"), 01777);
  chmod(at("sticky"), 01777);
  fx_write_mode("sticky/job.pid", "4242\n", 0644);
  pidfile_is("sticky/job.pid", 0, NULL, "a sticky directory, like /tmp");
  fx_mkdir("real");
  fx_write_mode("real/job.pid", "4242\n", 0644);
  fx_symlink("real", "dirlink");
  pidfile_is("dirlink/job.pid", 0, NULL, "through a symlink of ours");
  fx_symlink("../real", "sticky/up");
  pidfile_is("sticky/up/job.pid", 0, NULL, "through \"..\" in a symlink");
  pidfile_is("real/../real/./job.pid", 0, NULL, "\"..\" and \".\" levels");

  if (geteuid() != 0) {
    need_unmet("root, for the ownership cases");
    return;
  }
  fx_write_mode("nobody.pid", "4242\n", 0644);
  must(chown(at("nobody.pid"), 65534, 65534), "chown");
  pidfile_is("nobody.pid", -EPERM, "owned by uid 65534", "owned by uid 65534");
  fx_mkdir("theirs");
  fx_write_mode("theirs/job.pid", "4242\n", 0644);
  must(chown(at("theirs"), 65534, 65534), "chown");
  pidfile_is("theirs/job.pid", -EPERM, "/theirs is owned by uid 65534",
             "in a directory uid 65534 owns");
  fx_symlink(at("real"), "sticky/trapdir");
  must(lchown(at("sticky/trapdir"), 65534, 65534), "lchown");
  pidfile_is("sticky/trapdir/job.pid", -EPERM,
             "sticky/trapdir on its path is owned by uid 65534",
             "through a symlink uid 65534 owns");
}

static void test_processes(void) {
  char why[256], cg[PATH_MAX];
  is_int(jc_proc_is_kernel_thread(getpid()), 0, "we are no kernel thread");
  char comm[64] = "";
  FILE *f = fopen("/proc/2/comm", "r");
  if (f) {
    if (!fgets(comm, sizeof(comm), f))
      comm[0] = '\0';
    fclose(f);
  }
  if (strcmp(comm, "kthreadd\n") == 0)
    is_int(jc_proc_may_move(2, "/", why, sizeof(why)), -EPERM,
           "kthreadd refused: %s", why);
  else
    need_unmet("kthreadd at pid 2 (none in this pid namespace)");
  is_int(jc_proc_may_move(1, "/", why, sizeof(why)), -EPERM,
         "PID 1 refused: %s", why);
  is_int(jc_proc_may_move(4194304, "/", why, sizeof(why)), -ESRCH,
         "no such process");
  if (jc_proc_cgroup(getpid(), cg, sizeof(cg)) < 0) {
    need_unmet("a cgroup2 hierarchy this process is on");
    return;
  }
  is_int(jc_proc_may_move(getpid(), cg, why, sizeof(why)), 0,
         "a process in the root's part of the hierarchy may move");
  is_int(jc_proc_may_move(getpid(), "/joule-nowhere", why, sizeof(why)),
         -EPERM, "one outside it may not: %s", why);
}

/* A hold on a child: there while it lives, -ESRCH once it exited and was
 * reaped (its pid free for another), with a pidfd and by start time. */
static void hold_case(const char *how) {
  pid_t child = fork();
  must(child, "fork");
  if (child == 0) {
    pause();
    _exit(0);
  }
  jc_proc_hold h = {.pidfd = -1};
  char said[192];
  is_int(jc_proc_hold_take(child, &h), 0, "%s: hold taken", how);
  jc_proc_hold_describe(&h, said, sizeof(said));
  is_int(jc_proc_hold_check(&h), 0, "%s: the live process is there (%s)",
         how, said);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  is_int(jc_proc_hold_check(&h), -ESRCH, "%s: once reaped, it is not", how);
  jc_proc_hold_release(&h);
  jc_proc_hold_release(&h);
  ok(h.pidfd == -1, "%s: released (twice is safe)", how);
}

static void test_holds(void) {
  jc_proc_hold h = {.pidfd = -1};
  is_int(jc_proc_hold_take(4194304, &h), -ESRCH, "no hold on no process");
  hold_case("pidfd");
  setenv("JOULE_CGROUP_NO_PIDFD", "1", 1);
  hold_case("start time");
  unsetenv("JOULE_CGROUP_NO_PIDFD");
}

int main(void) {
  dir = fx_tmpdir();
  test_controllers();
  test_paths();
  test_writes_refused();
  test_pidfiles();
  test_processes();
  test_holds();
  fx_cleanup();
  return done_testing();
}

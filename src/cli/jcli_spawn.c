/*
 * jcli_spawn — see jcli_spawn.h.
 *
 * The child reports a failure before exec through a close-on-exec pipe:
 * end of file means exec succeeded; a jcli_spawn_stage and an errno mean
 * it did not, and the child exits at once.
 */
#include "jcli_spawn.h"

#include "jc_cgwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  int stage;
  int error;
} child_report;

/* In the child: report a failed stage to the parent, then leave. */
static _Noreturn void child_fail(int report_fd, jcli_spawn_stage stage,
                                 int error) {
  child_report r = {stage, error};
  (void)!write(report_fd, &r, sizeof(r));
  _exit(127);
}

/* In the child: stdout_fd becomes fd 1 (without close-on-exec).  0 or a
 * negative errno. */
static int child_stdout(int stdout_fd) {
  if (stdout_fd < 0)
    return 0;
  int r = stdout_fd == STDOUT_FILENO ? fcntl(stdout_fd, F_SETFD, 0)
                                     : dup2(stdout_fd, STDOUT_FILENO);
  return r < 0 ? -errno : 0;
}

/* In the child: enter the cgroup if still needed, then run the command. */
static _Noreturn void child_exec(int cgfd, char *const argv[],
                                 const sigset_t *mask, int stdout_fd,
                                 int report_fd) {
  if (child_stdout(stdout_fd) < 0)
    child_fail(report_fd, JCLI_SPAWN_START, errno);
  if (cgfd >= 0) {
    int r = jc_cgwrite_attach(cgfd, getpid());
    if (r < 0)
      child_fail(report_fd, JCLI_SPAWN_ATTACH, -r);
  }
  sigprocmask(SIG_SETMASK, mask, NULL);
  execvp(argv[0], argv);
  child_fail(report_fd, JCLI_SPAWN_EXEC, errno);
}

/* clone3 into the cgroup: the child's pid, 0 in the child, or -errno. */
static pid_t clone_into(int cgfd) {
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
  const char *off = getenv("JOULE_CGROUP_NO_CLONE3");
  if (off && strcmp(off, "1") == 0)
    return -ENOSYS;
  struct clone_args args = {
      .flags = CLONE_INTO_CGROUP,
      .exit_signal = SIGCHLD,
      .cgroup = (uint64_t)cgfd,
  };
  long pid = syscall(SYS_clone3, &args, sizeof(args));
  return pid < 0 ? -errno : (pid_t)pid;
#else
  (void)cgfd;
  return -ENOSYS;
#endif
}

/* Errors that mean "this kernel cannot clone3 into a cgroup", not "this
 * cgroup refuses": ENOSYS before 5.3 or under seccomp, E2BIG and EINVAL
 * before 5.7, EPERM from container seccomp profiles. */
static bool clone3_unsupported(int error) {
  return error == ENOSYS || error == E2BIG || error == EINVAL ||
         error == EPERM;
}

/* Starts the child; ret->pid set, or ret->stage = JCLI_SPAWN_START. */
static void start_child(int cgfd, char *const argv[], const sigset_t *mask,
                        int stdout_fd, int report_fd, jcli_spawn_result *ret) {
  pid_t pid = clone_into(cgfd);
  ret->by_clone3 = pid >= 0;
  if (pid == 0)
    child_exec(-1, argv, mask, stdout_fd, report_fd);
  if (pid < 0 && clone3_unsupported(-pid)) {
    pid = fork();
    if (pid == 0)
      child_exec(cgfd, argv, mask, stdout_fd, report_fd);
    if (pid < 0)
      pid = -errno;
  }
  if (pid < 0) {
    ret->stage = JCLI_SPAWN_START;
    ret->error = -pid;
    return;
  }
  ret->pid = pid;
}

/* What the child reported: nothing (exec done) or its failed stage. */
static void read_report(int fd, jcli_spawn_result *ret) {
  child_report r;
  ssize_t len;
  do
    len = read(fd, &r, sizeof(r));
  while (len < 0 && errno == EINTR);
  if (len == (ssize_t)sizeof(r)) {
    ret->stage = (jcli_spawn_stage)r.stage;
    ret->error = r.error;
  }
}

void jcli_spawn(int cgfd, char *const argv[], const sigset_t *child_mask,
                int stdout_fd, jcli_spawn_result *ret) {
  *ret = (jcli_spawn_result){JCLI_SPAWN_OK, 0, -1, false};
  int report[2];
  if (pipe2(report, O_CLOEXEC) < 0) {
    *ret = (jcli_spawn_result){JCLI_SPAWN_START, errno, -1, false};
    return;
  }
  start_child(cgfd, argv, child_mask, stdout_fd, report[1], ret);
  close(report[1]);
  if (ret->stage == JCLI_SPAWN_OK)
    read_report(report[0], ret);
  close(report[0]);
  if (ret->stage != JCLI_SPAWN_OK && ret->pid > 0) {
    while (waitpid(ret->pid, NULL, 0) < 0 && errno == EINTR)
      ;
    ret->pid = -1;
  }
}

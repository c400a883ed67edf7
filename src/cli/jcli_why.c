/*
 * jcli_why — see jcli_why.h.
 */
#include "jcli_why.h"

#include "jc_hier.h"

#include <stdio.h>
#include <string.h>

unsigned jcli_why_v1(int rootfd) {
  unsigned v1 = 0;
  if (!jc_hier_is_cgroupfs(rootfd) ||
      jc_hier_v1_controllers("/proc/cgroups", &v1) < 0)
    return 0;
  return v1;
}

void jcli_why_no_controller(const char *cgroup, bool top, unsigned v1,
                            unsigned bit, char *why, size_t size) {
  const char *name = jc_hier_ctrl_name(bit);
  const char *slash = strrchr(cgroup, '/');
  int parent = slash ? (int)(slash - cgroup) : 0;
  if (v1 & bit)
    snprintf(why, size,
             "the %s controller is bound to cgroup v1 on this host "
             "(/proc/cgroups), so %s, in cgroup v2, has none",
             name, cgroup);
  else if (top || parent == 0)
    snprintf(why, size,
             "the %s controller is not available in %s (not in its "
             "cgroup.controllers: the cgroup above it does not enable it for "
             "its children, or the kernel has it off)",
             name, cgroup);
  else
    snprintf(why, size,
             "the %s controller is not enabled for the children of %.*s, so "
             "%s has none; enable it with: echo \"+%s\" > "
             "%.*s/cgroup.subtree_control",
             name, parent, cgroup, cgroup, name, parent, cgroup);
}

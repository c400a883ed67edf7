/*
 * jcli_check — `joule-cgroup check`, and the step it shares with `sample
 * --config`: a collectd configuration's <Plugin joule_cgroup> block into
 * a jc_config, with what collectd would log said on stderr.
 */
#ifndef JCLI_CHECK_H
#define JCLI_CHECK_H

#include "jc_config.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Reads the collectd configuration at path (jcli_block) and applies its
 * block to cfg, printing each problem on stderr; where gets "FILE:LINE"
 * of the block.  0, or a negative errno when the configuration or the
 * block is refused (said); *ret_logged_error (may be NULL): collectd
 * would log an ERROR and read on (a file of an included directory it
 * cannot read, a bad Include).
 */
int jcli_check_load(const char *path, jc_config *cfg, char *where, size_t size,
                    bool *ret_logged_error);

#endif

/*
 * jcli_cconf — the text of one of collectd's configuration files parsed
 * as collectd 5.12 parses it, into the items jc_confblock takes (the
 * Includes are jcli_cread's).
 *
 * The syntax is liboconfig's (collectd's flex scanner and bison grammar),
 * token for token: the longest match of its rules, so `1.5e3` is the
 * number 1.5 and the word "e3", `2001:db8::1` one word, `True` a string
 * (only true, yes, on, false, no and off are booleans), a character no
 * rule matches (`;`, `-` before a letter) skipped; comments from `#` to
 * the end of the line; a backslash at the end of a line joins it to the
 * next, and inside a quoted string drops the next line's leading blanks;
 * a quoted string may span lines; `\x` in a quoted string is `x`.  Every
 * line ends with a newline, the last one too, and a block with neither
 * values nor children is dropped, as collectd drops them.
 *
 * It returns 0, or a negative errno with the message in why (-EINVAL for
 * the text, -ENOMEM), and never prints.
 */
#ifndef JCLI_CCONF_H
#define JCLI_CCONF_H

#include "jc_confblock.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Parses one file's text (len bytes, NULs included) into *ret_root (its
 * children), each item's file set to name, which must outlive the items.
 * No Include is followed.  0, or a negative errno with why "NAME:LINE:
 * why".
 */
int jcli_cconf_parse(const char *text, size_t len, const char *name,
                     jc_conf_item *ret_root, char *why, size_t n);

/* Frees an item made here (its key, values and children, all of them
 * for a root) and zeroes it; NULL-safe. */
void jcli_cconf_items_clear(jc_conf_item *item);

#endif

/*
 * jcli_utf8 — the command's one reading of UTF-8 (RFC 3629), for the
 * text it writes out that it did not make: a cgroup's name or a command
 * line is any bytes, but JSON (jcli_json) and XML (jcli_plot) take only
 * valid UTF-8, and both mend a bad byte the same way, as U+FFFD.
 */
#ifndef JCLI_UTF8_H
#define JCLI_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* U+FFFD REPLACEMENT CHARACTER: what a byte that starts no valid
 * sequence is written as. */
#define JCLI_UTF8_REPLACEMENT 0xFFFD

/*
 * The length of the valid sequence at s (len > 0 bytes left), with its
 * code point in *ret_cp (may be NULL); 0 when s does not start one: no
 * overlong forms, no surrogates, nothing above U+10FFFF, none cut short.
 */
size_t jcli_utf8_decode(const unsigned char *s, size_t len, uint32_t *ret_cp);

#endif

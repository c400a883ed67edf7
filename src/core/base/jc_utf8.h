/*
 * jc_utf8 — the one reading of UTF-8 (RFC 3629) of the core and the
 * command: strict, as every writer's receiver is (Prometheus refuses a
 * scrape whose label value is not UTF-8): no overlong form (C0 AF for
 * '/'), no surrogate (ED A0 80), nothing past U+10FFFF (F4 90 80 80),
 * no sequence cut short.  A container's name (jc_name_label), the JSON
 * and SVG the command writes (jcli_json, jcli_plot) and the log lines
 * that show a name refused (jc_utf8_escape) all read it so.
 */
#ifndef JC_UTF8_H
#define JC_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* U+FFFD REPLACEMENT CHARACTER: what the command writes for a byte that
 * starts no valid sequence. */
#define JC_UTF8_REPLACEMENT 0xFFFD

/*
 * The length of the valid sequence at s (len > 0 bytes left), with its
 * code point in *ret_cp (may be NULL); 0 when s does not start one.
 */
size_t jc_utf8_decode(const unsigned char *s, size_t len, uint32_t *ret_cp);

/* Are the len bytes at s UTF-8, whole? */
bool jc_utf8_valid(const char *s, size_t len);

/*
 * s as a log line may show it: a byte that starts no valid sequence, a
 * control character, '"' and '\' as \xNN, the rest as it is; at most
 * size - 1 bytes and a NUL (a sequence or an escape that does not fit
 * is left out whole), so that out is UTF-8 whatever s is.
 */
void jc_utf8_escape(const char *s, char *out, size_t size);

#endif

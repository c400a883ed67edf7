/*
 * jc_rtread — reading a container runtime's files below RuntimeRoot:
 * opened without leaving it, refused unless regular, parsed as JSON over
 * a bounded prefix with yajl's streaming parser.  jc_runtime's reader;
 * it knows no runtime.
 *
 * Every function returns 0 or a negative errno and never logs; where a
 * file was refused, why (a phrase: "is a FIFO, not a regular file") says
 * so for the caller's one message.  -ENOENT is always a file not there.
 */
#ifndef JC_RTREAD_H
#define JC_RTREAD_H

#include <stdbool.h>
#include <stddef.h>

#define JC_RTREAD_DEPTH 8 /* JSON levels whose keys a handler sees */

/*
 * A JSON document's strings and the ends of its objects, streamed.  path
 * holds the key of each open level from the top ("[]" inside an array),
 * the value's own key last: "Name" → {"Name"}; "Config": {"Labels": {"a":
 * "b"}} → {"Config", "Labels", "a"}.  A handler returns false to stop the
 * parse (found what it wanted).  Deeper levels are not shown; keys longer
 * than 127 bytes match nothing.
 */
typedef struct {
  bool (*string)(void *ctx, const char *const *path, int depth,
                 const char *value, size_t len);
  bool (*end_map)(void *ctx, int depth); /* NULL: not wanted */
} jc_rtread_json;

/* What a refused symbolic link is told (why's phrase for it). */
#define JC_RTREAD_LINK                                                         \
  "is a symbolic link; runtime files are read only as regular files below "   \
  "RuntimeRoot"

/* Opens the directory rel (relative to rootfd, no leading "/"), without
 * leaving rootfd's tree. */
int jc_rtread_open_dir(int rootfd, const char *rel, char *why, size_t n);

/* Parses the first max bytes of the regular file rel with h.  0: the
 * document ended, or a handler stopped it; -EBADMSG: malformed JSON;
 * -EFBIG: it did not end within max bytes; -ELOOP, -EXDEV, -EINVAL: not
 * a regular file reached inside the tree. */
int jc_rtread_json_file(int rootfd, const char *rel, size_t max,
                        const jc_rtread_json *h, void *ctx, char *why,
                        size_t n);

/* Reads at most size - 1 bytes of the regular file rel, NUL-terminated;
 * the length, or a negative errno.  *ret_cut: the file had more. */
long jc_rtread_text(int rootfd, const char *rel, char *buf, size_t size,
                    bool *ret_cut, char *why, size_t n);

/* Where rel, which did not open (-ENOENT, -ELOOP), stops at a symbolic
 * link: 0, *ret_len the length of rel's first levels naming the deepest
 * level there, a link that does not lead to a directory inside the tree
 * (the file itself, or a directory whose link points out of RuntimeRoot
 * or, without openat2, any); -ENOENT when what is missing is missing. */
int jc_rtread_find_link(int rootfd, const char *rel, size_t *ret_len);

#endif

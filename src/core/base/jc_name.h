/*
 * jc_name — the collectd plugin instance of a cgroup (docs/configuration.md, instance names).
 *
 *   ""                                  → "root"
 *   "system.slice/nginx.service", path  → "system.slice_nginx.service"
 *   same, basename                      → "nginx.service"
 *
 * An instance is at most JC_INSTANCE_MAX bytes (collectd's limit).  A longer
 * one keeps its tail, prefixed with the 8 hex digits of the FNV-1a hash of
 * the full relative path and "~", so that long Kubernetes paths keep their
 * distinguishing container id and stay unique.
 */
#ifndef JC_NAME_H
#define JC_NAME_H

#include <stddef.h>
#include <stdint.h>

#define JC_INSTANCE_MAX 127
#define JC_INSTANCE_SIZE (JC_INSTANCE_MAX + 1)

/* CONTAINER: the name the container runtime gave (jc_runtime), else the
 * path's, as PATH makes it. */
typedef enum {
  JC_INSTANCE_FROM_PATH,
  JC_INSTANCE_FROM_BASENAME,
  JC_INSTANCE_FROM_CONTAINER
} jc_instance_from;

/* ContainerNames (InstanceFrom "container"): how a runtime's name joins
 * its parts (docs/containers.md, labels per writer).
 *   PLAIN     shop_web-7d9f_nginx, shop_web-7d9f (a pod), shop_db (compose)
 *   PREFIXED  k8s_shop_web-7d9f_nginx, k8s_shop_web-7d9f, compose_shop_db:
 *             one regular expression splits them, nothing else matches
 *   LEVELS    k8s.shop.web-7d9f.nginx, k8s.shop.web-7d9f, compose.shop.db:
 *             a '.' within a part written '_' (Kubernetes and compose
 *             names have no '_'), each part a Graphite level */
typedef enum {
  JC_NAMES_PLAIN,
  JC_NAMES_PREFIXED,
  JC_NAMES_LEVELS
} jc_container_names;

/* 32-bit FNV-1a of a NUL-terminated string. */
uint32_t jc_name_fnv1a32(const char *s);

/* The instance of relpath; ret_name receives at most JC_INSTANCE_MAX bytes. */
void jc_name_instance(const char *relpath, jc_instance_from from,
                      char ret_name[JC_INSTANCE_SIZE]);

/*
 * The instance of a name chosen by someone else (a container's name or
 * labels, docs/containers.md): '/' becomes '_' as in paths, and longer
 * than JC_INSTANCE_MAX it keeps its tail behind the hash of relpath, as
 * above.  A name that is empty, holds a control character, a space, a
 * quote or a backslash (collectd's text protocol and its writers cannot
 * carry them), or is not UTF-8 as jc_utf8 reads it (no overlong form, no
 * surrogate, nothing past U+10FFFF), is refused: -EILSEQ, ret_name
 * untouched.
 */
int jc_name_label(const char *label, const char *relpath,
                  char ret_name[JC_INSTANCE_SIZE]);

/*
 * Makes name distinct after a collision: appends "~" and the hash of
 * relpath, shortening the front the same way as above when needed.
 */
void jc_name_disambiguate(char name[JC_INSTANCE_SIZE], const char *relpath);

#endif

/*
 * jcli_probe — see jcli_probe.h.
 *
 *   joule-cgroup probe [--url http://HOST:PORT/PATH] [--max-age SEC]
 *
 * One HTTP/1.0 GET of write_prometheus' page, bounded in time (5 s to
 * connect, 5 s without a byte) and size (256 MiB), read as it comes: the
 * plugin's series (collectd_joule_cgroup_*) counted and the newest of
 * their timestamps kept (write_prometheus stamps each value with the
 * time of the read that made it).  Fresh when that is at most --max-age
 * old: collectd read and sent in that time.  When collectd stops sending
 * (a read that hangs, a write thread stuck) the values age, or go when
 * collectd's cache drops them; when it stops, nothing answers.  Prints
 * {"url": …, "series": N, "newest_age_seconds": S} and exits 0, or says
 * why on stderr and exits 1.
 */
#include "jcli_probe.h"

#include "jcli_commands.h"
#include "jcli_json.h"
#include "jcli_opts.h"
#include "jcli_stderr.h"

#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "collectd_joule_cgroup_"
#define ANSWER_MAX (256u << 20)
#define WAIT_SECONDS 5

/* A body line of the plugin's: counted, its timestamp (after the value,
 * after the labels' closing brace) kept when newer. */
static void body_line(jcli_probe_page *p) {
  if (strncmp(p->line, PREFIX, sizeof(PREFIX) - 1) != 0)
    return;
  p->series++;
  const char *rest = strrchr(p->line, '}');
  rest = rest ? rest + 1 : strchr(p->line, ' ');
  if (!rest)
    return;
  char *end;
  (void)strtod(rest, &end); /* the value */
  if (end == rest)
    return;
  errno = 0;
  char *ms_end;
  long long ms = strtoll(end, &ms_end, 10);
  if (errno == 0 && ms_end != end && ms > p->newest_ms)
    p->newest_ms = ms;
}

static void whole_line(jcli_probe_page *p) {
  while (p->len > 0 && p->line[p->len - 1] == '\r')
    p->len--;
  p->line[p->len] = '\0';
  if (p->stage == 0) {
    int status;
    if (sscanf(p->line, "HTTP/%*d.%*d %d", &status) == 1)
      p->status = status;
    p->stage = 1;
  } else if (p->stage == 1) {
    if (p->len == 0)
      p->stage = 2;
  } else if (!p->cut) {
    body_line(p);
  }
  p->len = 0;
  p->cut = 0;
}

void jcli_probe_feed(jcli_probe_page *p, const char *buf, size_t len) {
  for (size_t i = 0; i < len; i++) {
    if (buf[i] == '\n') {
      whole_line(p);
    } else if (p->len + 1 < sizeof(p->line)) {
      p->line[p->len++] = buf[i];
    } else {
      p->cut = 1;
    }
  }
}

void jcli_probe_end(jcli_probe_page *p) {
  if (p->len > 0 || p->cut)
    whole_line(p);
}

/* "http://HOST:PORT/PATH" (HOST may be [IPv6]) into its parts; -1 when
 * the URL is not of that form. */
static int split_url(const char *url, char *host, size_t host_size, char *port,
                     size_t port_size, const char **ret_path) {
  if (strncmp(url, "http://", 7) != 0)
    return -1;
  const char *h = url + 7, *h_end, *after;
  if (*h == '[') {
    h_end = strchr(++h, ']');
    if (!h_end)
      return -1;
    after = h_end + 1;
  } else {
    h_end = h + strcspn(h, ":/");
    after = h_end;
  }
  if (h_end == h || (size_t)(h_end - h) >= host_size)
    return -1;
  memcpy(host, h, (size_t)(h_end - h));
  host[h_end - h] = '\0';
  const char *path = strchr(after, '/');
  if (!path)
    path = after + strlen(after);
  if (*after == ':') {
    size_t n = (size_t)(path - after - 1);
    if (n == 0 || n >= port_size || strspn(after + 1, "0123456789") != n)
      return -1;
    memcpy(port, after + 1, n);
    port[n] = '\0';
  } else if (after == path) {
    snprintf(port, port_size, "80");
  } else {
    return -1;
  }
  *ret_path = *path ? path : "/";
  return 0;
}

/* A connected socket to host:port, or -1 with the reason in why. */
static int connect_to(const char *host, const char *port, char *why, size_t size) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
  struct addrinfo *list;
  int e = getaddrinfo(host, port, &hints, &list);
  if (e != 0) {
    snprintf(why, size, "%s", gai_strerror(e));
    return -1;
  }
  int fd = -1;
  snprintf(why, size, "no address");
  struct timeval wait = {.tv_sec = WAIT_SECONDS};
  for (struct addrinfo *a = list; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      snprintf(why, size, "%s", strerror(errno));
      continue;
    }
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
      snprintf(why, size, "%s", errno == EINPROGRESS ? "no answer in 5 s" : strerror(errno));
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(list);
  return fd;
}

/* The page at url read into p: 0, or -1 with the reason said. */
static int fetch(const char *url, jcli_probe_page *p) {
  char host[256], port[16], why[256];
  const char *path;
  if (split_url(url, host, sizeof(host), port, sizeof(port), &path) < 0) {
    jcli_error("probe: --url \"%s\": not http://HOST:PORT/PATH", url);
    return -1;
  }
  int fd = connect_to(host, port, why, sizeof(why));
  if (fd < 0) {
    jcli_error("probe: cannot connect to %s: %s (is collectd running, with write_prometheus?)",
               url, why);
    return -1;
  }
  char buf[65536];
  int n = snprintf(buf, sizeof(buf), "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, host);
  if (n < 0 || (size_t)n >= sizeof(buf) || write(fd, buf, (size_t)n) != n) {
    jcli_error("probe: cannot send the request to %s: %s", url, strerror(errno));
    close(fd);
    return -1;
  }
  size_t total = 0;
  for (;;) {
    ssize_t got = read(fd, buf, sizeof(buf));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      jcli_error("probe: %s: %s", url,
                 errno == EAGAIN ? "no answer in 5 s" : strerror(errno));
      close(fd);
      return -1;
    }
    if (got == 0)
      break;
    jcli_probe_feed(p, buf, (size_t)got);
    total += (size_t)got;
    if (total > ANSWER_MAX) {
      jcli_error("probe: %s: more than %u MiB, not read further", url, ANSWER_MAX >> 20);
      close(fd);
      return -1;
    }
  }
  close(fd);
  jcli_probe_end(p);
  if (p->status != 200) {
    jcli_error("probe: %s answered %s %d", url, p->status ? "HTTP status" : "no HTTP status,",
               p->status);
    return -1;
  }
  return 0;
}

int jcli_probe(int argc, char **argv) {
  jcli_opts o;
  int r = jcli_opts_parse(&o, JCLI_OPT_PROBE, argc, argv);
  const char *url = o.url ? o.url : JCLI_PROBE_URL;
  double max_age = o.max_age > 0 ? o.max_age : JCLI_PROBE_MAX_AGE;
  jcli_opts_release(&o);
  if (r != 0)
    return r > 0 ? JCLI_EXIT_OK : JCLI_EXIT_USAGE;
  jcli_probe_page *p = calloc(1, sizeof(*p));
  if (!p) {
    jcli_error("out of memory");
    return JCLI_EXIT_FAILURE;
  }
  int status = JCLI_EXIT_FAILURE;
  struct timespec now;
  if (fetch(url, p) < 0) {
    /* said */
  } else if (p->series == 0) {
    jcli_error("probe: %s serves no joule_cgroup value: collectd sends none "
               "(is the plugin loaded? see collectd's log)", url);
  } else if (p->newest_ms == 0) {
    jcli_error("probe: %s serves %zu joule_cgroup values, none with a time "
               "(write_prometheus leaves it out past StalenessDelta): their "
               "age is not known", url, p->series);
  } else if (clock_gettime(CLOCK_REALTIME, &now) == 0) {
    double age = (double)now.tv_sec + now.tv_nsec / 1e9 - p->newest_ms / 1e3;
    if (age > max_age) {
      jcli_error("probe: the newest joule_cgroup value %s serves is %.1f s old "
                 "(more than --max-age %g s): collectd no longer sends",
                 url, age, max_age);
    } else {
      jcli_json *j = jcli_json_new(false);
      if (j) {
        jcli_json_map_open(j);
        jcli_json_key(j, "url");
        jcli_json_string(j, url);
        jcli_json_key(j, "series");
        jcli_json_int(j, (long long)p->series);
        jcli_json_key(j, "newest_age_seconds");
        jcli_json_double(j, age < 0 ? 0 : age);
        jcli_json_map_close(j);
        status = jcli_json_write(j, STDOUT_FILENO) < 0 ? JCLI_EXIT_FAILURE : JCLI_EXIT_OK;
        jcli_json_free(j);
      }
    }
  }
  free(p);
  return status;
}

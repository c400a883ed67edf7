/*
 * jc_sink — the UDP receiver a benchmarked collectd's `network` plugin
 * sends to, as a fleet host forwards to its server, and the clock of the
 * measurement: it counts read passes by one value list that every read
 * sends once (the marker, "plugin-instance/type-type_instance" as collectd
 * names it), and samples the daemon's CPU time (utime + stime of
 * /proc/PID/stat) when the marker of read WARM arrives and again when
 * that of read WARM + READS does.  Both samples fall at the same point of
 * a read, so the difference is the CPU of exactly READS reads, whatever
 * the daemon does between them.  It also counts the value lists received
 * in between (value lists per read, from the wire: what was really sent).
 *
 *   jc_sink PORTFILE PIDFILE MARKER WARM READS TIMEOUT
 *
 * Binds an ephemeral port on 127.0.0.1 and writes its number to PORTFILE;
 * reads the daemon's pid from PIDFILE when it first needs it.  Prints one
 * line of "key=value" figures and exits 0 after read WARM + READS, or
 * exits 1 after TIMEOUT seconds without them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Part types of collectd's binary protocol (network.h). */
enum {
  PART_HOST = 0x0000,
  PART_PLUGIN = 0x0002,
  PART_PLUGIN_INSTANCE = 0x0003,
  PART_TYPE = 0x0004,
  PART_TYPE_INSTANCE = 0x0005,
  PART_VALUES = 0x0006,
};

/* The identifier parts a value list inherits within one packet. */
typedef struct {
  char plugin[128], plugin_instance[128], type[128], type_instance[128];
} list_name;

typedef struct {
  const char *marker;
  unsigned long lists;   /* value lists received so far */
  unsigned long markers; /* reads seen so far */
} tally;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void copy_string(char *dst, size_t size, const uint8_t *p, size_t n) {
  size_t len = n < size ? n : size - 1;
  memcpy(dst, p, len);
  dst[len] = '\0'; /* the part carries its own NUL; this bounds a bad one */
}

static int is_marker(const list_name *n, const char *marker) {
  char id[600];
  snprintf(id, sizeof(id), "%s%s%s/%s%s%s", n->plugin,
           n->plugin_instance[0] ? "-" : "", n->plugin_instance, n->type,
           n->type_instance[0] ? "-" : "", n->type_instance);
  return strcmp(id, marker) == 0;
}

/* One packet: counts its value lists, returns how many were the marker. */
static unsigned long count_packet(tally *t, const uint8_t *p, size_t len) {
  list_name n = {{0}, {0}, {0}, {0}};
  unsigned long markers = 0;
  while (len >= 4) {
    unsigned type = (unsigned)p[0] << 8 | p[1];
    size_t part = (size_t)p[2] << 8 | p[3];
    if (part < 4 || part > len)
      break; /* malformed: the rest of the packet cannot be read */
    const uint8_t *body = p + 4;
    size_t body_len = part - 4;
    switch (type) {
    case PART_PLUGIN:
      copy_string(n.plugin, sizeof(n.plugin), body, body_len);
      break;
    case PART_PLUGIN_INSTANCE:
      copy_string(n.plugin_instance, sizeof(n.plugin_instance), body, body_len);
      break;
    case PART_TYPE:
      copy_string(n.type, sizeof(n.type), body, body_len);
      break;
    case PART_TYPE_INSTANCE:
      copy_string(n.type_instance, sizeof(n.type_instance), body, body_len);
      break;
    case PART_VALUES:
      t->lists++;
      markers += (unsigned long)is_marker(&n, t->marker);
      break;
    default:
      break;
    }
    p += part;
    len -= part;
  }
  return markers;
}

/* utime + stime of the process in PIDFILE, in clock ticks; -1 if unknown. */
static long long daemon_ticks(const char *pidfile) {
  char path[64], buf[1024];
  FILE *f = fopen(pidfile, "r");
  long pid = 0;
  if (!f || fscanf(f, "%ld", &pid) != 1)
    pid = 0;
  if (f)
    fclose(f);
  if (pid <= 0)
    return -1;
  snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
  if (!(f = fopen(path, "r")))
    return -1;
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *s = strrchr(buf, ')'); /* the command name may hold spaces */
  unsigned long long utime, stime;
  /* after ")": state ppid pgrp session tty tpgid flags minflt cminflt
     majflt cmajflt utime stime (fields 3 to 15 of proc(5)) */
  if (!s || sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                   &utime, &stime) != 2)
    return -1;
  return (long long)(utime + stime);
}

static int open_socket(const char *portfile) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof(a);
  int rcvbuf = 16 << 20; /* a read's burst must not be dropped */
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
      getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
    perror("jc_sink: socket");
    exit(1);
  }
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
  char tmp[4200];
  snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
  FILE *f = fopen(tmp, "w");
  if (!f || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0 ||
      rename(tmp, portfile) < 0) {
    perror(portfile);
    exit(1);
  }
  return fd;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: jc_sink PORTFILE PIDFILE MARKER WARM READS TIMEOUT\n");
    return 2;
  }
  const char *pidfile = argv[2];
  unsigned long warm = strtoul(argv[4], NULL, 10);
  unsigned long reads = strtoul(argv[5], NULL, 10);
  double deadline = now_s() + atof(argv[6]);
  int fd = open_socket(argv[1]);
  tally t = {argv[3], 0, 0};
  long long ticks0 = -1;
  unsigned long lists0 = 0;
  double t0 = 0;
  static uint8_t packet[65536];
  while (now_s() < deadline) {
    struct pollfd pfd = {fd, POLLIN, 0};
    if (poll(&pfd, 1, 200) <= 0)
      continue;
    ssize_t n = recv(fd, packet, sizeof(packet), 0);
    if (n <= 0)
      continue;
    unsigned long before = t.markers;
    t.markers += count_packet(&t, packet, (size_t)n);
    if (before < warm && t.markers >= warm) {
      ticks0 = daemon_ticks(pidfile);
      lists0 = t.lists;
      t0 = now_s();
    } else if (before < warm + reads && t.markers >= warm + reads) {
      long long ticks1 = daemon_ticks(pidfile);
      if (ticks0 < 0 || ticks1 < 0) {
        fprintf(stderr, "jc_sink: no CPU time of the daemon in %s\n", pidfile);
        return 1;
      }
      printf("reads=%lu ticks=%lld hz=%ld lists=%lu seconds=%.3f\n", reads,
             ticks1 - ticks0, sysconf(_SC_CLK_TCK), t.lists - lists0,
             now_s() - t0);
      return 0;
    }
  }
  fprintf(stderr, "jc_sink: %lu of %lu reads of \"%s\" seen in %s s\n",
          t.markers, warm + reads, t.marker, argv[6]);
  return 1;
}

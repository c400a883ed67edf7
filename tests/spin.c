/*
 * spin — a fixed amount of CPU work, for the tests of `compare`
 * (tests/cli_compare.sh): a command that does 20 % more work than
 * another burns 20 % more CPU time, whatever else the machine does.
 *
 *   spin MILLIONS      MILLIONS million rounds of a loop, then prints
 *                      "spun MILLIONS" (and a checksum, so that the
 *                      compiler keeps the loop)
 *
 * The loop is a 64-bit xorshift: a few cycles a round, in registers, no
 * memory traffic, so its time depends on the rounds and the clock alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  char *end;
  long millions = argc == 2 ? strtol(argv[1], &end, 10) : -1;
  if (millions <= 0 || *end) {
    fprintf(stderr, "usage: spin MILLIONS\n");
    return 2;
  }
  uint64_t x = 88172645463325252ull;
  for (long i = 0; i < millions * 1000000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  printf("spun %ld (%llu)\n", millions, (unsigned long long)(x & 0xffff));
  return 0;
}

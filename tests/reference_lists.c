/*
 * reference_lists — prints what the core knows of Collect groups and value
 * lists, one line each, so that tests/reference_check.py can hold
 * docs/configuration.md and docs/metrics.md (and so joule_cgroup(5),
 * made from them) to the code:
 *
 *   group  WORD  default|opt-in
 *   list   NAME  TYPE  TYPE_INSTANCE  GROUP[+GROUP]  default|opt-in
 *
 * TYPE_INSTANCE is "-" when the list has none.  The MemoryStat lists are
 * made from whatever keys the configuration names: they are printed with
 * "<key>" for the key, as the catalogue names them, and MemoryStat as
 * their default.
 */
#include "jc_lists.h"
#include "jc_sample.h"

#include <stdio.h>

static void print_groups(unsigned mask) {
  unsigned bit;
  const char *sep = "";
  for (size_t i = 0; jc_sample_collect_word(i, &bit); i++)
    if (mask & bit) {
      printf("%s%s", sep, jc_sample_collect_word(i, NULL));
      sep = "+";
    }
}

int main(void) {
  unsigned bit;
  const char *word;
  for (size_t i = 0; (word = jc_sample_collect_word(i, &bit)); i++)
    printf("group\t%s\t%s\n", word,
           (JC_COLLECT_DEFAULT & bit) ? "default" : "opt-in");
  for (int i = 0; i < JC_LIST_COUNT; i++) {
    char name[160];
    jc_lists_name(jc_lists[i].type, jc_lists[i].type_instance, name,
                 sizeof(name));
    printf("list\t%s\t%s\t%s\t", name, jc_lists[i].type,
           jc_lists[i].type_instance[0] ? jc_lists[i].type_instance : "-");
    print_groups(jc_lists[i].groups);
    printf("\t%s\n", jc_lists[i].in_default ? "default" : "opt-in");
  }
  /* jc_config_add_memstat: a byte key is memory-<key>, an event key
   * (jc_sample_memstat_key_is_event) derive-memory_<key>. */
  printf("list\tmemory-<key>\tmemory\t<key>\tmemory\tMemoryStat\n");
  printf("list\tderive-memory_<key>\tderive\tmemory_<key>\tmemory\tMemoryStat\n");
  return ferror(stdout) ? 1 : 0;
}

/*
 * reference_lists — prints what the core knows of Collect groups and value
 * lists, one line each, so that tests/reference_check.py can hold
 * docs/configuration.md and docs/metrics.md (and so joule_cgroup(5),
 * made from them) to the code:
 *
 *   group  WORD  default|opt-in
 *   list   NAME  TYPE  TYPE_INSTANCE  GROUP[+GROUP]  default|opt-in  WHEN  KERNEL  ROOT  FILES
 *
 * TYPE_INSTANCE is "-" when the list has none.  WHEN is where it is sent
 * (jc_lists.h, JC_WHEN_*: quota, limit, root, used, mig, owner,
 * container, pod, joined by "+"; "always"), KERNEL the first Linux that
 * has its file where the file table says ("-" where the catalogue does
 * not: the kernel column of docs/metrics.md), ROOT "root" when the root
 * cgroup can send it and "-" when one of its files is never there
 * (jc_file_info.absent_at_root), FILES the cgroup files it is made from
 * ("memory.max,memory.current"; "-": none, a step's own).
 * The MemoryStat lists are made from whatever keys the configuration
 * names: they are printed with "<key>" for the key, as the catalogue
 * names them, and MemoryStat as their default.
 */
#include "jc_lists.h"
#include "jc_sample.h"

#include <stdbool.h>
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

/* The first kernel of each list made from a row of jc_sample.h's tables. */
#define SINGLE_KERNEL(ID, field, file, controller, flags, type, instance,     \
                      group, kernel)                                           \
  [JC_LIST_##ID] = kernel,
#define KEYED_KERNEL(ID, file, key, flags, type, instance, group, kernel)     \
  [JC_LIST_##ID] = kernel,
static const char *const kernels[JC_LIST_COUNT] = {
    JC_SINGLE_FILES(SINGLE_KERNEL) JC_KEYED_FIGURES(KEYED_KERNEL)};

static void print_when(unsigned when) {
  static const struct {
    unsigned bit;
    const char *word;
  } words[] = {{JC_WHEN_QUOTA, "quota"}, {JC_WHEN_LIMIT, "limit"},
               {JC_WHEN_ROOT, "root"},   {JC_WHEN_USED, "used"},
               {JC_WHEN_MIG, "mig"},     {JC_WHEN_OWNER, "owner"},
               {JC_WHEN_CONTAINER, "container"}, {JC_WHEN_POD, "pod"}};
  const char *sep = "";
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if (when & words[i].bit) {
      printf("%s%s", sep, words[i].word);
      sep = "+";
    }
  if (!*sep)
    printf("always");
}

static void print_files(uint32_t files) {
  const char *sep = "";
  for (int f = 0; f < JC_FILE_COUNT; f++)
    if (files & (1u << f)) {
      printf("%s%s", sep, jc_sample_files[f].name);
      sep = ",";
    }
  if (!*sep)
    printf("-");
}

static bool at_root(uint32_t files) {
  for (int f = 0; f < JC_FILE_COUNT; f++)
    if ((files & (1u << f)) && jc_sample_files[f].absent_at_root)
      return false;
  return true;
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
    printf("\t%s\t", jc_lists[i].in_default ? "default" : "opt-in");
    print_when(jc_lists[i].when);
    printf("\t%s\t%s\t", kernels[i] ? kernels[i] : "-",
           at_root(jc_lists[i].files) ? "root" : "-");
    print_files(jc_lists[i].files);
    printf("\n");
  }
  /* jc_config_add_memstat: a byte key is memory-<key>, an event key
   * (jc_sample_memstat_key_is_event) derive-memory_<key>. */
  printf("list\tmemory-<key>\tmemory\t<key>\tmemory\tMemoryStat\talways\t-\troot\tmemory.stat\n");
  printf("list\tderive-memory_<key>\tderive\tmemory_<key>\tmemory\tMemoryStat\talways\t-\troot\tmemory.stat\n");
  return ferror(stdout) ? 1 : 0;
}

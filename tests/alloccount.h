/* alloccount — the heap a program's own code has in use (alloccount.c). */
#ifndef JC_ALLOCCOUNT_H
#define JC_ALLOCCOUNT_H

typedef struct {
  long long bytes;  /* in use: malloc_usable_size of every block */
  long long blocks; /* in use */
  long long calls;  /* that allocated, since the start */
} jc_alloccount;

jc_alloccount jc_alloccount_now(void);

#endif

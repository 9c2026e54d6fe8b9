/* raw_file.h -- the whole of a binary file in memory, for the bench C
 * programs that read the raw arrays bench/kernel_speed.py writes. */
#ifndef STOCHSVM_BENCH_RAW_FILE_H
#define STOCHSVM_BENCH_RAW_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The contents of @p path (malloc'ed, *bytes long), or NULL. */
static void *read_all(const char *path, size_t *bytes)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc(size > 0 ? (size_t)size : 1);
  if (p && fread(p, 1, (size_t)size, f) != (size_t)size) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *bytes = (size_t)size;
  return p;
}

#endif /* STOCHSVM_BENCH_RAW_FILE_H */

/* raw_files.h -- what the C benchmark drivers (kernel_eval.c, threads_pool.c)
 * share: reading a raw file written by their Python scripts whole, and a
 * clock in seconds. Include after defining _POSIX_C_SOURCE. */
#ifndef STOCHSVM_BENCH_RAW_FILES_H
#define STOCHSVM_BENCH_RAW_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The bytes of @p path in a new buffer (NULL if it cannot be read), their
 * number in *bytes. */
static void *read_all(const char *path, size_t *bytes)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  void *p = NULL;
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    p = malloc(size > 0 ? (size_t)size : 1);
    if (p && fread(p, 1, (size_t)size, f) != (size_t)size) {
      free(p);
      p = NULL;
    }
  }
  fclose(f);
  *bytes = size > 0 ? (size_t)size : 0;
  return p;
}

static double seconds(clockid_t clock)
{
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif

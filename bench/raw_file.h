/* raw_file.h -- the whole of a binary file in memory, for the bench C
 * programs that read the raw arrays bench/kernel_speed.py writes. */
#ifndef STOCHSVM_BENCH_RAW_FILE_H
#define STOCHSVM_BENCH_RAW_FILE_H

#include <stdint.h>
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

/* The CSR training set of bench/kernel_speed.py's files @p paths = {P, J, V,
 * Y} (indptr int64, indices int32, values float64, labels float64), each
 * malloc'ed; n from the labels' size. 0, or 1 after a message on stderr. */
typedef struct RawProblem {
  int64_t *indptr;
  int32_t *indices;
  double *values, *labels;
  int64_t n;
} RawProblem;

static inline int read_raw_problem(char *const paths[4], RawProblem *p)
{
  size_t bp, bj, bv, by;
  p->indptr = read_all(paths[0], &bp);
  p->indices = read_all(paths[1], &bj);
  p->values = read_all(paths[2], &bv);
  p->labels = read_all(paths[3], &by);
  p->n = (int64_t)(by / sizeof(double));
  if (p->indptr && p->indices && p->values && p->labels) return 0;
  fprintf(stderr, "cannot read the data files\n");
  return 1;
}

#endif /* STOCHSVM_BENCH_RAW_FILE_H */

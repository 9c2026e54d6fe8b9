/* kernel_f32_error.c -- how far the float32 kernel rows (SS_KERNEL_ROWS_FLOAT32)
 * are from the float64 rows on real data: rbf rows K(x_q, x_1..x_n) for
 * `queries` rows q spread over the set, both computed from the same float32
 * data (the values of the raw files rounded to float), CSR and made dense.
 * Prints one line per layout:
 *
 *   layout max_abs_error max_rel_error entries
 *
 * the relative error over the entries whose float64 value is at least
 * FLT_MIN. bench/kernel_speed.py (--part evals) compiles and runs it.
 *
 *   kernel_f32_error P J V Y d gamma queries
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/kernel/kernel_internal.h"
#include "raw_file.h"

/* The largest differences of the two precisions' rows over `queries` rows. */
static void compare(const char *layout, const SsKernel *kernel, const SsData *X, int64_t queries)
{
  const int64_t n = X->num_data, d = X->dimension;
  double *norms2 = malloc((size_t)n * sizeof(double)), *zd = calloc((size_t)d, sizeof(double));
  double *k64 = malloc((size_t)n * sizeof(double)), *k32 = malloc((size_t)n * sizeof(double));
  if (!norms2 || !zd || !k64 || !k32) exit(1);
  ss_kernel_squared_norms(X, norms2);
  const unsigned unit = ss_data_unit_values(X) ? SS_ROWS_UNIT_VALUES : 0u;
  const SsThreads serial = {.count = 1};
  double max_abs = 0, max_rel = 0;
  int64_t entries = 0;
  for (int64_t t = 0; t < queries; ++t) {
    const int64_t q = t * (n / queries);
    ss_data_scatter_row(X, q, zd);
    ss_kernel_row_threads(kernel, X, norms2, NULL, n, zd, norms2[q], unit, k64, serial);
    ss_kernel_row_threads(kernel, X, norms2, NULL, n, zd, norms2[q], unit | SS_ROWS_FLOAT32, k32,
                          serial);
    ss_data_clear_row(X, q, zd);
    for (int64_t j = 0; j < n; ++j) {
      const double e = fabs(k32[j] - k64[j]);
      if (e > max_abs) max_abs = e;
      if (k64[j] >= FLT_MIN && e / k64[j] > max_rel) max_rel = e / k64[j];
    }
    entries += n;
  }
  printf("%s %.3e %.3e %lld\n", layout, max_abs, max_rel, (long long)entries);
  free(norms2), free(zd), free(k64), free(k32);
}

int main(int argc, char **argv)
{
  if (argc != 8) {
    fprintf(stderr, "usage: %s P J V Y d gamma queries\n", argv[0]);
    return 2;
  }
  size_t bp, bj, bv, by;
  int64_t *indptr = read_all(argv[1], &bp);
  int32_t *indices = read_all(argv[2], &bj);
  double *values = read_all(argv[3], &bv);
  void *labels = read_all(argv[4], &by);
  if (!indptr || !indices || !values || !labels) return 1;
  const int64_t n = (int64_t)(by / sizeof(double)), d = atoll(argv[5]);
  const int64_t queries = atoll(argv[7]);
  const size_t nnz = bv / sizeof(double);
  float *v32 = malloc(nnz * sizeof(float) + 1), *dense = calloc((size_t)(n * d) + 1, sizeof(float));
  if (!v32 || !dense || queries < 1 || queries > n) return 1;
  for (size_t k = 0; k < nnz; ++k) v32[k] = (float)values[k];
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) dense[i * d + indices[k]] = v32[k];
  }
  SsKernel kernel;
  SsData csr, full;
  if (ss_kernel_init(&kernel, SS_KERNEL_RBF, atof(argv[6]), 0, 1) != SS_OK ||
      ss_data_init_csr(&csr, SS_DTYPE_FLOAT32, v32, indptr, indices, n, d) != SS_OK ||
      ss_data_init_dense(&full, SS_DTYPE_FLOAT32, dense, n, d, d) != SS_OK)
    return 1;
  compare("csr", &kernel, &csr, queries);
  compare("dense", &kernel, &full, queries);
  free(indptr), free(indices), free(values), free(labels), free(v32), free(dense);
  return 0;
}

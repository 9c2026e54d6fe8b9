/* bias_free_steps.c -- the exact solver's bias-free mode moving one example
 * a step against two (kernel_sdca_pair.c, "The bias-free mode"), through a
 * C-only build of the core: bench/bias_free_steps.py compiles it and runs
 * it. The single steps are the tests' switch single_coordinate_steps (an
 * internal field, hence the internal header: the algorithm before stop 49).
 *
 *   bias_free_steps FILE KERNEL GAMMA C SINGLE
 *
 * FILE: int64 n, int64 d, then X (n x d float64, row-major) and y (n
 * float64, +-1); KERNEL: 0 linear, 1 rbf, 2 polynomial (degree 3, coef0 0);
 * SINGLE: 1 for one example a step. Epsilon 1e-3, a cap of 10,000 epochs.
 * Prints: status (2 converged, 3 max_iterations), CPU seconds, epochs (the
 * driver's iteration count at the stop / n), P and (P - D) / D. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../src/core/kernel/kernel_internal.h"
#include "stochsvm/kernel_svm.h"

int main(int argc, char **argv)
{
  if (argc != 6) {
    fprintf(stderr, "usage: %s FILE KERNEL GAMMA C SINGLE\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  int64_t nd[2];
  if (!f || fread(nd, sizeof nd[0], 2, f) != 2 || nd[0] <= 0 || nd[1] <= 0) return 2;
  const int64_t n = nd[0], d = nd[1];
  double *X = malloc((size_t)(n * d) * sizeof *X), *y = malloc((size_t)n * sizeof *y);
  if (!X || !y || fread(X, sizeof *X, (size_t)(n * d), f) != (size_t)(n * d) ||
      fread(y, sizeof *y, (size_t)n, f) != (size_t)n)
    return 2;
  fclose(f);
  const double gamma = atof(argv[3]), C = atof(argv[4]);
  SsData data;
  ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, n, d, d);
  SsKernel kernel;
  ss_kernel_init(&kernel, (SsKernelType)atoi(argv[2]), gamma, 0, 3);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, 1.0 / (C * (double)n));
  if (!svm || ss_kernel_sdca_bias_free_pairs(svm) != SS_OK) return 1;
  svm->single_coordinate_steps = atoi(argv[5]) != 0;
  if (ss_kernel_svm_set_epsilon(svm, 1e-3) != SS_OK ||
      ss_kernel_svm_set_max_num_iterations(svm, 10000 * n) != SS_OK)
    return 1;
  const clock_t start = clock();
  const SsStatus status = ss_kernel_svm_train(svm);
  const double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
  const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
  printf("%d %.4f %.0f %.9g %.3g\n", status == SS_OK ? (int)st->status : -1, seconds,
         (double)ss_kernel_svm_get_iteration_number(svm) / (double)n, st->primal_objective,
         st->duality_gap / st->dual_objective);
  ss_kernel_svm_delete(svm);
  free(X);
  free(y);
  return 0;
}

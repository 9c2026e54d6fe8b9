/* threads_pool.c -- one training run through the public C API, for
 * bench/threads_pool.py, which links it against two builds of the core (the
 * thread pool and OpenMP) and runs them side by side.
 *
 *   threads_pool P J V Y d solver gamma lambda iterations threads out
 *
 * Data: CSR float64 raw files (indptr int64, indices int32, values float64,
 * labels float64), rbf kernel. solver: sbp (nu = 0.1), sdca (kernel SDCA, no
 * bias) for a fixed number of iterations, or exact (kernel SDCA with the
 * unregularized bias: LIBSVM's dual, kernel cache and shrinking) at its
 * default stopping rule, iterations capping it. Prints
 *
 *   wall_seconds cpu_seconds kernel_evaluations
 *
 * and writes the dual variables (n float64) to out.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raw_files.h"
#include "stochsvm/kernel_svm.h"

int main(int argc, char **argv)
{
  if (argc != 12) {
    fprintf(stderr, "usage: %s P J V Y d solver(sbp|sdca|exact) gamma lambda iterations threads out\n",
            argv[0]);
    return 2;
  }
  size_t bp, bj, bv, by;
  int64_t *indptr = read_all(argv[1], &bp);
  int32_t *indices = read_all(argv[2], &bj);
  double *values = read_all(argv[3], &bv);
  double *labels = read_all(argv[4], &by);
  if (!indptr || !indices || !values || !labels) {
    fprintf(stderr, "cannot read the data files\n");
    return 1;
  }
  const int64_t n = (int64_t)(by / sizeof(double)), d = atoll(argv[5]);
  const char *name = argv[6];
  const int exact = strcmp(name, "exact") == 0;
  const SsKernelSolver solver = strcmp(name, "sbp") == 0 ? SS_KSOLVER_SBP : SS_KSOLVER_SDCA;
  const double gamma = atof(argv[7]), lambda = atof(argv[8]);
  const int64_t iterations = atoll(argv[9]);
  const int threads = atoi(argv[10]);

  SsData data;
  SsKernel kernel;
  if (ss_data_init_csr(&data, SS_DTYPE_FLOAT64, values, indptr, indices, n, d) != SS_OK ||
      ss_kernel_init(&kernel, SS_KERNEL_RBF, gamma, 0, 1) != SS_OK) {
    fprintf(stderr, "bad data or kernel\n");
    return 1;
  }
  SsKernelSvm *svm = ss_kernel_svm_new(solver, &kernel, &data, labels, lambda);
  if (!svm) return 1;
  if (solver == SS_KSOLVER_SBP) ss_kernel_svm_set_nu(svm, 0.1);
  ss_kernel_svm_set_max_num_iterations(svm, iterations);
  if (exact) {
    ss_kernel_svm_set_unregularized_bias(svm, 1);
  } else {
    ss_kernel_svm_set_diagnostic_frequency(svm, iterations);
    ss_kernel_svm_set_epsilon(svm, 1e-300); /* run every iteration */
  }
  if (ss_kernel_svm_set_num_threads(svm, threads) != SS_OK) return 1;
  const double wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  SsStatus status = ss_kernel_svm_train(svm);
  const double wall = seconds(CLOCK_MONOTONIC) - wall0;
  const double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  if (status != SS_OK) {
    fprintf(stderr, "train: %s\n", ss_status_string(status));
    return 1;
  }
  const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
  printf("%.6f %.6f %lld\n", wall, cpu, (long long)st->num_kernel_evaluations);
  FILE *out = fopen(argv[11], "wb");
  if (out) {
    fwrite(ss_kernel_svm_get_dual_variables(svm), sizeof(double), (size_t)n, out);
    fclose(out);
  }
  ss_kernel_svm_delete(svm);
  free(indptr), free(indices), free(values), free(labels);
  return 0;
}

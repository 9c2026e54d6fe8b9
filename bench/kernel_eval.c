/* kernel_eval.c -- the cost of one kernel evaluation and the speed-up of
 * threads, through the public API of a C-only build of the core.
 *
 * Trains one binary model (SBP at a fixed nu, or kernel SDCA) on CSR float64
 * data written by bench/kernel_speed.py (raw files: indptr int64, indices
 * int32, values float64, labels float64), rbf kernel, for a fixed number of
 * iterations (solver "exact": kernel SDCA with the unregularized bias, to
 * its default stopping rule, iterations capping it; solver "sbpb": SBP with
 * the unregularized bias), and prints one line:
 *
 *   wall_seconds cpu_seconds kernel_evaluations
 *
 * and writes the dual variables (n float64) to the output file, so that two
 * builds can be compared iterate by iterate. bench/kernel_speed.py compiles
 * it against each build (gcc -fopenmp) and runs the builds alternately;
 * so does bench/threads_pool.py.
 *
 *   kernel_eval P J V Y d solver gamma lambda nu iterations threads out [precision]
 *
 * precision (optional, default "f64"): "f32data" rounds the values to
 * float32 and trains on float32 data with float64 kernel rows; "f32rows"
 * the same data with float32 kernel rows (ss_kernel_svm_set_kernel_precision);
 * a suffix "-dense" trains on the data made dense (n d values).
 *
 * Compiled with -DKERNEL_EVAL_THREADS for a build that has
 * ss_kernel_svm_set_num_threads and float32 kernel rows; without it, for an
 * older build (one thread, "f32rows" refused), such as the baseline.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stochsvm/kernel_svm.h"
#include "raw_file.h"

static double seconds(clockid_t clock)
{
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
  if (argc != 13 && argc != 14) {
    fprintf(stderr, "usage: %s P J V Y d solver(sbp|sbpb|sdca|exact) gamma lambda nu iterations "
                    "threads out [f64|f32data|f32rows]\n", argv[0]);
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
  const int exact = strcmp(argv[6], "exact") == 0, sbp_bias = strcmp(argv[6], "sbpb") == 0;
  const SsKernelSolver solver = exact || strcmp(argv[6], "sdca") == 0 ? SS_KSOLVER_SDCA : SS_KSOLVER_SBP;
  const double gamma = atof(argv[7]), lambda = atof(argv[8]), nu = atof(argv[9]);
  const int64_t iterations = atoll(argv[10]);
  const int threads = atoi(argv[11]);
  const char *precision = argc == 14 ? argv[13] : "f64";
  const int f32 = strncmp(precision, "f32", 3) == 0, dense = strstr(precision, "-dense") != NULL;
  if (dense) {
    /* the rows made dense, in the values' place (CSR indices unused) */
    double *full = calloc((size_t)(n * d) + 1, sizeof(double));
    if (!full) return 1;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) full[i * d + indices[k]] = values[k];
    }
    free(values);
    values = full;
    bv = (size_t)(n * d) * sizeof(double);
  }
  float *values32 = NULL;
  if (f32) {
    const size_t count = bv / sizeof(double);
    values32 = malloc(count ? count * sizeof(float) : 1);
    if (!values32) return 1;
    for (size_t k = 0; k < count; ++k) values32[k] = (float)values[k];
  }
  const void *stored = f32 ? (const void *)values32 : (const void *)values;
  const SsDType dtype = f32 ? SS_DTYPE_FLOAT32 : SS_DTYPE_FLOAT64;

  SsData data;
  SsKernel kernel;
  const SsStatus made = dense ? ss_data_init_dense(&data, dtype, stored, n, d, d)
                              : ss_data_init_csr(&data, dtype, stored, indptr, indices, n, d);
  if (made != SS_OK ||
      ss_kernel_init(&kernel, SS_KERNEL_RBF, gamma, 0, 1) != SS_OK) {
    fprintf(stderr, "bad data or kernel\n");
    return 1;
  }
  SsKernelSvm *svm = ss_kernel_svm_new(solver, &kernel, &data, labels, lambda);
  if (!svm) return 1;
  if (solver == SS_KSOLVER_SBP) ss_kernel_svm_set_nu(svm, nu);
#ifdef KERNEL_EVAL_THREADS
  if (strncmp(precision, "f32rows", 7) == 0 &&
      ss_kernel_svm_set_kernel_precision(svm, SS_KERNEL_ROWS_FLOAT32) != SS_OK) {
    fprintf(stderr, "set_kernel_precision: %s\n", ss_kernel_svm_get_last_error(svm));
    return 1;
  }
#else
  if (strncmp(precision, "f32rows", 7) == 0) {
    fprintf(stderr, "this build has no float32 kernel rows\n");
    return 1;
  }
#endif
  ss_kernel_svm_set_max_num_iterations(svm, iterations);
  if (exact) {
    ss_kernel_svm_set_unregularized_bias(svm, 1);
  } else {
    ss_kernel_svm_set_diagnostic_frequency(svm, iterations);
    ss_kernel_svm_set_epsilon(svm, 1e-300); /* run every iteration */
    if (sbp_bias) ss_kernel_svm_set_unregularized_bias(svm, 1);
  }
#ifdef KERNEL_EVAL_THREADS
  ss_kernel_svm_set_num_threads(svm, threads);
#else
  if (threads != 1) fprintf(stderr, "this build has no set_num_threads: 1 thread\n");
#endif
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
  FILE *out = fopen(argv[12], "wb");
  if (out) {
    fwrite(ss_kernel_svm_get_dual_variables(svm), sizeof(double), (size_t)n, out);
    fclose(out);
  }
  ss_kernel_svm_delete(svm);
  free(indptr), free(indices), free(values), free(labels), free(values32);
  return 0;
}

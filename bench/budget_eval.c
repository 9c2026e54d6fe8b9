/* budget_eval.c -- BSCA and BSGD on one and more threads, through the
 * public API of a C-only build of the core: the wall and CPU time of a run
 * and its result bit for bit, so that two builds and two thread counts can
 * be compared (bench/threads_pool.py --budget compiles it against each
 * build, as kernel_eval.c).
 *
 * Trains one binary model (rbf kernel, merge maintenance) on the raw files
 * of bench/kernel_speed.py (indptr int64, indices int32, values float64,
 * labels float64) for a whole number of epochs, then trains once more for
 * one step (the closing diagnostic, in effect, alone), and prints
 *
 *   train_wall train_cpu diagnostic_wall diagnostic_cpu merges
 *
 * (seconds; the epochs' time is train - diagnostic), and writes the dual
 * variables, the bias, the coefficients and the support vectors (dense)
 * as float64 to the output file.
 *
 *   budget_eval P J V Y d solver(bsca|bsca-bias|bsgd) gamma lambda budget epochs threads out [dense]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stochsvm/kernel_budget.h"
#include "stochsvm/kernel_svm.h"
#include "raw_file.h"

static double seconds(clockid_t clock)
{
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Wall and process CPU seconds of one train call. */
static SsStatus timed_train(SsKernelSvm *svm, double *wall, double *cpu)
{
  const double wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  const SsStatus status = ss_kernel_svm_train(svm);
  *wall = seconds(CLOCK_MONOTONIC) - wall0;
  *cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  return status;
}

int main(int argc, char **argv)
{
  if (argc != 13 && argc != 14) {
    fprintf(stderr, "usage: %s P J V Y d solver(bsca|bsca-bias|bsgd) gamma lambda budget epochs "
                    "threads out [dense]\n", argv[0]);
    return 2;
  }
  RawProblem raw;
  if (read_raw_problem(argv + 1, &raw) != 0) return 1;
  int64_t *indptr = raw.indptr;
  int32_t *indices = raw.indices;
  double *values = raw.values, *labels = raw.labels;
  const int64_t n = raw.n, d = atoll(argv[5]);
  const SsKernelSolver solver = strcmp(argv[6], "bsgd") == 0 ? SS_KSOLVER_BSGD : SS_KSOLVER_BSCA;
  const int bias = strcmp(argv[6], "bsca-bias") == 0;
  const double gamma = atof(argv[7]), lambda = atof(argv[8]);
  const int64_t budget = atoll(argv[9]), epochs = atoll(argv[10]);
  const int threads = atoi(argv[11]);
  const int dense = argc == 14 && strcmp(argv[13], "dense") == 0;
  double *full = calloc((size_t)(n * d) + 1, sizeof(double));
  if (!full) return 1;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) full[i * d + indices[k]] = values[k];
  SsData data;
  SsKernel kernel;
  const SsStatus made = dense ? ss_data_init_dense(&data, SS_DTYPE_FLOAT64, full, n, d, d)
                              : ss_data_init_csr(&data, SS_DTYPE_FLOAT64, values, indptr, indices, n, d);
  if (made != SS_OK || ss_kernel_init(&kernel, SS_KERNEL_RBF, gamma, 0, 1) != SS_OK) {
    fprintf(stderr, "bad data or kernel\n");
    return 1;
  }
  SsKernelSvm *svm = ss_kernel_svm_new(solver, &kernel, &data, labels, lambda);
  if (!svm || ss_kernel_svm_set_budget(svm, budget) != SS_OK ||
      ss_kernel_svm_set_unregularized_bias(svm, bias) != SS_OK ||
      ss_kernel_svm_set_max_num_iterations(svm, epochs * n) != SS_OK ||
      ss_kernel_svm_set_diagnostic_frequency(svm, epochs * n) != SS_OK ||
      ss_kernel_svm_set_epsilon(svm, 1e-300) != SS_OK || /* every epoch runs */
      ss_kernel_svm_set_num_threads(svm, threads) != SS_OK) {
    fprintf(stderr, "setting up: %s\n", svm ? ss_kernel_svm_get_last_error(svm) : "no memory");
    return 1;
  }
  double wall, cpu, diag_wall, diag_cpu;
  SsStatus status = timed_train(svm, &wall, &cpu);
  /* one step more and the closing diagnostic: the diagnostic's time */
  if (status == SS_OK) status = ss_kernel_svm_set_max_num_iterations(svm, 1);
  if (status == SS_OK) status = timed_train(svm, &diag_wall, &diag_cpu);
  if (status != SS_OK) {
    fprintf(stderr, "train: %s\n", ss_status_string(status));
    return 1;
  }
  SsBudgetStatistics stats;
  ss_kernel_svm_get_budget_statistics(svm, &stats);
  printf("%.6f %.6f %.6f %.6f %lld\n", wall, cpu, diag_wall, diag_cpu, (long long)stats.num_merges);
  FILE *out = fopen(argv[12], "wb");
  if (!out) return 1;
  const int64_t m = ss_kernel_svm_get_num_support_vectors(svm);
  const double b = ss_kernel_svm_get_bias(svm);
  const SsData *sv = ss_kernel_svm_get_support_vectors(svm);
  fwrite(ss_kernel_svm_get_dual_variables(svm), sizeof(double), (size_t)n, out);
  fwrite(&b, sizeof(double), 1, out);
  fwrite(ss_kernel_svm_get_coefficients(svm), sizeof(double), (size_t)m, out);
  if (m > 0 && sv->layout == SS_LAYOUT_DENSE && sv->dtype == SS_DTYPE_FLOAT64)
    for (int64_t j = 0; j < m; ++j)
      fwrite((const double *)sv->values + j * sv->row_stride, sizeof(double), (size_t)d, out);
  fclose(out);
  ss_kernel_svm_delete(svm);
  free(full), free(indptr), free(indices), free(values), free(labels);
  return 0;
}

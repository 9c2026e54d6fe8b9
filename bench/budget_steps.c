/* budget_steps.c -- the wall time of each BSCA / BSGD step on one and two
 * threads, robust to a busy machine.
 *
 * A run trains a fresh budget trainer (src/core/budget/budget_train.h: the
 * steps alone, no diagnostics) for one epoch in a fixed order and times
 * every step (CLOCK_MONOTONIC). The runs alternate between one thread and
 * two, R times each. Threads never change a step's arithmetic, so step k
 * does the same work in every run, and the least of its R times is its
 * time undisturbed by other programs (a step preempted in one run is
 * rarely preempted in all). The program prints, per thread count, the sum
 * over the steps of these least times (the undisturbed epoch), the median
 * whole-run wall time, and the speed-up of the sums; and checks that every
 * run ended with the same model, bit for bit.
 *
 * The two-thread pool offers every job to the worker (no solo periods:
 * ss_thread_pool_set_adaptive false), so the figure is what two cores give
 * when both run; the library's adaptive pool runs the jobs alone where the
 * worker does not pay. min_terms overrides the split threshold (0: the
 * library's SS_BUDGET_PARALLEL_MIN_TERMS), for finding the cross-over B.
 *
 *   budget_steps P J V Y d solver(bsca|bsca-bias|bsgd) gamma C budget repeats min_terms
 *
 * (the raw files of bench/kernel_speed.py). Build against a build folder's
 * static library, with the source tree's private headers:
 *   gcc -O2 -pthread -Iinclude bench/budget_steps.c BUILD/libstochsvm.a -lm
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/budget/budget_train.h"
#include "raw_file.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One epoch of @p solver on @p threads threads: each step's wall time into
 * step[k], the run's into *total; the model's coefficients summed into
 * *check (the same bits in every run). 0, or 1 when the trainer failed. */
static int run(const SsData *data, const double *labels, const double *norms2, SsBudgetKernel kernel,
               double C, int64_t B, const char *solver, const int64_t *perm, int threads,
               int64_t min_terms, double *step, double *total, double *check)
{
  SsBudgetTrainer tr;
  if (ss_budget_trainer_init(&tr, data, labels, norms2, kernel, C, SS_BUDGET_MERGE, B) != SS_OK)
    return 1;
  const int bias = strcmp(solver, "bsca-bias") == 0;
  if (bias && ss_budget_trainer_enable_bias(&tr) != SS_OK) return 1;
  void (*steps)(SsBudgetTrainer *, const int64_t *, int64_t, int64_t) =
      bias ? ss_bsca_pair_steps : (strcmp(solver, "bsgd") == 0 ? ss_bsgd_steps : ss_bsca_steps);
  SsThreads pool = {0};
  if (ss_threads_set_count(&pool, threads) != SS_OK) return 1;
  pool.min_length = min_terms;
  ss_thread_pool_set_adaptive(pool.pool, false);
  tr.model.threads = pool;
  const int64_t n = data->num_data;
  const double start = now();
  for (int64_t k = 0; k < n; ++k) {
    const double t0 = now();
    steps(&tr, perm, k, k + 1);
    step[k] = now() - t0;
  }
  *total = now() - start;
  double sum = 0;
  for (int64_t j = 0; j < tr.model.size; ++j) sum += tr.model.beta[j];
  *check = sum;
  tr.model.threads = (SsThreads){0};
  ss_threads_free(&pool);
  ss_budget_trainer_free(&tr);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 12) {
    fprintf(stderr, "usage: %s P J V Y d solver(bsca|bsca-bias|bsgd) gamma C budget repeats "
                    "min_terms\n", argv[0]);
    return 2;
  }
  RawProblem raw;
  if (read_raw_problem(argv + 1, &raw) != 0) return 1;
  const int64_t n = raw.n, d = atoll(argv[5]), B = atoll(argv[9]), min_terms = atoll(argv[11]);
  const char *solver = argv[6];
  const double gamma = atof(argv[7]), C = atof(argv[8]);
  const int repeats = atoi(argv[10]);
  SsData data;
  if (ss_data_init_csr(&data, SS_DTYPE_FLOAT64, raw.values, raw.indptr, raw.indices, n, d) != SS_OK)
    return 1;
  const SsBudgetKernel kernel = {SS_BUDGET_KERNEL_GAUSSIAN, gamma, 0, 0};
  double *norms2 = malloc((size_t)n * sizeof(double));
  int64_t *perm = malloc((size_t)n * sizeof(int64_t));
  double *step = malloc((size_t)n * sizeof(double)), *least[2], *totals[2];
  if (!norms2 || !perm || !step) return 1;
  ss_budget_row_norms2(&data, norms2);
  /* a fixed order: Fisher-Yates with an LCG */
  uint64_t state = 12345;
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const int64_t j = (int64_t)((state >> 33) % (uint64_t)(i + 1)), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (int c = 0; c < 2; ++c) {
    least[c] = malloc((size_t)n * sizeof(double));
    totals[c] = malloc((size_t)repeats * sizeof(double));
    if (!least[c] || !totals[c]) return 1;
    for (int64_t k = 0; k < n; ++k) least[c][k] = 1e300;
  }
  double first_check = 0;
  for (int r = 0; r < repeats; ++r)
    for (int c = 0; c < 2; ++c) {
      double check;
      if (run(&data, raw.labels, norms2, kernel, C, B, solver, perm, c + 1, min_terms, step,
              &totals[c][r], &check) != 0) {
        fprintf(stderr, "the trainer failed\n");
        return 1;
      }
      if (r == 0 && c == 0) first_check = check;
      if (memcmp(&check, &first_check, sizeof check) != 0) {
        fprintf(stderr, "the runs' models differ\n");
        return 1;
      }
      for (int64_t k = 0; k < n; ++k)
        if (step[k] < least[c][k]) least[c][k] = step[k];
    }
  double sum[2] = {0, 0};
  for (int c = 0; c < 2; ++c) {
    for (int64_t k = 0; k < n; ++k) sum[c] += least[c][k];
    qsort(totals[c], (size_t)repeats, sizeof(double), compare);
  }
  /* threads1: undisturbed epoch (sum of least step times), us per step,
   * median run; the same for 2; the speed-up of the undisturbed epochs */
  printf("%.4f %.3f %.4f %.4f %.3f %.4f %.3f\n", sum[0], 1e6 * sum[0] / (double)n,
         totals[0][repeats / 2], sum[1], 1e6 * sum[1] / (double)n, totals[1][repeats / 2],
         sum[0] / sum[1]);
  for (int c = 0; c < 2; ++c) free(least[c]), free(totals[c]);
  free(norms2), free(perm), free(step);
  free(raw.indptr), free(raw.indices), free(raw.values), free(raw.labels);
  return 0;
}

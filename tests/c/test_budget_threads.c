/* test_budget_threads.c -- BSCA (with and without the bias) and BSGD on the
 * kernel object's threads: 1, 2 and 3 threads give bit-identical dual
 * variables, models, biases, objectives and maintenance counts, on dense
 * and CSR data, with merges happening: budgets of 500 (the default) and
 * 1500 of 3000 points at the library's split threshold, and a budget of 150
 * with the threshold lowered so that every loop over the terms is split;
 * then a merge whose choice among tied partners depends on the order of
 * the terms, and the threshold itself. The pools run every
 * job of two chunks or more on the workers (no solo periods). */
#include <stdlib.h>

#include "../../src/core/budget/budget.h"
#include "../../src/core/kernel/kernel_internal.h"
#include "minitest.h"
#include "stochsvm/kernel_budget.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

enum { BT_N = 3000, BT_D = 6 };

/* Blobs with every third entry zero, as dense rows and as CSR. */
typedef struct ThreadsProblem {
  double X[BT_N * BT_D], y[BT_N], values[BT_N * BT_D];
  int64_t indptr[BT_N + 1];
  int32_t indices[BT_N * BT_D];
} ThreadsProblem;

static void make_problem(ThreadsProblem *p)
{
  tu_make_blobs(p->X, p->y, BT_N, BT_D, 0.4, 21);
  int64_t nnz = 0;
  p->indptr[0] = 0;
  for (int64_t i = 0; i < BT_N; ++i) {
    for (int64_t j = 0; j < BT_D; ++j) {
      if ((i + j) % 3 == 0) p->X[i * BT_D + j] = 0;
      if (p->X[i * BT_D + j] != 0) {
        p->indices[nnz] = (int32_t)j;
        p->values[nnz++] = p->X[i * BT_D + j];
      }
    }
    p->indptr[i + 1] = nnz;
  }
}

/* One run: one epoch with a diagnostic halfway (the diagnostic passes run on
 * the threads too) and the closing one. NULL if the object was refused. */
static SsKernelSvm *train(const SsData *data, const double *y, SsKernelSolver solver, int bias,
                          int64_t budget, int threads, int64_t min_length)
{
  SsKernel kernel;
  SsKernelSvm *svm = ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK
                         ? ss_kernel_svm_new(solver, &kernel, data, y, 1e-4)
                         : NULL;
  if (!svm) return NULL;
  CHECK_EQ_INT(ss_kernel_svm_set_budget(svm, budget), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, bias), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, BT_N), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm, BT_N / 2), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm, 1e-300), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_seed(svm, 3), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, threads), SS_OK);
  svm->threads.min_length = min_length;
  ss_thread_pool_set_adaptive(svm->threads.pool, false);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  return svm;
}

/* The model of @p a and @p b, bit for bit: duals, objectives, support
 * vectors (dense rows), coefficients, bias, maintenance counts. */
static void check_same_model(const SsKernelSvm *a, const SsKernelSvm *b)
{
  CHECK(tu_same_kernel_run(a, b, BT_N));
  const SsKernelSvmStatistics *sa = ss_kernel_svm_get_statistics(a);
  const SsKernelSvmStatistics *sb = ss_kernel_svm_get_statistics(b);
  CHECK(tu_same_bits(&sa->primal_objective, &sb->primal_objective, 1));
  CHECK(tu_same_bits(&sa->dual_objective, &sb->dual_objective, 1));
  const int64_t m = ss_kernel_svm_get_num_support_vectors(a);
  CHECK_EQ_INT(ss_kernel_svm_get_num_support_vectors(b), m);
  CHECK(tu_same_bits(ss_kernel_svm_get_coefficients(a), ss_kernel_svm_get_coefficients(b), m));
  const double ba = ss_kernel_svm_get_bias(a), bb = ss_kernel_svm_get_bias(b);
  CHECK(tu_same_bits(&ba, &bb, 1));
  const SsData *va = ss_kernel_svm_get_support_vectors(a), *vb = ss_kernel_svm_get_support_vectors(b);
  REQUIRE(va->layout == SS_LAYOUT_DENSE && vb->layout == SS_LAYOUT_DENSE);
  int same_points = 1;
  for (int64_t j = 0; j < m; ++j)
    same_points &= tu_same_bits((const double *)va->values + j * va->row_stride,
                                (const double *)vb->values + j * vb->row_stride, BT_D);
  CHECK(same_points);
  SsBudgetStatistics ca, cb;
  CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(a, &ca), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(b, &cb), SS_OK);
  CHECK_EQ_INT(ca.num_merges, cb.num_merges);
  CHECK_EQ_INT(ca.num_removals, cb.num_removals);
  CHECK(tu_same_bits(&ca.weight_degradation, &cb.weight_degradation, 1));
}

/* @p solver on 1, 2 and 3 threads, dense and CSR: the same model, and the
 * budget full with merges done. */
static void check_threads(const ThreadsProblem *p, SsKernelSolver solver, int bias, int64_t budget,
                          int64_t min_length)
{
  for (int csr = 0; csr < 2; ++csr) {
    SsData data;
    if (csr) {
      REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, p->values, p->indptr, p->indices, BT_N, BT_D) ==
              SS_OK);
    } else {
      REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, p->X, BT_N, BT_D, BT_D) == SS_OK);
    }
    SsKernelSvm *one = train(&data, p->y, solver, bias, budget, 1, min_length);
    REQUIRE(one);
    SsBudgetStatistics stats;
    CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(one, &stats), SS_OK);
    CHECK(stats.num_merges > budget / 10);
    CHECK_EQ_INT(stats.num_points, budget);
    for (int threads = 2; threads <= 3; ++threads) {
      SsKernelSvm *many = train(&data, p->y, solver, bias, budget, threads, min_length);
      REQUIRE(many);
      CHECK_EQ_INT(ss_kernel_svm_get_num_threads(many), threads);
      check_same_model(one, many);
      ss_kernel_svm_delete(many);
    }
    ss_kernel_svm_delete(one);
  }
}

void test_budget_threads_bitwise(void)
{
  ThreadsProblem *p = malloc(sizeof(ThreadsProblem));
  REQUIRE(p);
  make_problem(p);
  /* every loop over the terms split (min_length 16), every solver */
  check_threads(p, SS_KSOLVER_BSCA, 0, 150, 16);
  check_threads(p, SS_KSOLVER_BSCA, 1, 150, 16);
  check_threads(p, SS_KSOLVER_BSGD, 0, 150, 16);
  /* the default budget and a large one at the library's threshold (0:
   * SS_BUDGET_PARALLEL_MIN_TERMS; both split) */
  check_threads(p, SS_KSOLVER_BSCA, 1, 500, 0);
  check_threads(p, SS_KSOLVER_BSCA, 0, 1500, 0);
  free(p);
}

/* A merge on 1 and 2 threads, bit for bit, where the choice depends on the
 * order of the terms: 600 terms (5 blocks), the smallest term m, and four
 * copies of its nearest partner (the same point and coefficient) in
 * blocks 0, 1, 2 and 4. The four tie in the screen and in the exact
 * search, so they are searched as four chunks on the threads, and the
 * merge must take the first of them in the order of the terms (slot 10),
 * as the serial merge does. */
void test_budget_merge_threads_ties(void)
{
  enum { N = 600, D = 4 };
  static const int64_t copies[4] = {10, 200, 330, 590};
  const int64_t m = 450;
  SsBudgetKernel kern = {SS_BUDGET_KERNEL_GAUSSIAN, 2.0, 0, 0};
  SsBudget bud[2];
  SsBudgetCounts counts[2] = {{0}, {0}};
  for (int k = 0; k < 2; ++k) {
    REQUIRE(ss_budget_init(&bud[k], N - 1, D, N) == SS_OK);
    TuRng rng;
    tu_rng_init(&rng, 17);
    for (int64_t t = 0; t < N; ++t) {
      double z[D], beta = 0.5 + tu_rng_uniform(&rng);
      for (int i = 0; i < D; ++i) z[i] = 6 * tu_rng_uniform(&rng) - 3;
      if (t == m) {
        for (int i = 0; i < D; ++i) z[i] = 0.25;
        beta = 0.01;
      }
      for (int c = 0; c < 4; ++c)
        if (t == copies[c]) {
          for (int i = 0; i < D; ++i) z[i] = 0.25 + 0.05 * i;
          beta = 0.75;
        }
      ss_budget_append_dense(&bud[k], z, beta, t);
    }
  }
  CHECK_EQ_INT(ss_budget_smallest(&bud[0]), m);
  REQUIRE(ss_threads_set_count(&bud[1].threads, 2) == SS_OK);
  bud[1].threads.min_length = 16;
  ss_thread_pool_set_adaptive(bud[1].threads.pool, false);
  for (int k = 0; k < 2; ++k) ss_budget_maintain(&bud[k], SS_BUDGET_MERGE, &kern, &counts[k]);
  for (int k = 0; k < 2; ++k) {
    CHECK_EQ_INT(bud[k].size, N - 1);
    CHECK_EQ_INT(counts[k].num_merges, 1);
    CHECK_EQ_INT(bud[k].origin[copies[0]], -1); /* the first copy took the merge */
    for (int c = 1; c < 4; ++c) CHECK_EQ_INT(bud[k].slot_of[copies[c]], copies[c]);
  }
  CHECK(tu_same_bits(bud[0].points, bud[1].points, (N - 1) * D));
  CHECK(tu_same_bits(bud[0].beta, bud[1].beta, N - 1));
  CHECK(tu_same_bits(bud[0].norms2, bud[1].norms2, N - 1));
  CHECK(tu_same_bits(&counts[0].weight_degradation, &counts[1].weight_degradation, 1));
  ss_threads_free(&bud[1].threads);
  for (int k = 0; k < 2; ++k) ss_budget_free(&bud[k]);
}

/* The library's threshold: B = 500 (the default budget) splits a step's
 * loops over the terms, one block does not; a lowered min_length (the
 * tests') takes precedence; one thread never splits. */
void test_budget_threads_threshold(void)
{
  SsThreadPool *sentinel = (SsThreadPool *)&sentinel; /* compared, never used */
  const SsThreads two = {.count = 2, .min_length = 0, .pool = sentinel};
  CHECK(ss_budget_pool(two, 500) == sentinel);
  CHECK(ss_budget_pool(two, SS_BUDGET_PARALLEL_MIN_TERMS) == sentinel);
  CHECK(ss_budget_pool(two, SS_BUDGET_BLOCK) == NULL);
  CHECK(ss_budget_pool(two, SS_BUDGET_PARALLEL_MIN_TERMS - 1) == NULL);
  const SsThreads lowered = {.count = 2, .min_length = 16, .pool = sentinel};
  CHECK(ss_budget_pool(lowered, 16) == sentinel);
  const SsThreads one = {.count = 1, .min_length = 0, .pool = sentinel};
  CHECK(ss_budget_pool(one, 5000) == NULL);
}

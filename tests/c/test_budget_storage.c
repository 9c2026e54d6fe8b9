/* test_budget_storage.c -- the budgeted expansion allocates min(B, n) + 1
 * rows, not B + 1: a budget far above n (10^9, INT64_MAX) trains BSCA and
 * BSGD on a small problem exactly as B = n does, while an expansion whose
 * rows cannot be represented in memory is refused with SS_ERR_ALLOC. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/budget/budget.h"
#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

void test_budget_capacity_is_min_of_budget_and_n(void)
{
  SsBudget b = {0}; /* ss_budget_init leaves it untouched when it fails */
  CHECK_EQ_INT(ss_budget_init(&b, 1000000000, 200, 10), SS_OK);
  CHECK_EQ_INT(b.capacity, 11);
  ss_budget_free(&b);
  CHECK_EQ_INT(ss_budget_init(&b, INT64_MAX, 200, 10), SS_OK);
  CHECK_EQ_INT(b.capacity, 11);
  ss_budget_free(&b);
  CHECK_EQ_INT(ss_budget_init(&b, 7, 200, 10), SS_OK);
  CHECK_EQ_INT(b.capacity, 8);
  ss_budget_free(&b);
  /* untracked terms (n = 0): B + 1 rows, refused when that cannot be allocated */
  CHECK_EQ_INT(ss_budget_init(&b, 7, 3, 0), SS_OK);
  CHECK_EQ_INT(b.capacity, 8);
  ss_budget_free(&b);
  CHECK_EQ_INT(ss_budget_init(&b, INT64_MAX, 3, 0), SS_ERR_ALLOC);
  CHECK_EQ_INT(ss_budget_init(&b, (int64_t)1 << 40, (int64_t)1 << 30, 0), SS_ERR_ALLOC);
}

#define SN 30
#define SD 2048 /* (10^9 + 1) rows of SD doubles would be 16 TB */

void test_budget_huge_budget_small_problem(void)
{
  double *X = malloc(sizeof(double) * SN * SD), y[SN];
  REQUIRE(X);
  tu_make_blobs(X, y, SN, SD, 0.3, 5);
  SsData data;
  ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, SN, SD, SD);
  SsKernel kernel;
  ss_kernel_init(&kernel, SS_KERNEL_RBF, 1.0 / SD, 0, 1);
  const SsKernelSolver solvers[2] = {SS_KSOLVER_BSCA, SS_KSOLVER_BSGD};
  const int64_t budgets[2] = {1000000000, INT64_MAX};
  for (int s = 0; s < 2; ++s) {
    SsKernelSvm *ref = ss_kernel_svm_new(solvers[s], &kernel, &data, y, 0.05);
    REQUIRE(ref);
    ss_kernel_svm_set_budget(ref, SN);
    ss_kernel_svm_set_max_num_iterations(ref, 5 * SN);
    CHECK_EQ_INT(ss_kernel_svm_train(ref), SS_OK);
    for (int k = 0; k < 2; ++k) {
      SsKernelSvm *svm = ss_kernel_svm_new(solvers[s], &kernel, &data, y, 0.05);
      REQUIRE(svm);
      CHECK_EQ_INT(ss_kernel_svm_set_budget(svm, budgets[k]), SS_OK);
      ss_kernel_svm_set_max_num_iterations(svm, 5 * SN);
      CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
      SsBudgetStatistics bs;
      ss_kernel_svm_get_budget_statistics(svm, &bs);
      CHECK_EQ_INT(bs.num_maintenance, 0);
      CHECK_EQ_INT(bs.budget, budgets[k]);
      CHECK(bs.num_points > 0 && bs.num_points <= SN);
      /* the same run as B = n, bit for bit */
      CHECK(memcmp(ss_kernel_svm_get_dual_variables(svm), ss_kernel_svm_get_dual_variables(ref),
                   SN * sizeof(double)) == 0);
      ss_kernel_svm_delete(svm);
    }
    ss_kernel_svm_delete(ref);
  }
  free(X);
}

/* test_kernel_budget.c -- BSCA and BSGD as solvers of the kernel SVM object:
 * with B >= n BSCA reaches the dual optimum of kernel SDCA; the budget is
 * never exceeded at any diagnostic; training N epochs equals N/2 + N/2;
 * setters reject bad values; the model's decision function agrees with the
 * statistics; CSR float32 data gives the model of dense float64 data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

#define BN 60
#define BD 3

typedef struct BudgetFixture {
  double X[BN * BD], y[BN];
  SsData data;
  SsKernel kernel;
} BudgetFixture;

static void budget_fixture(BudgetFixture *f, double gamma)
{
  tu_make_blobs(f->X, f->y, BN, BD, 0.3, 17);
  ss_data_init_dense(&f->data, SS_DTYPE_FLOAT64, f->X, BN, BD, BD);
  ss_kernel_init(&f->kernel, SS_KERNEL_RBF, gamma, 0, 1);
}

void test_bsca_object_matches_kernel_sdca(void)
{
  BudgetFixture f;
  budget_fixture(&f, 0.7);
  const double lambda = 0.01;
  SsKernelSvm *sdca = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, lambda);
  SsKernelSvm *bsca = ss_kernel_svm_new(SS_KSOLVER_BSCA, &f.kernel, &f.data, f.y, lambda);
  REQUIRE(sdca && bsca);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(bsca, 0), SS_OK); /* the paper's form */
  ss_kernel_svm_set_epsilon(sdca, 1e-12);
  ss_kernel_svm_set_max_num_iterations(sdca, 5000 * BN);
  CHECK_EQ_INT(ss_kernel_svm_train(sdca), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_budget(bsca, BN), SS_OK);
  ss_kernel_svm_set_max_num_iterations(bsca, 3000 * BN);
  ss_kernel_svm_set_diagnostic_frequency(bsca, 3000 * BN);
  CHECK_EQ_INT(ss_kernel_svm_train(bsca), SS_OK);
  const SsKernelSvmStatistics *a = ss_kernel_svm_get_statistics(sdca);
  const SsKernelSvmStatistics *b = ss_kernel_svm_get_statistics(bsca);
  CHECK_REL(b->dual_objective, a->dual_objective, 1e-9);
  CHECK_REL(b->primal_objective, a->primal_objective, 1e-6);
  SsBudgetStatistics bs;
  CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(bsca, &bs), SS_OK);
  CHECK_EQ_INT(bs.num_maintenance, 0);
  CHECK_EQ_INT(bs.budget, BN);
  const double *a1 = ss_kernel_svm_get_dual_variables(sdca);
  const double *a2 = ss_kernel_svm_get_dual_variables(bsca);
  for (int i = 0; i < BN; ++i) CHECK_CLOSE(a1[i], a2[i], 1e-5 / (lambda * BN));
  ss_kernel_svm_delete(sdca);
  ss_kernel_svm_delete(bsca);
}

typedef struct BudgetWatch {
  int64_t budget;
  int calls, over;
} BudgetWatch;

static int watch_budget(const SsKernelSvm *svm, void *user)
{
  BudgetWatch *w = user;
  SsBudgetStatistics bs;
  ss_kernel_svm_get_budget_statistics(svm, &bs);
  w->calls++;
  if (ss_kernel_svm_get_num_support_vectors(svm) > w->budget || bs.num_points > w->budget) w->over++;
  return 0;
}

void test_budget_object_never_exceeded(void)
{
  BudgetFixture f;
  budget_fixture(&f, 2.0);
  const SsKernelSolver solvers[2] = {SS_KSOLVER_BSCA, SS_KSOLVER_BSGD};
  const SsBudgetMaintenance ms[3] = {SS_BUDGET_MAINTENANCE_MERGE, SS_BUDGET_MAINTENANCE_REMOVE,
                                     SS_BUDGET_MAINTENANCE_PROJECT};
  for (int s = 0; s < 2; ++s)
    for (int k = 0; k < 3; ++k) {
      SsKernelSvm *svm = ss_kernel_svm_new(solvers[s], &f.kernel, &f.data, f.y, 1e-3);
      REQUIRE(svm);
      BudgetWatch w = {5, 0, 0};
      CHECK_EQ_INT(ss_kernel_svm_set_budget(svm, 5), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_set_budget_maintenance(svm, ms[k]), SS_OK);
      ss_kernel_svm_set_max_num_iterations(svm, 4 * BN);
      ss_kernel_svm_set_epsilon(svm, 0); /* the whole run: no gap or budget rule */
      ss_kernel_svm_set_diagnostic_frequency(svm, 1);
      ss_kernel_svm_set_diagnostic_function(svm, watch_budget, &w);
      CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
      CHECK(w.calls >= 4 * BN);
      CHECK_EQ_INT(w.over, 0);
      SsBudgetStatistics bs;
      ss_kernel_svm_get_budget_statistics(svm, &bs);
      CHECK(bs.num_maintenance > 0);
      CHECK_EQ_INT(bs.num_maintenance, bs.num_merges + bs.num_removals + bs.num_projections);
      CHECK(bs.weight_degradation > 0 && isfinite(bs.weight_degradation));
      CHECK(bs.solver_seconds >= 0);
      ss_kernel_svm_delete(svm);
    }
}

void test_budget_object_warm_start_and_model(void)
{
  BudgetFixture f;
  budget_fixture(&f, 1.0);
  for (int s = 0; s < 2; ++s) {
    SsKernelSolver solver = s ? SS_KSOLVER_BSGD : SS_KSOLVER_BSCA;
    SsKernelSvm *a = ss_kernel_svm_new(solver, &f.kernel, &f.data, f.y, 1e-3);
    SsKernelSvm *b = ss_kernel_svm_new(solver, &f.kernel, &f.data, f.y, 1e-3);
    REQUIRE(a && b);
    ss_kernel_svm_set_unregularized_bias(a, 0); /* BSCA's paper form: one kernel row a step */
    ss_kernel_svm_set_unregularized_bias(b, 0);
    ss_kernel_svm_set_budget(a, 8);
    ss_kernel_svm_set_budget(b, 8);
    ss_kernel_svm_set_seed(a, 4);
    ss_kernel_svm_set_seed(b, 4);
    ss_kernel_svm_set_max_num_iterations(a, 6 * BN);
    ss_kernel_svm_set_max_num_iterations(b, 3 * BN);
    ss_kernel_svm_set_epsilon(a, 0); /* both to the cap (B = 8 would stop on the budget rule) */
    ss_kernel_svm_set_epsilon(b, 0);
    CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(b), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(b), SS_OK);
    const int64_t m = ss_kernel_svm_get_num_support_vectors(a);
    CHECK_EQ_INT(m, ss_kernel_svm_get_num_support_vectors(b));
    CHECK(m > 0 && m <= 8);
    CHECK(memcmp(ss_kernel_svm_get_coefficients(a), ss_kernel_svm_get_coefficients(b),
                 (size_t)m * sizeof(double)) == 0);
    CHECK_EQ_INT(ss_kernel_svm_get_iteration_number(b), 6 * BN);
    /* the decision function of the copied model gives the statistics' loss */
    double scores[BN], loss = 0;
    CHECK_EQ_INT(ss_kernel_svm_decision_function(a, &f.data, scores), SS_OK);
    for (int i = 0; i < BN; ++i) loss += fmax(0, 1 - f.y[i] * scores[i]) / BN;
    CHECK_CLOSE(loss, ss_kernel_svm_get_statistics(a)->loss, 1e-10);
    CHECK(ss_kernel_svm_get_statistics(a)->num_kernel_evaluations <= 8 * 6 * BN);
    ss_kernel_svm_delete(a);
    ss_kernel_svm_delete(b);
  }
}

void test_budget_object_storage_agrees(void)
{
  /* CSR float32 rows train the same budgeted model as dense float64 rows
   * (the values are exact in float32; sums differ in order only). */
  BudgetFixture f;
  budget_fixture(&f, 1.0);
  float V[BN * BD];
  int64_t P[BN + 1];
  int32_t J[BN * BD];
  int64_t nnz = 0;
  P[0] = 0;
  for (int i = 0; i < BN; ++i) {
    for (int k = 0; k < BD; ++k) {
      if (f.X[i * BD + k] != 0) {
        V[nnz] = (float)f.X[i * BD + k];
        J[nnz++] = k;
      }
    }
    P[i + 1] = nnz;
  }
  SsData csr;
  REQUIRE(ss_data_init_csr(&csr, SS_DTYPE_FLOAT32, V, P, J, BN, BD) == SS_OK);
  SsKernelSvm *a = ss_kernel_svm_new(SS_KSOLVER_BSCA, &f.kernel, &f.data, f.y, 1e-3);
  SsKernelSvm *b = ss_kernel_svm_new(SS_KSOLVER_BSCA, &f.kernel, &csr, f.y, 1e-3);
  REQUIRE(a && b);
  /* the paper's form: BSCA with a bias picks its pair by the largest violation,
   * which float32 rounding may change */
  ss_kernel_svm_set_unregularized_bias(a, 0);
  ss_kernel_svm_set_unregularized_bias(b, 0);
  ss_kernel_svm_set_budget(a, 10);
  ss_kernel_svm_set_budget(b, 10);
  ss_kernel_svm_set_max_num_iterations(a, 3 * BN);
  ss_kernel_svm_set_max_num_iterations(b, 3 * BN);
  CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(b), SS_OK);
  const int64_t m = ss_kernel_svm_get_num_support_vectors(a);
  REQUIRE(m == ss_kernel_svm_get_num_support_vectors(b));
  for (int64_t j = 0; j < m; ++j)
    CHECK_REL(ss_kernel_svm_get_coefficients(a)[j], ss_kernel_svm_get_coefficients(b)[j], 1e-6);
  ss_kernel_svm_delete(a);
  ss_kernel_svm_delete(b);
}

void test_budget_object_setters(void)
{
  BudgetFixture f;
  budget_fixture(&f, 1.0);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_BSCA, &f.kernel, &f.data, f.y, 1e-2);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_kernel_svm_get_budget(svm), 500);
  CHECK_EQ_INT(ss_kernel_svm_get_budget_maintenance(svm), SS_BUDGET_MAINTENANCE_AUTO);
  CHECK_EQ_INT(ss_kernel_svm_set_budget(svm, 0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_budget(svm, -3), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_budget(NULL, 3), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_budget_maintenance(svm, (SsBudgetMaintenance)7), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_budget_maintenance(svm, (SsBudgetMaintenance)-1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_get_budget(svm), 500);
  CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(svm, NULL), SS_ERR_BAD_ARG);
  SsBudgetStatistics bs;
  CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(svm, &bs), SS_OK);
  CHECK_EQ_INT(bs.num_points, 0);
  /* merging needs the rbf kernel */
  SsKernel lin;
  ss_kernel_init(&lin, SS_KERNEL_LINEAR, 1, 0, 1);
  SsKernelSvm *l = ss_kernel_svm_new(SS_KSOLVER_BSGD, &lin, &f.data, f.y, 1e-2);
  REQUIRE(l);
  CHECK_EQ_INT(ss_kernel_svm_set_budget_maintenance(l, SS_BUDGET_MAINTENANCE_MERGE), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_budget_maintenance(l, SS_BUDGET_MAINTENANCE_PROJECT), SS_OK);
  ss_kernel_svm_set_budget(l, 4);
  ss_kernel_svm_set_max_num_iterations(l, 2 * BN);
  CHECK_EQ_INT(ss_kernel_svm_train(l), SS_OK);
  ss_kernel_svm_get_budget_statistics(l, &bs);
  CHECK(bs.num_projections > 0 || bs.num_removals > 0);
  CHECK_EQ_INT(bs.num_merges, 0);
  /* a precomputed kernel is refused by the budgeted solvers */
  SsKernel pre;
  ss_kernel_init(&pre, SS_KERNEL_PRECOMPUTED, 1, 0, 1);
  double gram[BN * BN];
  for (int i = 0; i < BN * BN; ++i) gram[i] = (i % (BN + 1)) == 0;
  SsData g;
  REQUIRE(ss_data_init_dense(&g, SS_DTYPE_FLOAT64, gram, BN, BN, BN) == SS_OK);
  CHECK(ss_kernel_svm_new(SS_KSOLVER_BSCA, &pre, &g, f.y, 1e-2) == NULL);
  CHECK_EQ_INT(ss_kernel_svm_check_new(SS_KSOLVER_BSGD, &pre, &g, f.y, 1e-2), SS_ERR_BAD_ARG);
  ss_kernel_svm_delete(svm);
  ss_kernel_svm_delete(l);
}

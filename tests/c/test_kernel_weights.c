/* test_kernel_weights.c -- per-example weights of the kernel SVM object
 * (ss_kernel_svm_set_weights): bad weights are refused and leave the object
 * unchanged, SBP refuses weights; for SDCA and BSCA a weight of 2 reaches the
 * optimum of the problem with that example listed twice and a weight of 0
 * that of the problem without it; Pegasos and BSGD with uniform weights 2
 * follow the unweighted iterates of lambda / 2, the Perceptron with uniform
 * weights 3 builds 3 times the unweighted expansion; an example of weight 0
 * never becomes a support vector. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_budget.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

#define WN 40
#define WD 3

/* X, y of WN + 1 rows: rows 0..WN-1 the problem, row WN a copy of one of them. */
typedef struct WeightFixture {
  double X[(WN + 1) * WD], y[WN + 1];
  SsData data, data_dup;
  SsKernel kernel;
} WeightFixture;

static void weight_fixture(WeightFixture *f)
{
  tu_make_blobs(f->X, f->y, WN, WD, 0.3, 29);
  memcpy(f->X + WN * WD, f->X, WD * sizeof(double));
  f->y[WN] = f->y[0];
  ss_data_init_dense(&f->data, SS_DTYPE_FLOAT64, f->X, WN, WD, WD);
  ss_data_init_dense(&f->data_dup, SS_DTYPE_FLOAT64, f->X, WN + 1, WD, WD);
  ss_kernel_init(&f->kernel, SS_KERNEL_RBF, 0.8, 0, 1);
}

void test_kernel_weights_rejects(void)
{
  WeightFixture f;
  weight_fixture(&f);
  double w[WN];
  for (int i = 0; i < WN; ++i) w[i] = 1.0 + i % 3;
  CHECK_EQ_INT(ss_kernel_svm_set_weights(NULL, w), SS_ERR_BAD_ARG);
  SsKernelSvm *sbp = ss_kernel_svm_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, 0.01);
  SsKernelSvm *sdca = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, 0.01);
  SsKernelSvm *empty = ss_kernel_svm_new_without_data(SS_KSOLVER_SDCA, &f.kernel, WD, 0.01);
  REQUIRE(sbp && sdca && empty);
  CHECK_EQ_INT(ss_kernel_svm_set_weights(sbp, w), SS_ERR_BAD_STATE);
  CHECK_EQ_INT(ss_kernel_svm_set_weights(sbp, NULL), SS_OK);
  CHECK(ss_kernel_svm_get_weights(sbp) == NULL);
  CHECK_EQ_INT(ss_kernel_svm_set_weights(empty, w), SS_ERR_BAD_STATE);
  CHECK(ss_kernel_svm_get_weights(sdca) == NULL);
  CHECK_EQ_INT(ss_kernel_svm_set_weights(sdca, w), SS_OK);
  const double bad[] = {-1.0, NAN, INFINITY, -0.0 - 1e-300};
  for (int b = 0; b < 4; ++b) {
    double v[WN];
    memcpy(v, w, sizeof v);
    v[WN - 1] = bad[b];
    CHECK_EQ_INT(ss_kernel_svm_set_weights(sdca, v), SS_ERR_BAD_ARG);
  }
  const double *got = ss_kernel_svm_get_weights(sdca);
  REQUIRE(got != NULL);
  for (int i = 0; i < WN; ++i) CHECK_CLOSE(got[i], w[i], 0); /* unchanged by the refusals */
  w[0] = 7; /* a copy: the caller's array may change */
  CHECK_CLOSE(ss_kernel_svm_get_weights(sdca)[0], 1.0, 0);
  CHECK_EQ_INT(ss_kernel_svm_set_data(sdca, &f.data, f.y), SS_OK);
  CHECK(ss_kernel_svm_get_weights(sdca) == NULL); /* new data clear the weights */
  ss_kernel_svm_delete(sbp);
  ss_kernel_svm_delete(sdca);
  ss_kernel_svm_delete(empty);
}

/* Train to the optimum (SDCA: gap 1e-12; BSCA with B >= n: many epochs). */
static SsKernelSvm *train_to_optimum(SsKernelSolver solver, const SsKernel *k, const SsData *data,
                                     const double *y, double lambda, const double *weights)
{
  SsKernelSvm *svm = ss_kernel_svm_new(solver, k, data, y, lambda);
  if (!svm) return NULL;
  if (weights) CHECK_EQ_INT(ss_kernel_svm_set_weights(svm, weights), SS_OK);
  ss_kernel_svm_set_epsilon(svm, 1e-12);
  ss_kernel_svm_set_budget(svm, data->num_data + 1);
  ss_kernel_svm_set_max_num_iterations(svm, 3000 * data->num_data);
  ss_kernel_svm_set_diagnostic_frequency(svm, 100 * data->num_data);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  return svm;
}

/* In the C scaling (objectives / lambda, C = 1/(lambda n) fixed) the
 * weighted problem equals the duplicated and the reduced problems. */
void test_kernel_weights_duplicate_and_zero(void)
{
  WeightFixture f;
  weight_fixture(&f);
  const double lambda = 0.02, C = 1.0 / (lambda * WN);
  const SsKernelSolver solvers[] = {SS_KSOLVER_SDCA, SS_KSOLVER_BSCA};
  for (int s = 0; s < 2; ++s) {
    /* The example doubled is one at its upper bound C in the unweighted
     * optimum (the weight then changes the optimum). */
    SsKernelSvm *plain = train_to_optimum(solvers[s], &f.kernel, &f.data, f.y, lambda, NULL);
    REQUIRE(plain);
    const double *alpha0 = ss_kernel_svm_get_dual_variables(plain);
    int p = 0;
    while (p < WN - 1 && !(alpha0[p] >= C * (1 - 1e-12))) ++p;
    REQUIRE(alpha0[p] >= C * (1 - 1e-12));
    memcpy(f.X + WN * WD, f.X + p * WD, WD * sizeof(double));
    f.y[WN] = f.y[p];
    double w[WN];
    for (int i = 0; i < WN; ++i) w[i] = 1.0;
    w[p] = 2.0;
    SsKernelSvm *weighted = train_to_optimum(solvers[s], &f.kernel, &f.data, f.y, lambda, w);
    const double lambda_dup = 1.0 / (C * (WN + 1));
    SsKernelSvm *dup = train_to_optimum(solvers[s], &f.kernel, &f.data_dup, f.y, lambda_dup, NULL);
    REQUIRE(weighted && dup);
    const SsKernelSvmStatistics *a = ss_kernel_svm_get_statistics(weighted);
    const SsKernelSvmStatistics *b = ss_kernel_svm_get_statistics(dup);
    CHECK_REL(a->primal_objective / lambda, b->primal_objective / lambda_dup, 1e-6);
    CHECK_REL(a->dual_objective / lambda, b->dual_objective / lambda_dup, 1e-6);
    /* and it is not the unweighted optimum */
    CHECK(fabs(ss_kernel_svm_get_statistics(plain)->primal_objective - a->primal_objective) >
          1e-4 * a->primal_objective);
    ss_kernel_svm_delete(plain);
    ss_kernel_svm_delete(weighted);
    ss_kernel_svm_delete(dup);

    /* Weight 0 on the first 10 rows = training on rows 10..WN-1 only. */
    for (int i = 0; i < WN; ++i) w[i] = i < 10 ? 0.0 : 1.0;
    weighted = train_to_optimum(solvers[s], &f.kernel, &f.data, f.y, lambda, w);
    SsData rest;
    ss_data_init_dense(&rest, SS_DTYPE_FLOAT64, f.X + 10 * WD, WN - 10, WD, WD);
    const double lambda_rest = 1.0 / (C * (WN - 10));
    SsKernelSvm *reduced = train_to_optimum(solvers[s], &f.kernel, &rest, f.y + 10, lambda_rest,
                                            NULL);
    REQUIRE(weighted && reduced);
    a = ss_kernel_svm_get_statistics(weighted);
    b = ss_kernel_svm_get_statistics(reduced);
    CHECK_REL(a->primal_objective / lambda, b->primal_objective / lambda_rest, 1e-6);
    CHECK_REL(a->dual_objective / lambda, b->dual_objective / lambda_rest, 1e-6);
    const double *alpha = ss_kernel_svm_get_dual_variables(weighted);
    for (int i = 0; i < 10; ++i) CHECK_CLOSE(alpha[i], 0.0, 0);
    ss_kernel_svm_delete(weighted);
    ss_kernel_svm_delete(reduced);
  }
}

/* Uniform weights: Pegasos and BSGD with weights 2 follow lambda / 2, the
 * Perceptron with weights 3 triples its expansion; weight-0 examples never
 * enter any expansion. */
void test_kernel_weights_stochastic_solvers(void)
{
  WeightFixture f;
  weight_fixture(&f);
  const double lambda = 0.05;
  double two[WN], three[WN], some_zero[WN];
  for (int i = 0; i < WN; ++i) {
    two[i] = 2.0;
    three[i] = 3.0;
    some_zero[i] = i % 4 == 0 ? 0.0 : 1.5;
  }
  const SsKernelSolver uniform[] = {SS_KSOLVER_PEGASOS, SS_KSOLVER_BSGD};
  for (int s = 0; s < 2; ++s) {
    SsKernelSvm *a = ss_kernel_svm_new(uniform[s], &f.kernel, &f.data, f.y, lambda);
    SsKernelSvm *b = ss_kernel_svm_new(uniform[s], &f.kernel, &f.data, f.y, lambda / 2);
    REQUIRE(a && b);
    CHECK_EQ_INT(ss_kernel_svm_set_weights(a, two), SS_OK);
    ss_kernel_svm_set_budget(a, 15);
    ss_kernel_svm_set_budget(b, 15);
    ss_kernel_svm_set_max_num_iterations(a, 5 * WN);
    ss_kernel_svm_set_max_num_iterations(b, 5 * WN);
    CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(b), SS_OK);
    const int64_t m = ss_kernel_svm_get_num_support_vectors(a);
    CHECK_EQ_INT(m, ss_kernel_svm_get_num_support_vectors(b));
    const double *ca = ss_kernel_svm_get_coefficients(a), *cb = ss_kernel_svm_get_coefficients(b);
    for (int64_t j = 0; j < m && ca && cb; ++j) CHECK_CLOSE(ca[j], cb[j], 1e-9 * fabs(cb[j]));
    /* P_weighted(w; lambda) = 2 P(w; lambda / 2) */
    CHECK_REL(ss_kernel_svm_get_statistics(a)->primal_objective,
              2 * ss_kernel_svm_get_statistics(b)->primal_objective, 1e-9);
    ss_kernel_svm_delete(a);
    ss_kernel_svm_delete(b);
  }
  {
    SsKernelSvm *a = ss_kernel_svm_new(SS_KSOLVER_PERCEPTRON, &f.kernel, &f.data, f.y, lambda);
    SsKernelSvm *b = ss_kernel_svm_new(SS_KSOLVER_PERCEPTRON, &f.kernel, &f.data, f.y, lambda);
    REQUIRE(a && b);
    CHECK_EQ_INT(ss_kernel_svm_set_weights(a, three), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(b), SS_OK);
    const int64_t m = ss_kernel_svm_get_num_support_vectors(a);
    CHECK(m > 0);
    CHECK_EQ_INT(m, ss_kernel_svm_get_num_support_vectors(b));
    const double *ca = ss_kernel_svm_get_coefficients(a), *cb = ss_kernel_svm_get_coefficients(b);
    for (int64_t j = 0; j < m && ca && cb; ++j) CHECK_CLOSE(ca[j], 3 * cb[j], 0);
    ss_kernel_svm_delete(a);
    ss_kernel_svm_delete(b);
  }
  const SsKernelSolver all[] = {SS_KSOLVER_PEGASOS, SS_KSOLVER_SDCA, SS_KSOLVER_PERCEPTRON,
                                SS_KSOLVER_BSCA, SS_KSOLVER_BSGD};
  for (int s = 0; s < 5; ++s) {
    SsKernelSvm *a = ss_kernel_svm_new(all[s], &f.kernel, &f.data, f.y, lambda);
    REQUIRE(a);
    CHECK_EQ_INT(ss_kernel_svm_set_weights(a, some_zero), SS_OK);
    ss_kernel_svm_set_budget(a, WN);
    ss_kernel_svm_set_max_num_iterations(a, 5 * WN);
    CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
    const int64_t m = ss_kernel_svm_get_num_support_vectors(a);
    const int64_t *idx = ss_kernel_svm_get_support_indices(a);
    CHECK(m > 0);
    for (int64_t j = 0; j < m && idx; ++j) CHECK(idx[j] < 0 || idx[j] % 4 != 0);
    /* the reported primal is the weighted one: recompute it from the scores */
    double scores[WN];
    CHECK_EQ_INT(ss_kernel_svm_decision_function(a, &f.data, scores), SS_OK);
    double loss = 0;
    for (int i = 0; i < WN; ++i) loss += some_zero[i] * fmax(0, 1 - f.y[i] * scores[i]);
    CHECK_REL(ss_kernel_svm_get_statistics(a)->loss, loss / WN, 1e-9);
    ss_kernel_svm_delete(a);
  }
}

/* test_sbp_nu.c -- the SBP's nu derived from lambda (src/core/kernel/sbp_nu.c) and
 * the bias defaults of the kernel object. */
#include <stdlib.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"
#include "../../src/core/kernel/kernel_certificate.h"
#include "../../src/core/kernel/kernel_internal.h"

enum { NN = 80, ND = 3 };

/* Overlapping blobs (NN x ND in X, labels in y) and an rbf kernel. */
static struct {
  double X[NN * ND], y[NN];
  SsData data;
  SsKernel kernel;
} f;

static void nu_fixture(void)
{
  tu_make_blobs(f.X, f.y, NN, ND, 0.6, 11);
  ss_data_init_dense(&f.data, SS_DTYPE_FLOAT64, f.X, NN, ND, ND);
  ss_kernel_init(&f.kernel, SS_KERNEL_RBF, 0.5, 0, 1);
}

void test_kernel_bias_defaults(void)
{
  nu_fixture();
  const SsKernelSolver solvers[] = {SS_KSOLVER_SBP, SS_KSOLVER_PEGASOS, SS_KSOLVER_SDCA,
                                    SS_KSOLVER_PERCEPTRON, SS_KSOLVER_BSCA, SS_KSOLVER_BSGD};
  for (int s = 0; s < 6; ++s) {
    SsKernelSvm *svm = ss_kernel_svm_new(solvers[s], &f.kernel, &f.data, f.y, 0.01);
    REQUIRE(svm);
    CHECK_EQ_INT(ss_kernel_svm_get_unregularized_bias(svm), solvers[s] == SS_KSOLVER_BSCA);
    ss_kernel_svm_delete(svm);
  }
}

void test_sbp_nu_default_is_derived_from_lambda(void)
{
  nu_fixture();
  SsKernelSvm *a = ss_kernel_svm_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, 0.01);
  SsKernelSvm *b = ss_kernel_svm_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, 0.01);
  REQUIRE(a && b);
  CHECK(ss_kernel_svm_get_nu(a) == 0); /* not derived before the first train */
  double nu = 0;
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(b, 0, &nu), SS_OK);
  CHECK(nu > 0 && nu < 1);
  ss_kernel_svm_set_max_num_iterations(a, 2 * NN);
  CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
  CHECK(ss_kernel_svm_get_nu(a) == nu); /* the default warm-up, deterministic */
  /* the warm-up's kernel evaluations are counted as the solver's */
  CHECK(ss_kernel_svm_get_num_kernel_evaluations(a) > 2 * NN * NN);
  /* the same run with that nu set explicitly is the same run */
  CHECK_EQ_INT(ss_kernel_svm_set_nu(b, nu), SS_OK);
  ss_kernel_svm_set_max_num_iterations(b, 2 * NN);
  CHECK_EQ_INT(ss_kernel_svm_train(b), SS_OK);
  CHECK(ss_kernel_svm_get_statistics(a)->margin == ss_kernel_svm_get_statistics(b)->margin);
  CHECK(ss_kernel_svm_get_num_kernel_evaluations(b) == 2 * NN * NN);
  /* a new lambda under the default restarts the SBP with a new nu */
  CHECK_EQ_INT(ss_kernel_svm_set_lambda(a, 0.1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
  CHECK(ss_kernel_svm_get_iteration_number(a) == 2 * NN);
  CHECK(ss_kernel_svm_get_nu(a) > nu);
  /* an explicit nu is honoured and survives lambda; unset goes back */
  CHECK_EQ_INT(ss_kernel_svm_set_nu(a, 0.25), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_lambda(a, 0.01), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
  CHECK(ss_kernel_svm_get_nu(a) == 0.25);
  CHECK(ss_kernel_svm_get_iteration_number(a) == 4 * NN);
  CHECK_EQ_INT(ss_kernel_svm_unset_nu(a), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
  CHECK(ss_kernel_svm_get_nu(a) == nu);
  ss_kernel_svm_delete(a);
  ss_kernel_svm_delete(b);
}

void test_sbp_nu_matches_the_optimum_and_is_monotone(void)
{
  nu_fixture();
  double previous = 0;
  const double lambdas[] = {1e-3, 1e-2, 1e-1}; /* C = 1/(lambda n) falling */
  for (int k = 0; k < 3; ++k) {
    /* nu_from_model of the exact optimum (kernel SDCA, no bias) */
    SsKernelSvm *ref = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, lambdas[k]);
    SsKernelSvm *sbp = ss_kernel_svm_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, lambdas[k]);
    REQUIRE(ref && sbp);
    ss_kernel_svm_set_epsilon(ref, 1e-13);
    ss_kernel_svm_set_max_num_iterations(ref, 20000 * NN);
    CHECK_EQ_INT(ss_kernel_svm_train(ref), SS_OK);
    double exact = 0, nu = 0, short_run = 0;
    CHECK_EQ_INT(ss_kernel_svm_nu_from_model(ref, &exact), SS_OK);
    /* the default warm-up (exact kernel SDCA to a 1e-3 gap on these NN <
     * 4096 rows) reads the optimum's nu; one epoch still gives a positive nu */
    CHECK_EQ_INT(ss_kernel_svm_estimate_nu(sbp, 0, &nu), SS_OK);
    CHECK_REL(nu, exact, 1e-2);
    CHECK_EQ_INT(ss_kernel_svm_estimate_nu(sbp, 1, &short_run), SS_OK);
    CHECK(short_run > 0);
    CHECK(nu > previous); /* larger lambda (smaller C): more slack */
    previous = nu;
    ss_kernel_svm_delete(ref);
    ss_kernel_svm_delete(sbp);
  }
}

/* The bias-free warm-up starts from the solution with the bias
 * (ss_kernel_sdca_start_from): the same optimum as from zero, in fewer
 * kernel evaluations; refused for a started object or another solver. */
void test_sbp_nu_bias_free_starts_from_the_bias_solution(void)
{
  nu_fixture();
  const double lambda = 1e-3;
  SsKernelSvm *pair = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, lambda);
  SsKernelSvm *from_zero = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, lambda);
  SsKernelSvm *warm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, lambda);
  REQUIRE(pair && from_zero && warm);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(pair, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_sdca_start_from(pair, f.y), SS_ERR_BAD_STATE); /* the pair solver */
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(pair, 1e-10), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(pair), SS_OK);
  for (int k = 0; k < 2; ++k) {
    SsKernelSvm *svm = k ? warm : from_zero;
    CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm, 1e-9), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 100000 * NN), SS_OK);
  }
  CHECK_EQ_INT(ss_kernel_sdca_start_from(warm, ss_kernel_svm_get_dual_variables(pair)), SS_OK);
  CHECK_EQ_INT(ss_kernel_sdca_start_from(warm, ss_kernel_svm_get_dual_variables(pair)), SS_ERR_BAD_STATE);
  CHECK_EQ_INT(ss_kernel_svm_train(warm), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(from_zero), SS_OK);
  const SsKernelSvmStatistics *a = ss_kernel_svm_get_statistics(warm);
  const SsKernelSvmStatistics *b = ss_kernel_svm_get_statistics(from_zero);
  CHECK_EQ_INT(a->status, SS_SVM_STATUS_CONVERGED);
  CHECK_EQ_INT(b->status, SS_SVM_STATUS_CONVERGED);
  CHECK_REL(a->dual_objective, b->dual_objective, 1e-8);
  CHECK(ss_kernel_svm_get_num_kernel_evaluations(warm) < ss_kernel_svm_get_num_kernel_evaluations(from_zero));
  ss_kernel_svm_delete(pair);
  ss_kernel_svm_delete(from_zero);
  ss_kernel_svm_delete(warm);
}

/* On more rows than the warm-up's sample (4096) nu comes from a sample and
 * its halves at the same C, extrapolated to n (sbp_nu.c, "Large n"): near
 * the exact optimum's nu (measured 0.90x here), the same on dense and CSR
 * rows, and the same on a second call. */
void test_sbp_nu_sampled_is_near_the_optimum(void)
{
  enum { BIG = 6000, BD = 2 };
  double *X = malloc(sizeof(double) * BIG * BD), *y = malloc(sizeof(double) * BIG);
  int64_t *indptr = malloc(sizeof(int64_t) * (BIG + 1));
  int32_t *indices = malloc(sizeof(int32_t) * BIG * BD);
  REQUIRE(X && y && indptr && indices);
  tu_make_blobs(X, y, BIG, BD, 0.5, 5);
  for (int64_t i = 0; i <= BIG; ++i) indptr[i] = BD * i;
  for (int64_t k = 0; k < BIG * BD; ++k) indices[k] = (int32_t)(k % BD);
  SsData dense, csr;
  CHECK_EQ_INT(ss_data_init_dense(&dense, SS_DTYPE_FLOAT64, X, BIG, BD, BD), SS_OK);
  CHECK_EQ_INT(ss_data_init_csr(&csr, SS_DTYPE_FLOAT64, X, indptr, indices, BIG, BD), SS_OK);
  SsKernel kernel;
  ss_kernel_init(&kernel, SS_KERNEL_RBF, 1.0, 0, 1);
  const double lambda = 1.0 / (10.0 * BIG); /* C = 10 */
  SsKernelSvm *ref = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &dense, y, lambda);
  SsKernelSvm *a = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &dense, y, lambda);
  SsKernelSvm *b = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &csr, y, lambda);
  REQUIRE(ref && a && b);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(ref, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(ref, 1e-4), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(ref), SS_OK);
  double exact = 0, nu = 0, again = 0, from_csr = 0;
  CHECK_EQ_INT(ss_kernel_svm_nu_from_model(ref, &exact), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(a, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(b, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(a, 0, &nu), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(a, 0, &again), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(b, 0, &from_csr), SS_OK);
  CHECK(nu > exact / 1.5 && nu < 1.5 * exact);
  CHECK(again == nu);
  CHECK_REL(from_csr, nu, 1e-6);
  ss_kernel_svm_delete(ref);
  ss_kernel_svm_delete(a);
  ss_kernel_svm_delete(b);
  free(X);
  free(y);
  free(indptr);
  free(indices);
}

/* A rare class: two positive rows among 12000, placed where the seeded
 * permutation puts them last, so that a plain prefix of it (the sample
 * before stratification) misses them and the warm-up solved all 12000 rows.
 * The stratified sample holds them, one per half: the warm-up's kernel
 * evaluations are well below those of the whole data's solve, made here the
 * way the warm-up made it (exact SDCA with the bias, gap 1e-3). */
void test_sbp_nu_sample_is_stratified(void)
{
  enum { RN = 12000, RD = 2 };
  double *X = malloc(sizeof(double) * RN * RD), *y = malloc(sizeof(double) * RN);
  int64_t *perm = malloc(sizeof(int64_t) * RN);
  REQUIRE(X && y && perm);
  tu_make_blobs(X, y, RN, RD, 0.5, 9);
  const uint64_t seed = 3;
  ss_rng_permutation(perm, RN, seed, UINT64_C(0x5b9)); /* the warm-up's (kernel_svm.c) */
  for (int64_t i = 0; i < RN; ++i) y[i] = -1.0;
  y[perm[RN - 1]] = y[perm[RN - 2]] = 1.0;
  SsData data;
  CHECK_EQ_INT(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, RN, RD, RD), SS_OK);
  SsKernel kernel;
  ss_kernel_init(&kernel, SS_KERNEL_RBF, 1.0, 0, 1);
  const double lambda = 1.0 / (10.0 * RN);
  SsKernelSvm *sbp = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, lambda);
  SsKernelSvm *whole = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, lambda);
  REQUIRE(sbp && whole);
  CHECK_EQ_INT(ss_kernel_svm_set_seed(sbp, seed), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(sbp, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(whole, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_seed(whole, seed), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(whole, 1e-3), SS_OK);
  double nu = 0, exact_cost = -1;
  int64_t evaluations = 0;
  CHECK_EQ_INT(ss_kernel_svm_nu_warmup(sbp, 0, &nu, &evaluations, &exact_cost), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(whole), SS_OK);
  CHECK(nu > 0);
  CHECK(evaluations > 0);
  CHECK(2 * evaluations < ss_kernel_svm_get_num_kernel_evaluations(whole));
  /* The race's prediction of the whole solve (sbp_race.c): positive, and
   * within an order of magnitude even on this degenerate set (two
   * positives in 12,000; it read 5x high: the sample's solve costs more per
   * squared row than the whole's). */
  CHECK(exact_cost > 0);
  CHECK(exact_cost < 10.0 * (double)ss_kernel_svm_get_num_kernel_evaluations(whole));
  ss_kernel_svm_delete(sbp);
  ss_kernel_svm_delete(whole);
  free(X);
  free(y);
  free(perm);
}

void test_sbp_nu_rejects(void)
{
  nu_fixture();
  double nu = -1;
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, 0.01);
  SsKernelSvm *empty = ss_kernel_svm_new_without_data(SS_KSOLVER_SBP, &f.kernel, ND, 0.01);
  REQUIRE(svm && empty);
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(NULL, 0, &nu), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(svm, 0, NULL), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(svm, -1, &nu), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(svm, INT64_MAX, &nu), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_estimate_nu(empty, 0, &nu), SS_ERR_BAD_STATE);
  CHECK(nu == -1);
  CHECK_EQ_INT(ss_kernel_svm_unset_nu(NULL), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_nu(svm, 0), SS_ERR_BAD_ARG);
  ss_kernel_svm_delete(svm);
  ss_kernel_svm_delete(empty);
}

/* The SBP's window stop is certified (kernel_certificate.c): a converged
 * run reports its dual bound, which lies below the optimum (the primal of
 * exact kernel SDCA at a 1e-10 gap, with and without the bias) and within
 * 5 % of the SBP's objective. */
void test_sbp_stop_is_certified(void)
{
  nu_fixture();
  for (int bias = 0; bias < 2; ++bias) {
    SsKernelSvm *exact = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, 0.01);
    SsKernelSvm *sbp = ss_kernel_svm_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, 0.01);
    REQUIRE(exact && sbp);
    CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(exact, bias), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_epsilon(exact, 1e-10), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(exact, 5000 * NN), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(exact), SS_OK);
    const double upper = ss_kernel_svm_get_statistics(exact)->primal_objective;
    CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(sbp, bias), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_epsilon(sbp, 1e-2), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(sbp, 300 * NN), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(sbp), SS_OK);
    const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(sbp);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
    CHECK(st->dual_objective <= upper * (1 + 1e-9));
    CHECK(st->primal_objective - st->dual_objective <= 0.05 * st->dual_objective);
    CHECK(st->duality_gap == st->primal_objective - st->dual_objective);
    ss_kernel_svm_delete(exact);
    ss_kernel_svm_delete(sbp);
  }
}

/* ss_kernel_dual_bound_cost, which decides whether the first bound of a
 * run is affordable, bounds what ss_kernel_dual_bound spends: exactly n
 * evaluations per margin error without ascent rows, at most the count with
 * them. */
void test_sbp_bound_cost_bounds_the_bound(void)
{
  nu_fixture();
  SsKernelSvm *sbp = ss_kernel_svm_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, 0.01);
  REQUIRE(sbp);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(sbp, true), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(sbp, 0), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(sbp, 3 * NN), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(sbp), SS_OK);
  REQUIRE(sbp->scores);
  int64_t errors = 0;
  for (int64_t i = 0; i < NN; ++i) errors += f.y[i] * (sbp->scores[i] + sbp->model.bias) < 1;
  CHECK(errors > 0 && errors < NN);
  const int64_t rows[] = {0, 5, NN};
  for (int k = 0; k < 3; ++k) {
    const double cost = ss_kernel_dual_bound_cost(sbp, sbp->scores, rows[k]);
    CHECK(cost == (double)NN * (double)(errors + rows[k]) + (double)rows[k]);
    const int64_t before = sbp->num_kernel_evaluations;
    CHECK(isfinite(ss_kernel_dual_bound(sbp, sbp->scores, rows[k])));
    const double spent = (double)(sbp->num_kernel_evaluations - before);
    CHECK(rows[k] == 0 ? spent == cost : spent <= cost);
  }
  ss_kernel_svm_delete(sbp);
}

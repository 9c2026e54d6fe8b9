/* test_sdca_newton_hinge.c -- SDCA's Newton fallback for the hinge loss
 * (newton_hinge.c): on the ill-conditioned problem where SDCA stops on its
 * cap far above the optimum, the smoothing method ends on a certified
 * optimum. The certificate is recomputed here from the dual variables the
 * object leaves, with the hinge's dual written out by hand:
 *
 *     D(alpha) = -lambda/2 ||v||^2 + 1/n sum_i c_i beta_i,  beta_i = y_i alpha_i / c_i in [0, 1],
 *
 * checked for feasibility too. Weights, the learned bias and a fixed
 * offset, the fallback off (the old path), a warm start after the
 * fallback, an interrupt; run under ASan for the frees. */
#include <math.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/sdca.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { HN = 80, HD = 4 };
static const double HLAMBDA = 1.0 / (1e4 * HN);

/* Columns of scale 1024, 1, 1/128 and 1; the label follows the small one. */
static void make_problem(double *X, double *y) {
  TuRng rng;
  tu_rng_init(&rng, 29);
  const double scale[HD] = {1024.0, 1.0, 1.0 / 128, 1.0};
  for (int i = 0; i < HN; ++i) {
    y[i] = (i % 2) ? 1.0 : -1.0;
    for (int j = 0; j < HD; ++j) X[i * HD + j] = scale[j] * floor(64 * (tu_rng_uniform(&rng) - 0.5)) / 64;
    X[i * HD + 2] += scale[2] * (i % 2 ? 0.25 : -0.25);
  }
  y[3] = -y[3]; /* not separable */
  y[10] = -y[10];
}

static SsSvm *new_hinge(SsData *data, const double *y, int epochs, int fallback, const double *weights, double B) {
  SsSvm *svm = ss_svm_new(SS_SOLVER_SDCA, data, y, HLAMBDA);
  if (!svm) return NULL;
  if (ss_svm_set_loss(svm, SS_LOSS_HINGE) != SS_OK || ss_svm_set_epsilon(svm, 1e-6) != SS_OK ||
      ss_svm_set_max_num_iterations(svm, (int64_t)epochs * HN) != SS_OK ||
      ss_svm_set_newton_fallback(svm, fallback) != SS_OK || ss_svm_set_bias_multiplier(svm, B) != SS_OK ||
      (B == 0 && ss_svm_set_bias(svm, 0.375) != SS_OK) || (weights && ss_svm_set_weights(svm, weights) != SS_OK)) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

/* D(alpha) of the object's dual variables, -inf if one is infeasible; B the
 * bias multiplier (0: the fixed offset b enters as -1/n sum alpha_i b). */
static double hinge_dual(const SsSvm *svm, const double *X, const double *y, const double *weights, double B) {
  const double *alpha = ss_svm_get_dual_variables(svm);
  double v[HD + 1] = {0}, linear = 0;
  for (int i = 0; i < HN; ++i) {
    const double c = weights ? weights[i] : 1.0, beta = y[i] * alpha[i] / c;
    if (beta < 0 || beta > 1) return -INFINITY;
    for (int j = 0; j < HD; ++j) v[j] += alpha[i] * X[i * HD + j] / (HLAMBDA * HN);
    v[HD] += alpha[i] * B / (HLAMBDA * HN);
    linear += c * beta - (B > 0 ? 0 : alpha[i] * ss_svm_get_bias(svm));
  }
  double v2 = 0;
  for (int j = 0; j <= HD; ++j) v2 += v[j] * v[j];
  return -0.5 * HLAMBDA * v2 + linear / HN;
}

static double hinge_primal(const SsSvm *svm, const double *X, const double *y, const double *weights, double B) {
  return tu_objective(X, HN, HD, HD, y, ss_svm_get_model(svm), ss_svm_get_bias(svm), B, HLAMBDA, SS_LOSS_HINGE,
                      weights, NULL, NULL);
}

void test_sdca_newton_hinge_certified(void) {
  static double X[HN * HD], y[HN], weights[HN];
  make_problem(X, y);
  for (int i = 0; i < HN; ++i) weights[i] = 0.5 + (i % 3);
  for (int weighted = 0; weighted < 2; ++weighted) {
    for (int fixed = 0; fixed < 2; ++fixed) {
      const double *c = weighted ? weights : NULL, B = fixed ? 0.0 : 1.0;
      SsData data;
      CHECK(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, HN, HD, HD) == SS_OK);
      SsSvm *off = new_hinge(&data, y, 20, 0, c, B), *on = new_hinge(&data, y, 20, 1, c, B);
      CHECK(off && on);
      if (!off || !on) {
        ss_svm_delete(off);
        ss_svm_delete(on);
        continue;
      }
      CHECK(ss_svm_train(off) == SS_OK);
      CHECK(ss_svm_train(on) == SS_OK);
      const SsSvmStatistics *st_off = ss_svm_get_statistics(off), *st_on = ss_svm_get_statistics(on);
      CHECK_EQ_INT(st_off->status, SS_SVM_STATUS_MAX_ITERATIONS);
      CHECK_EQ_INT(st_off->num_newton_iterations, 0);
      CHECK_EQ_INT(st_on->status, SS_SVM_STATUS_CONVERGED);
      CHECK(st_on->num_newton_iterations > 0);
      CHECK(st_on->iteration <= st_off->iteration);
      const double P = hinge_primal(on, X, y, c, B), D = hinge_dual(on, X, y, c, B);
      CHECK_REL(P, st_on->objective, 1e-9);
      CHECK_REL(D, st_on->dual_objective, 1e-6);
      CHECK(P - D <= 1e-6 * P * (1 + 1e-6)); /* D <= P*: P within 1e-6 of the optimum */
      CHECK(hinge_primal(off, X, y, c, B) > 1.01 * P); /* SDCA alone was far from it */
      if (fixed) CHECK(ss_svm_get_bias(on) == 0.375); /* the offset is not learned */
      /* A warm start continues SDCA from the certified alpha: no worse, certified. */
      CHECK(ss_svm_train(on) == SS_OK);
      st_on = ss_svm_get_statistics(on);
      CHECK(st_on->objective <= P * (1 + 1e-6));
      CHECK(st_on->duality_gap <= 1e-6 * st_on->objective * (1 + 1e-6));
      CHECK(hinge_primal(on, X, y, c, B) - hinge_dual(on, X, y, c, B) <= 1e-6 * P * (1 + 1e-5));
      ss_svm_delete(off);
      ss_svm_delete(on);
    }
  }
}

/* With a long cap the stall rule hands over long before it. */
void test_sdca_newton_hinge_stall_rule(void) {
  static double X[HN * HD], y[HN];
  make_problem(X, y);
  SsData data;
  CHECK(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, HN, HD, HD) == SS_OK);
  SsSvm *svm = new_hinge(&data, y, 100000, 1, NULL, 1.0);
  CHECK(svm != NULL);
  if (!svm) return;
  CHECK(ss_svm_train(svm) == SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  CHECK(st->num_newton_iterations > 0);
  CHECK(st->iteration < 1000 * (int64_t)HN);
  CHECK(hinge_primal(svm, X, y, NULL, 1.0) - hinge_dual(svm, X, y, NULL, 1.0) <=
        1e-6 * st->objective * (1 + 1e-6));
  ss_svm_delete(svm);
}

/* The CG's Hessian products read the band's rows only (newton.c): at
 * C = 1e3 on 4000 rows of 48 columns (scales 1/2 to 64) with 5 % of the
 * labels flipped, the two SDCA epochs and the finish (its score passes and
 * line searches, the dual stage's sweeps) read fewer rows than 8 passes
 * per Newton iteration, where a product over all rows cost a pass and
 * there are tens per iteration; the finish ends certified. */
void test_sdca_newton_hinge_band_products(void) {
  enum { BN = 4000, BD = 48 };
  static double X[BN * BD], y[BN];
  TuRng rng;
  tu_rng_init(&rng, 5);
  double normal[BD];
  for (int j = 0; j < BD; ++j) normal[j] = tu_rng_uniform(&rng) - 0.5;
  for (int i = 0; i < BN; ++i) {
    double score = 0;
    for (int j = 0; j < BD; ++j) {
      X[i * BD + j] = (1 << (j % 8)) * (tu_rng_uniform(&rng) - 0.5);
      score += X[i * BD + j] * normal[j];
    }
    y[i] = (score > 0) == (i % 20 != 0) ? 1.0 : -1.0;
  }
  TuRows rows = {X, BD, 0, 0};
  const double lambda = 1.0 / (1e3 * BN);
  SsSvm *svm = ss_svm_new_with_abstract_data(SS_SOLVER_SDCA, &rows, BD, BN, y, lambda, tu_rows_inner_product,
                                             tu_rows_accumulate);
  CHECK(svm != NULL);
  if (!svm) return;
  CHECK(ss_svm_set_loss(svm, SS_LOSS_HINGE) == SS_OK && ss_svm_set_epsilon(svm, 1e-3) == SS_OK &&
        ss_svm_set_max_num_iterations(svm, 2 * BN) == SS_OK &&
        ss_svm_set_newton_fallback(svm, SS_SVM_NEWTON_FALLBACK_ON) == SS_OK);
  CHECK(ss_svm_train(svm) == SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  CHECK(st->num_newton_iterations > 0);
  CHECK(st->duality_gap <= 1e-3 * st->objective);
  /* 175 passes in 30 Newton iterations; 1,026 when every product read all rows */
  CHECK(rows.inner_products <= 8 * (int64_t)BN * (st->num_newton_iterations + 2));
  ss_svm_delete(svm);
}

static int count_polls(void *user) {
  int64_t *polls = user; /* [0]: polls so far, [1]: the one that interrupts (0: none) */
  return ++polls[0] == polls[1];
}

/* An interrupt during the Newton run: SS_ERR_INTERRUPTED, fewer Newton
 * iterations than the whole run, a consistent model and a feasible alpha. */
void test_sdca_newton_hinge_interrupt(void) {
  static double X[HN * HD], y[HN];
  make_problem(X, y);
  SsData data;
  CHECK(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, HN, HD, HD) == SS_OK);
  SsSvm *whole = new_hinge(&data, y, 20, 1, NULL, 1.0), *cut = new_hinge(&data, y, 20, 1, NULL, 1.0);
  CHECK(whole && cut);
  if (whole && cut) {
    int64_t polls[2] = {0, 0};
    CHECK(ss_svm_set_interrupt_function(whole, count_polls, polls) == SS_OK);
    CHECK(ss_svm_train(whole) == SS_OK);
    const int64_t iterations = ss_svm_get_statistics(whole)->num_newton_iterations;
    CHECK(iterations > 5);
    int64_t cut_polls[2] = {0, polls[0] - 3}; /* the Newton run polls once per iteration or stage */
    CHECK(ss_svm_set_interrupt_function(cut, count_polls, cut_polls) == SS_OK);
    CHECK_EQ_INT(ss_svm_train(cut), SS_ERR_INTERRUPTED);
    const SsSvmStatistics *st = ss_svm_get_statistics(cut);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_INTERRUPTED);
    CHECK(st->num_newton_iterations > 0 && st->num_newton_iterations < iterations);
    CHECK_REL(hinge_primal(cut, X, y, NULL, 1.0), st->objective, 1e-9);
    CHECK_REL(hinge_dual(cut, X, y, NULL, 1.0), st->dual_objective, 1e-6);
  }
  ss_svm_delete(whole);
  ss_svm_delete(cut);
}

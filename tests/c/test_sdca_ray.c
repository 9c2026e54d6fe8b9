/* test_sdca_ray.c -- SDCA's ray step (sdca_ray.c): each step keeps the dual
 * variables feasible, raises D to its maximum along the ray and keeps
 * w~ = w~(alpha); it keeps off a shifted model and, as a rescue, off a model
 * below the zero model's objective or with alpha less than 1e3 times too
 * small (such a run is bit for bit the run without it); its schedule
 * follows t, so a split run equals the whole.
 * (Its effect on the objective and the test accuracy: tests/test_sdca_ray.py,
 * on LIBSVM's breast-cancer.) */
#include <math.h>
#include <string.h>

#include "../../src/core/linear/svm_internal.h"
#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { RN = 120, RD = 4 };

/* Columns 0-2 scaled by 1e-2, 1 and 1e2, the label the sign of the first
 * two columns' unscaled sum; column 3 a sample id from 1e6 to 1e7 (as in
 * LIBSVM's breast-cancer), no signal, dwarfing the rest. */
static void make_badly_scaled(double *X, double *y)
{
  TuRng rng;
  tu_rng_init(&rng, 17);
  for (int i = 0; i < RN; ++i) {
    double z[RD - 1];
    for (int j = 0; j < RD - 1; ++j) z[j] = 2 * tu_rng_uniform(&rng) - 1;
    y[i] = z[0] + z[1] > 0 ? 1.0 : -1.0;
    for (int j = 0; j < RD - 1; ++j) X[i * RD + j] = z[j] * pow(10.0, 2.0 * j - 2.0);
    X[i * RD + RD - 1] = 1e6 * (1 + 9.0 * ((i * 37) % RN) / RN);
  }
}

static SsSvm *new_ray_sdca(SsData *data, const double *X, const double *y, SsLoss loss, double C)
{
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, data, X, y, RN, RD, 1.0 / (C * RN));
  if (!svm) return NULL;
  if (ss_svm_set_loss(svm, loss) != SS_OK || ss_svm_set_bias_multiplier(svm, 1.0) != SS_OK ||
      ss_svm_set_epsilon(svm, 0) != SS_OK) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

/* w~(alpha) = 1/(lambda n) sum alpha_i (x_i, 1), recomputed. */
static void model_of(const double *X, const double *alpha, double lambda, double *w, double *b)
{
  memset(w, 0, RD * sizeof(double));
  *b = 0;
  for (int i = 0; i < RN; ++i) {
    for (int j = 0; j < RD; ++j) w[j] += alpha[i] * X[i * RD + j] / (lambda * RN);
    *b += alpha[i] / (lambda * RN);
  }
}

/* D(s alpha) from scratch (unit weights, B = 1). */
static double dual_value(const double *X, const double *y, const double *alpha, double s,
                         double lambda, SsLoss loss)
{
  double w[RD], b, sum = 0;
  model_of(X, alpha, lambda, w, &b);
  double norm2 = b * b;
  for (int j = 0; j < RD; ++j) norm2 += w[j] * w[j];
  for (int i = 0; i < RN; ++i) {
    const double beta = s * y[i] * alpha[i];
    if (loss == SS_LOSS_HINGE) sum += beta;
    else if (loss == SS_LOSS_HINGE2) sum += beta - beta * beta / 4;
    else sum += (beta > 0 ? -beta * log(beta) : 0) - (beta < 1 ? (1 - beta) * log1p(-beta) : 0);
  }
  return -0.5 * lambda * s * s * norm2 + sum / RN;
}

/* Whether the model is w~(alpha) to rounding: each entry within 1e-9 of
 * the size of the terms summed into it, sum_i |alpha_i x_ij| / (lambda n)
 * (an absolute tolerance would pass anything: entries go down to 1e-10). */
static bool is_model_of(const SsSvm *svm, const double *X, const double *alpha)
{
  double w[RD], b, size[RD + 1] = {0};
  model_of(X, alpha, svm->lambda, w, &b);
  for (int i = 0; i < RN; ++i) {
    for (int j = 0; j < RD; ++j) size[j] += fabs(alpha[i] * X[i * RD + j]) / (svm->lambda * RN);
    size[RD] += fabs(alpha[i]) / (svm->lambda * RN);
  }
  bool ok = fabs(ss_svm_get_bias(svm) - b) <= 1e-9 * size[RD];
  for (int j = 0; j < RD; ++j) ok &= fabs(ss_svm_get_model(svm)[j] - w[j]) <= 1e-9 * size[j];
  return ok;
}

static const SsLoss LOSSES[] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};

/* At every epoch of a run (without the scheduled steps), a step keeps
 * alpha feasible and w~ = w~(alpha), raises D, and lands on the maximiser of
 * D along the ray; a second step does not move. */
void test_sdca_ray_step_invariants(void)
{
  static double X[RN * RD], y[RN], before[RN];
  make_badly_scaled(X, y);
  for (int k = 0; k < 3; ++k) {
    SsData data;
    SsSvm *svm = new_ray_sdca(&data, X, y, LOSSES[k], 1.0);
    REQUIRE(svm);
    svm->sdca_ray_off = true; /* the steps are taken here */
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, RN), SS_OK);
    int moved = 0;
    for (int e = 1; e <= 30; ++e) {
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const double *alpha = ss_svm_get_dual_variables(svm);
      memcpy(before, alpha, sizeof before);
      svm->sdca_ray_off = false;
      const bool step = ss_sdca_ray_step(svm, false);
      svm->sdca_ray_off = true;
      if (!step) continue;
      ++moved;
      const double s = alpha[0] / before[0];
      const double d1 = dual_value(X, y, before, 1, svm->lambda, LOSSES[k]);
      const double ds = dual_value(X, y, before, s, svm->lambda, LOSSES[k]);
      CHECK(s > 0 && ds > d1);
      if (LOSSES[k] != SS_LOSS_HINGE || s * fabs(before[0]) < 1) { /* inside the box */
        CHECK(ds >= dual_value(X, y, before, 0.999 * s, svm->lambda, LOSSES[k]));
        CHECK(ds >= dual_value(X, y, before, 1.001 * s, svm->lambda, LOSSES[k]));
      }
      for (int i = 0; i < RN; ++i) {
        CHECK_CLOSE(alpha[i], s * before[i], 1e-12);
        const double beta = y[i] * alpha[i];
        CHECK(beta >= 0 && (LOSSES[k] == SS_LOSS_HINGE2 || beta <= 1));
      }
      CHECK(is_model_of(svm, X, alpha));
      svm->sdca_ray_off = false;
      CHECK(!ss_sdca_ray_step(svm, false)); /* at the maximiser already */
      svm->sdca_ray_off = true;
    }
    CHECK(moved > 0);
    ss_svm_delete(svm);
  }
}

/* From alpha = eps y: whether the rescue moves (*rescued), and the s of
 * the step taken without its conditions (0 if none). */
static double step_of_tiny_alpha(const double *X, const double *y, double eps, bool *rescued)
{
  static double alpha[RN];
  for (int i = 0; i < RN; ++i) alpha[i] = eps * y[i];
  SsData data;
  SsSvm *svm = new_ray_sdca(&data, X, y, SS_LOSS_HINGE, 1.0);
  if (!svm || ss_svm_set_dual_variables(svm, alpha) != SS_OK) {
    ss_svm_delete(svm);
    *rescued = true;
    return 0;
  }
  *rescued = ss_sdca_ray_step(svm, true);
  const double s = !*rescued && ss_sdca_ray_step(svm, false) ? ss_svm_get_dual_variables(svm)[0] / alpha[0] : 0;
  ss_svm_delete(svm);
  return s;
}

/* The step keeps off a shifted model (w~ is no ray of alpha there), and
 * the rescue keeps off a model below the zero model's objective. */
void test_sdca_ray_step_keeps_off(void)
{
  static double X[RN * RD], y[RN], alpha[RN];
  make_badly_scaled(X, y);
  SsData data;
  SsSvm *svm = new_ray_sdca(&data, X, y, SS_LOSS_HINGE, 1.0);
  REQUIRE(svm);
  for (int i = 0; i < RN; ++i) alpha[i] = y[i] * (0.001 + 0.002 * (i % 5));
  CHECK_EQ_INT(ss_svm_set_dual_variables(svm, alpha), SS_OK);
  const double shift[RD] = {0, 0, 0, 0};
  CHECK_EQ_INT(ss_svm_shift_sdca_model(svm, shift, 0.0), SS_OK);
  CHECK(!ss_sdca_ray_step(svm, false));
  CHECK_EQ_INT(ss_svm_set_dual_variables(svm, alpha), SS_OK); /* the rebuild forgets the shift */
  CHECK(ss_sdca_ray_step(svm, false));
  ss_svm_delete(svm);

  /* alpha = 1e-17 y: far too small (s >= 1e3), and the model so small
   * that P(w~) = P(0) - <w~, 1/n sum_i y_i x~_i> + O(|w~|^2) < P(0): no
   * rescue, but a step when asked for any model */
  bool rescued;
  CHECK(step_of_tiny_alpha(X, y, 1e-17, &rescued) >= 1e3 && !rescued);
  /* alpha = 1e-14 y: the id column puts the model above P(0), but alpha
   * is only some 15 times too small (s < 1e3): no rescue */
  const double s = step_of_tiny_alpha(X, y, 1e-14, &rescued);
  CHECK(s > 2 && s < 1e3 && !rescued);

  /* well scaled blobs: below P(0) once trained, so no rescue */
  static double Xb[RN * RD], yb[RN];
  tu_make_blobs(Xb, yb, RN, RD, 1.0, 3);
  svm = new_ray_sdca(&data, Xb, yb, SS_LOSS_HINGE, 1.0);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 2 * RN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  for (int i = 0; i < RN; ++i) alpha[i] = 0.5 * ss_svm_get_dual_variables(svm)[i];
  CHECK_EQ_INT(ss_svm_set_dual_variables(svm, alpha), SS_OK); /* off the ray's maximiser */
  CHECK(!ss_sdca_ray_step(svm, true));
  CHECK(ss_sdca_ray_step(svm, false));
  ss_svm_delete(svm);
}

/* The schedule: from epoch 100 on, at 141, 211, 316, ... */
void test_sdca_ray_schedule(void)
{
  const int64_t on[] = {141, 211, 316, 474, 711};
  for (int64_t e = 0; e <= 711; ++e) {
    bool expected = false;
    for (int k = 0; k < 5; ++k) expected |= e == on[k];
    CHECK(ss_sdca_ray_epoch(e) == expected);
  }
}

/* A run whose model stays below P(0) is the run without the step, bit for
 * bit; a split run equals the whole where the rescue fires. */
void test_sdca_ray_ordinary_run_unchanged_and_split_equals_whole(void)
{
  static double Xb[RN * RD], yb[RN];
  tu_make_blobs(Xb, yb, RN, RD, 1.0, 3);
  SsData d1, d2;
  SsSvm *with = new_ray_sdca(&d1, Xb, yb, SS_LOSS_HINGE2, 1e3);
  SsSvm *without = new_ray_sdca(&d2, Xb, yb, SS_LOSS_HINGE2, 1e3);
  REQUIRE(with && without);
  without->sdca_ray_off = true;
  for (int m = 0; m < 2; ++m) {
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(m ? without : with, 320 * RN), SS_OK);
    CHECK_EQ_INT(ss_svm_train(m ? without : with), SS_OK);
  }
  CHECK(tu_same_bits(ss_svm_get_model(with), ss_svm_get_model(without), RD));
  CHECK(tu_same_bits(ss_svm_get_dual_variables(with), ss_svm_get_dual_variables(without), RN));
  ss_svm_delete(with);
  ss_svm_delete(without);

  static double X[RN * RD], y[RN];
  make_badly_scaled(X, y);
  SsSvm *whole = new_ray_sdca(&d1, X, y, SS_LOSS_HINGE2, 1.0);
  SsSvm *split = new_ray_sdca(&d2, X, y, SS_LOSS_HINGE2, 1.0);
  SsData d3;
  SsSvm *plain = new_ray_sdca(&d3, X, y, SS_LOSS_HINGE2, 1.0);
  REQUIRE(whole && split && plain);
  plain->sdca_ray_off = true;
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(whole, 320 * RN + 5), SS_OK);
  CHECK_EQ_INT(ss_svm_train(whole), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(plain, 320 * RN + 5), SS_OK);
  CHECK_EQ_INT(ss_svm_train(plain), SS_OK);
  const int64_t pieces[] = {RN / 2, 140 * RN, 71 * RN + 7, 100 * RN, 9 * RN - RN / 2 - 2};
  for (int p = 0; p < 5; ++p) {
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(split, pieces[p]), SS_OK);
    CHECK_EQ_INT(ss_svm_train(split), SS_OK);
  }
  CHECK(!tu_same_bits(ss_svm_get_model(whole), ss_svm_get_model(plain), RD)); /* it fired */
  CHECK(tu_same_bits(ss_svm_get_model(whole), ss_svm_get_model(split), RD));
  CHECK(tu_same_bits(ss_svm_get_dual_variables(whole), ss_svm_get_dual_variables(split), RN));
  ss_svm_delete(whole);
  ss_svm_delete(split);
  ss_svm_delete(plain);
}

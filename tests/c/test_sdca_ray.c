/* test_sdca_ray.c -- SDCA's closing ray (sdca_ray.c): a run stopped on its
 * cap on badly scaled rows returns the best model t w~(alpha) of the ray,
 * below the zero model's objective, with statistics and scores that match
 * it; the next train continues from w~(alpha) bit for bit; a converged run
 * and a shifted model keep w~(alpha). */
#include <math.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { RN = 60, RD = 3 };

/* The label follows the small features; column 0 is noise of size 1e5, so
 * the dual steps move along it only and w~(alpha) swings far above P(0)
 * after a few epochs at C = 1e3 (lambda = 1/(C n)). */
static void make_badly_scaled(double *X, double *y) {
  TuRng rng;
  tu_rng_init(&rng, 17);
  for (int i = 0; i < RN; ++i) {
    y[i] = (i % 2) ? 1.0 : -1.0;
    X[i * RD] = 1e5 * (tu_rng_uniform(&rng) - 0.5);
    X[i * RD + 1] = 1e-2 * (y[i] + tu_rng_uniform(&rng) - 0.5);
    X[i * RD + 2] = tu_rng_uniform(&rng) - 0.5;
  }
}

static SsSvm *new_run(SsData *data, const double *X, const double *y, SsLoss loss, int64_t epochs) {
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, data, X, y, RN, RD, 1.0 / (1e3 * RN));
  if (!svm) return NULL;
  if (ss_svm_set_loss(svm, loss) != SS_OK || ss_svm_set_epsilon(svm, 0) != SS_OK ||
      ss_svm_set_max_num_iterations(svm, epochs * RN) != SS_OK) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

/* w~(alpha) = 1/(lambda n) sum_i alpha_i (x_i, 1), from the dual variables. */
static double dual_model(const SsSvm *svm, const double *X, double *w) {
  const double scale = 1.0 / (ss_svm_get_lambda(svm) * RN);
  const double *alpha = ss_svm_get_dual_variables(svm);
  double b = 0;
  memset(w, 0, RD * sizeof(double));
  for (int i = 0; i < RN; ++i) {
    for (int j = 0; j < RD; ++j) w[j] += scale * alpha[i] * X[i * RD + j];
    b += scale * alpha[i];
  }
  return b;
}

void test_sdca_ray_never_above_the_zero_model(void) {
  static double X[RN * RD], y[RN];
  make_badly_scaled(X, y);
  const SsLoss losses[3] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int l = 0; l < 3; ++l) {
    for (int64_t epochs = 1; epochs <= 16; epochs *= 2) {
      SsData data;
      SsSvm *svm = new_run(&data, X, y, losses[l], epochs);
      REQUIRE(svm);
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const SsSvmStatistics *st = ss_svm_get_statistics(svm);
      CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
      const double lambda = ss_svm_get_lambda(svm);
      const double zero = tu_objective(X, RN, RD, RD, y, (const double[RD]){0}, 0, 1, lambda, losses[l],
                                       NULL, NULL, NULL);
      const double *w = ss_svm_get_model(svm);
      const double b = ss_svm_get_bias(svm);
      const double P = tu_objective(X, RN, RD, RD, y, w, b, 1, lambda, losses[l], NULL, NULL, NULL);
      CHECK(P <= zero);
      CHECK_CLOSE(st->objective, P, 1e-9 * fabs(P));
      CHECK_CLOSE(st->duality_gap, st->objective - st->dual_objective, 1e-12);
      /* the model is t w~(alpha) for one t >= 0, no worse than w~(alpha) */
      double wa[RD];
      const double ba = dual_model(svm, X, wa);
      const double Pa = tu_objective(X, RN, RD, RD, y, wa, ba, 1, lambda, losses[l], NULL, NULL, NULL);
      CHECK(P <= Pa);
      const double t = ba != 0 ? b / ba : 1;
      CHECK(t >= 0);
      for (int j = 0; j < RD; ++j) CHECK_CLOSE(w[j], t * wa[j], 1e-9 * fabs(wa[j]) + 1e-300);
      /* the scores are the returned model's */
      double s[RN];
      CHECK_EQ_INT(ss_svm_decision_function(svm, &data, s), SS_OK);
      CHECK(tu_same_bits(s, ss_svm_get_scores(svm), RN));
      ss_svm_delete(svm);
    }
  }
}

/* On this problem the ray is taken: w~(alpha) after 4 epochs is above the
 * zero model (what the test above guards against). */
void test_sdca_ray_is_needed_here(void) {
  static double X[RN * RD], y[RN];
  make_badly_scaled(X, y);
  SsData data;
  SsSvm *svm = new_run(&data, X, y, SS_LOSS_HINGE2, 4);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const double lambda = ss_svm_get_lambda(svm);
  double wa[RD];
  const double ba = dual_model(svm, X, wa);
  const double Pa = tu_objective(X, RN, RD, RD, y, wa, ba, 1, lambda, SS_LOSS_HINGE2, NULL, NULL, NULL);
  CHECK(Pa > 1.0); /* the zero model's squared hinge loss */
  const double P = ss_svm_get_statistics(svm)->objective;
  CHECK(P <= 1.0 && P < Pa);
  ss_svm_delete(svm);
}

/* The model, bias and decision function read before the statistics are
 * the returned model's (the readers make the closing diagnostic, and with
 * it the ray), the same bits as read after them. */
void test_sdca_ray_whatever_is_read_first(void) {
  static double X[RN * RD], y[RN];
  make_badly_scaled(X, y);
  SsData d1, d2;
  SsSvm *model_first = new_run(&d1, X, y, SS_LOSS_HINGE2, 4);
  SsSvm *stats_first = new_run(&d2, X, y, SS_LOSS_HINGE2, 4);
  REQUIRE(model_first && stats_first);
  CHECK_EQ_INT(ss_svm_train(model_first), SS_OK);
  CHECK_EQ_INT(ss_svm_train(stats_first), SS_OK);
  double w[RD], scores[RN], expected[RN];
  memcpy(w, ss_svm_get_model(model_first), sizeof w);
  const double b = ss_svm_get_bias(model_first);
  (void)ss_svm_get_statistics(stats_first);
  CHECK(tu_same_bits(w, ss_svm_get_model(stats_first), RD));
  CHECK(b == ss_svm_get_bias(stats_first));
  /* the ray was taken (w~(alpha) is above the zero model here) */
  double wa[RD];
  const double ba = dual_model(stats_first, X, wa);
  CHECK(b != ba);
  /* and the decision function, read first, scores that model */
  SsData d3, d4;
  SsSvm *scores_first = new_run(&d3, X, y, SS_LOSS_HINGE2, 4);
  REQUIRE(scores_first);
  CHECK_EQ_INT(ss_svm_train(scores_first), SS_OK);
  ss_data_init_dense(&d4, SS_DTYPE_FLOAT64, X, RN, RD, RD);
  CHECK_EQ_INT(ss_svm_decision_function(scores_first, &d4, scores), SS_OK);
  CHECK_EQ_INT(ss_svm_decision_function(stats_first, &d4, expected), SS_OK);
  CHECK(tu_same_bits(scores, expected, RN));
  ss_svm_delete(model_first);
  ss_svm_delete(stats_first);
  ss_svm_delete(scores_first);
}

/* A run read in the middle (ray taken) continues as one that was not. */
void test_sdca_ray_split_equals_whole(void) {
  static double X[RN * RD], y[RN];
  make_badly_scaled(X, y);
  SsData d1, d2;
  SsSvm *whole = new_run(&d1, X, y, SS_LOSS_HINGE, 8);
  SsSvm *split = new_run(&d2, X, y, SS_LOSS_HINGE, 3);
  REQUIRE(whole && split);
  CHECK_EQ_INT(ss_svm_train(whole), SS_OK);
  CHECK_EQ_INT(ss_svm_train(split), SS_OK);
  const double first = ss_svm_get_statistics(split)->objective; /* closes on the ray */
  CHECK(first < 1.0);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(split, 5 * RN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(split), SS_OK);
  CHECK(tu_same_bits(ss_svm_get_dual_variables(whole), ss_svm_get_dual_variables(split), RN));
  const SsSvmStatistics *a = ss_svm_get_statistics(whole), *b = ss_svm_get_statistics(split);
  CHECK(tu_same_bits(&a->objective, &b->objective, 1));
  CHECK(tu_same_bits(&a->dual_objective, &b->dual_objective, 1));
  CHECK(tu_same_bits(ss_svm_get_model(whole), ss_svm_get_model(split), RD));
  CHECK(ss_svm_get_bias(whole) == ss_svm_get_bias(split));
  ss_svm_delete(whole);
  ss_svm_delete(split);
}

/* A converged run and a shifted model keep w~(alpha). */
void test_sdca_ray_not_taken(void) {
  double X[40 * 2], y[40];
  tu_make_blobs(X, y, 40, 2, 1.0, 3);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, 40, 2, 0.1);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-6), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 1000 * 40), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_get_statistics(svm)->status, SS_SVM_STATUS_CONVERGED);
  double w[2];
  memcpy(w, ss_svm_get_model(svm), sizeof w);
  const double b = ss_svm_get_bias(svm);
  /* the same dual variables give the same model: no ray in between */
  CHECK_EQ_INT(ss_svm_set_dual_variables(svm, ss_svm_get_dual_variables(svm)), SS_OK);
  for (int j = 0; j < 2; ++j) CHECK_CLOSE(ss_svm_get_model(svm)[j], w[j], 1e-12 * (1 + fabs(w[j])));
  CHECK_CLOSE(ss_svm_get_bias(svm), b, 1e-12 * (1 + fabs(b)));
  ss_svm_delete(svm);

  /* shifted far off: capped runs keep the shifted w~(alpha) */
  static double Xb[RN * RD], yb[RN];
  make_badly_scaled(Xb, yb);
  SsSvm *shifted = new_run(&data, Xb, yb, SS_LOSS_HINGE, 2);
  REQUIRE(shifted);
  const double shift[RD] = {1e-3, 50.0, -3.0};
  CHECK_EQ_INT(ss_svm_shift_sdca_model(shifted, shift, 0.0), SS_OK);
  CHECK_EQ_INT(ss_svm_train(shifted), SS_OK);
  (void)ss_svm_get_statistics(shifted);
  double wa[RD];
  const double ba = dual_model(shifted, Xb, wa);
  for (int j = 0; j < RD; ++j)
    CHECK_CLOSE(ss_svm_get_model(shifted)[j], wa[j] + shift[j], 1e-9 * (fabs(wa[j]) + fabs(shift[j])));
  CHECK_CLOSE(ss_svm_get_bias(shifted), ba, 1e-9 * (1 + fabs(ba)));
  ss_svm_delete(shifted);
}

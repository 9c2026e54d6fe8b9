/* test_sdca_best.c -- SDCA's best model (sdca_best.c): a converged hinge
 * run whose last model is above one an earlier diagnostic measured returns
 * that earlier one, with statistics and scores that match it and a gap
 * certificate P_best - D(alpha) within the tolerance; the next train
 * continues from w~(alpha) bit for bit, as a run that returned nothing
 * else does. */
#include <math.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { BN = 200, BD = 5, MOST_SEEN = 256 };

/* Seed 1, separation 0.5, C = 0.1, epsilon 1e-3, a diagnostic every epoch:
 * the run converges at epoch 5, whose w~(alpha) is 6.7e-4 above the model
 * of an earlier epoch. */
static const double BEST_C = 0.1, BEST_EPSILON = 1e-3;

typedef struct {
  double objective[MOST_SEEN];
  int count;
} Seen;

/* The objective of every diagnostic, as the statistics give it. */
static int record(const SsSvm *svm, void *user) {
  Seen *seen = user;
  if (seen->count < MOST_SEEN) seen->objective[seen->count++] = ss_svm_get_statistics(svm)->objective;
  return 0;
}

static SsSvm *new_run(SsData *data, const double *X, const double *y, Seen *seen) {
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, data, X, y, BN, BD, 1.0 / (BEST_C * BN));
  if (!svm) return NULL;
  if (ss_svm_set_bias_multiplier(svm, 1.0) != SS_OK || ss_svm_set_epsilon(svm, BEST_EPSILON) != SS_OK ||
      ss_svm_set_diagnostic_frequency(svm, BN) != SS_OK ||
      (seen && ss_svm_set_diagnostic_function(svm, record, seen) != SS_OK)) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

/* w~(alpha) = 1/(lambda n) sum_i alpha_i (x_i, 1), and D(alpha) for the hinge. */
static double dual_model(const SsSvm *svm, const double *X, const double *y, double *w, double *dual) {
  const double lambda = ss_svm_get_lambda(svm), scale = 1.0 / (lambda * BN);
  const double *alpha = ss_svm_get_dual_variables(svm);
  double b = 0, linear = 0;
  memset(w, 0, BD * sizeof(double));
  for (int i = 0; i < BN; ++i) {
    for (int j = 0; j < BD; ++j) w[j] += scale * alpha[i] * X[i * BD + j];
    b += scale * alpha[i];
    linear += alpha[i] * y[i];
  }
  double norm2 = b * b;
  for (int j = 0; j < BD; ++j) norm2 += w[j] * w[j];
  *dual = linear / BN - 0.5 * lambda * norm2;
  return b;
}

void test_sdca_best_is_returned_and_certified(void) {
  static double X[BN * BD], y[BN];
  tu_make_blobs(X, y, BN, BD, 0.5, 1);
  SsData data;
  Seen seen = {.count = 0};
  SsSvm *svm = new_run(&data, X, y, &seen);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  REQUIRE(seen.count >= 2 && seen.count < MOST_SEEN);
  const double lambda = ss_svm_get_lambda(svm);

  /* The model returned: its objective is the statistics' (regularizer and
   * loss too), and its scores are its decision values. */
  const double *w = ss_svm_get_model(svm);
  const double b = ss_svm_get_bias(svm);
  double regularizer, loss;
  const double P = tu_objective(X, BN, BD, BD, y, w, b, 1, lambda, SS_LOSS_HINGE, NULL, &regularizer, &loss);
  CHECK_CLOSE(st->objective, P, 1e-12 * P);
  CHECK_CLOSE(st->regularizer, regularizer, 1e-12 * P);
  CHECK_CLOSE(st->loss, loss, 1e-12 * P);
  const double *scores = ss_svm_get_scores(svm);
  REQUIRE(scores);
  for (int i = 0; i < BN; ++i) {
    double s = b;
    for (int j = 0; j < BD; ++j) s += w[j] * X[i * BD + j];
    CHECK_CLOSE(scores[i], s, 1e-12 * (1 + fabs(s)));
  }

  /* It is not w~(alpha), whose objective is higher: the least of the
   * diagnostics', the last one (the call at the stop) seeing it. */
  double wa[BD], dual;
  const double ba = dual_model(svm, X, y, wa, &dual);
  const double Pa = tu_objective(X, BN, BD, BD, y, wa, ba, 1, lambda, SS_LOSS_HINGE, NULL, NULL, NULL);
  CHECK(P < Pa * (1 - 1e-4));
  double least = Pa;
  for (int k = 0; k + 1 < seen.count; ++k) least = fmin(least, seen.objective[k]);
  CHECK(P <= least * (1 + 1e-12)); /* (or the tail average of the hinge: lower still) */
  CHECK(tu_same_bits(&seen.objective[seen.count - 1], &st->objective, 1));

  /* The certificate: D(alpha) of the last diagnostic, the gap P_best - D
   * within the tolerance (so P <= (1 + epsilon) P*), where w~(alpha)'s own
   * gap is not. */
  CHECK_CLOSE(st->dual_objective, dual, 1e-12 * P);
  CHECK_CLOSE(st->duality_gap, st->objective - st->dual_objective, 1e-15);
  CHECK(st->duality_gap >= 0);
  CHECK(st->duality_gap <= BEST_EPSILON * st->dual_objective);
  CHECK(Pa - dual > BEST_EPSILON * dual);
  ss_svm_delete(svm);
}

/* Returning the best model does not touch the state: a run that returned
 * it and continues makes the same steps as one stopped at the same
 * iteration by its cap, bit for bit. */
void test_sdca_best_warm_start_continues_from_alpha(void) {
  static double X[BN * BD], y[BN];
  tu_make_blobs(X, y, BN, BD, 0.5, 1);
  SsData d1, d2;
  SsSvm *best = new_run(&d1, X, y, NULL);
  SsSvm *capped = new_run(&d2, X, y, NULL);
  REQUIRE(best && capped);
  CHECK_EQ_INT(ss_svm_train(best), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(best);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  const int64_t stop = st->iteration;
  CHECK_EQ_INT(ss_svm_set_epsilon(capped, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(capped, stop), SS_OK);
  CHECK_EQ_INT(ss_svm_train(capped), SS_OK);
  CHECK(tu_same_bits(ss_svm_get_dual_variables(best), ss_svm_get_dual_variables(capped), BN));
  /* (the best model differs from w~(alpha): the previous test) */
  CHECK(!tu_same_bits(ss_svm_get_model(best), ss_svm_get_model(capped), BD));

  for (int round = 0; round < 2; ++round) {
    SsSvm *svm = round ? capped : best;
    CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 7 * BN + 13), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  }
  CHECK(tu_same_bits(ss_svm_get_dual_variables(best), ss_svm_get_dual_variables(capped), BN));
  CHECK(tu_same_bits(ss_svm_get_model(best), ss_svm_get_model(capped), BD));
  CHECK(ss_svm_get_bias(best) == ss_svm_get_bias(capped));
  const SsSvmStatistics *a = ss_svm_get_statistics(best), *c = ss_svm_get_statistics(capped);
  CHECK(tu_same_bits(&a->objective, &c->objective, 1));
  CHECK(tu_same_bits(&a->dual_objective, &c->dual_objective, 1));

  /* A rebuild from the dual variables gives w~(alpha) too. */
  SsSvm *again = new_run(&d1, X, y, NULL);
  REQUIRE(again);
  CHECK_EQ_INT(ss_svm_train(again), SS_OK);
  CHECK_EQ_INT(ss_svm_set_lambda(again, 1.0 / (BEST_C * BN)), SS_OK); /* rebuilds at the next train */
  CHECK_EQ_INT(ss_svm_set_dual_variables(again, ss_svm_get_dual_variables(again)), SS_OK);
  double wa[BD], dual;
  const double ba = dual_model(again, X, y, wa, &dual);
  for (int j = 0; j < BD; ++j) CHECK_CLOSE(ss_svm_get_model(again)[j], wa[j], 1e-12 * (1 + fabs(wa[j])));
  CHECK_CLOSE(ss_svm_get_bias(again), ba, 1e-12 * (1 + fabs(ba)));
  ss_svm_delete(again);
  ss_svm_delete(best);
  ss_svm_delete(capped);
}

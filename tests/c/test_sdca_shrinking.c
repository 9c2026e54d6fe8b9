/* test_sdca_shrinking.c -- SDCA's shrinking heuristic: it skips examples yet
 * reaches the optimum of the unshrunk solver, keeps repeated training exact,
 * and its state resets when it should. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { SN = 600, SD = 4 };

/* Well separated blobs: most examples end far from the margin (alpha = 0),
 * a few inside it (at the upper bound), which is what shrinking exploits. */
static void make_separated(double *X, double *y) {
  tu_make_blobs(X, y, SN, SD, 1.2, 99);
}

/* Overlapping blobs: many examples at the upper bound, some shrunk early
 * that must come back. */
static void make_overlapping(double *X, double *y) {
  tu_make_blobs(X, y, SN, SD, 0.3, 7);
}

/* The largest number of shrunk examples seen at a diagnostic. */
static int record_shrunk(const SsSvm *svm, void *user) {
  int64_t *most = user, now = ss_svm_get_num_shrunk(svm);
  if (now > *most) *most = now;
  return 0;
}

static SsSvm *new_shrinking_sdca(SsData *data, const double *X, const double *y, SsLoss loss,
                                 const double *weights, int shrinking) {
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, data, X, y, SN, SD, 0.01);
  if (!svm) return NULL;
  if (ss_svm_set_loss(svm, loss) != SS_OK || ss_svm_set_shrinking(svm, shrinking) != SS_OK ||
      (weights && ss_svm_set_weights(svm, weights) != SS_OK) || ss_svm_set_seed(svm, 5) != SS_OK) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

void test_sdca_shrinking_reaches_same_optimum(void) {
  static double X[SN * SD], y[SN], c[SN];
  for (int i = 0; i < SN; ++i) c[i] = 0.25 + (i % 7) * 0.5; /* uneven weights */
  const SsLoss losses[2] = {SS_LOSS_HINGE, SS_LOSS_HINGE2};
  for (int problem = 0; problem < 4; ++problem) {
    const int l = problem % 2;
    if (problem < 2) make_separated(X, y); else make_overlapping(X, y);
    for (int weighted = 0; weighted < 2; ++weighted) {
      double P[2];
      int64_t most_shrunk[2] = {0, 0};
      for (int on = 0; on < 2; ++on) {
        SsData data;
        SsSvm *svm = new_shrinking_sdca(&data, X, y, losses[l], weighted ? c : NULL, on);
        REQUIRE(svm);
        CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-11), SS_OK);
        CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 5000 * (int64_t)SN), SS_OK);
        /* SDCA's own path: at 1e-11 the stall rule would hand the hinge to
         * newton_hinge.c before shrinking had its say */
        CHECK_EQ_INT(ss_svm_set_newton_fallback(svm, 0), SS_OK);
        CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, record_shrunk, &most_shrunk[on]), SS_OK);
        CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(svm, SN), SS_OK); /* look every epoch */
        CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
        const SsSvmStatistics *st = ss_svm_get_statistics(svm);
        CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
        CHECK(st->duality_gap <= 1e-11 * st->dual_objective);
        P[on] = st->objective;
        /* the reported objective is the model's, computed independently */
        CHECK_REL(P[on], tu_objective(X, SN, SD, SD, y, ss_svm_get_model(svm), ss_svm_get_bias(svm),
                                      1.0, 0.01, losses[l], weighted ? c : NULL, NULL, NULL), 1e-12);
        ss_svm_delete(svm);
      }
      CHECK_EQ_INT(most_shrunk[0], 0);
      /* shrinking did skip examples (few for the squared hinge on overlapping
       * classes, whose examples rarely sit at 0) */
      CHECK(most_shrunk[1] > (problem == 3 ? 0 : SN / 2));
      CHECK_CLOSE(P[1], P[0], 2e-11);
    }
  }
}

void test_sdca_shrinking_split_equals_whole(void) {
  static double X[SN * SD], y[SN];
  make_separated(X, y);
  const int64_t half = 6 * SN + 123; /* mid-epoch, after shrinking began */
  SsData d1, d2;
  SsSvm *one = new_shrinking_sdca(&d1, X, y, SS_LOSS_HINGE, NULL, 1);
  SsSvm *two = new_shrinking_sdca(&d2, X, y, SS_LOSS_HINGE, NULL, 1);
  REQUIRE(one && two);
  CHECK_EQ_INT(ss_svm_set_epsilon(one, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_epsilon(two, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(one, 2 * half), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(two, half), SS_OK);
  CHECK_EQ_INT(ss_svm_train(one), SS_OK);
  CHECK_EQ_INT(ss_svm_train(two), SS_OK);
  CHECK(ss_svm_get_num_shrunk(two) > 0);
  CHECK_EQ_INT(ss_svm_train(two), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(two), 2 * half);
  CHECK(tu_same_bits(ss_svm_get_model(one), ss_svm_get_model(two), SD));
  CHECK(ss_svm_get_bias(one) == ss_svm_get_bias(two));
  CHECK(tu_same_bits(ss_svm_get_dual_variables(one), ss_svm_get_dual_variables(two), SN));
  CHECK_EQ_INT(ss_svm_get_num_shrunk(one), ss_svm_get_num_shrunk(two));
  ss_svm_delete(one);
  ss_svm_delete(two);
}

void test_sdca_shrinking_state(void) {
  static double X[SN * SD], y[SN];
  make_separated(X, y);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, SN, SD, 0.01);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_get_shrinking(svm), 1); /* the default */
  CHECK_EQ_INT(ss_svm_get_num_shrunk(svm), 0);
  CHECK_EQ_INT(ss_svm_set_shrinking(NULL, 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 6 * SN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  int64_t shrunk = ss_svm_get_num_shrunk(svm);
  CHECK(shrunk > 0);
  /* setting the dual variables (here: the same ones) makes every example active */
  double *alpha = malloc(SN * sizeof(double));
  REQUIRE(alpha);
  memcpy(alpha, ss_svm_get_dual_variables(svm), SN * sizeof(double));
  CHECK_EQ_INT(ss_svm_set_dual_variables(svm, alpha), SS_OK);
  CHECK_EQ_INT(ss_svm_get_num_shrunk(svm), 0);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(ss_svm_get_num_shrunk(svm) > 0);
  /* ... and so does turning shrinking off (and on) */
  CHECK_EQ_INT(ss_svm_set_shrinking(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_get_shrinking(svm), 0);
  CHECK_EQ_INT(ss_svm_get_num_shrunk(svm), 0);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_get_num_shrunk(svm), 0);
  CHECK_EQ_INT(ss_svm_set_shrinking(svm, 7), SS_OK);
  CHECK_EQ_INT(ss_svm_get_shrinking(svm), 1);
  /* a change of loss restarts the dual variables, and shrinking with them
   * (shrinking on again: examples are shrunk at some epoch's end; at the
   * last one all may be active again, after an unshrinking) */
  int64_t most_shrunk = 0;
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, record_shrunk, &most_shrunk), SS_OK);
  CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(svm, SN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(most_shrunk > 0);
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, NULL, NULL), SS_OK);
  CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_HINGE2), SS_OK);
  CHECK_EQ_INT(ss_svm_get_num_shrunk(svm), 0);
  /* the logistic loss never shrinks */
  CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_LOGISTIC), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_get_num_shrunk(svm), 0);
  free(alpha);
  ss_svm_delete(svm);

  /* SGD refuses the SDCA knob, naming both solvers, and never shrinks */
  SsSvm *sgd = tu_new_dense(SS_SOLVER_SGD, &data, X, y, SN, SD, 0.01);
  REQUIRE(sgd);
  CHECK_EQ_INT(ss_svm_set_shrinking(sgd, 1), SS_ERR_BAD_STATE);
  CHECK(strcmp(ss_svm_get_last_error(sgd), "set_shrinking applies to solver sdca, this object's solver is sgd") == 0);
  CHECK_EQ_INT(ss_svm_train(sgd), SS_OK);
  CHECK_EQ_INT(ss_svm_get_num_shrunk(sgd), 0);
  ss_svm_delete(sgd);
}

static const SsVisitOrder visit_orders[3] = {SS_VISIT_PERMUTATION, SS_VISIT_BLOCKS,
                                             SS_VISIT_DATA_ORDER};

/* Two hinge SDCA objects on (X, y), shrinking off or on as given, in visit
 * order `order`, with epsilon 0; false (none left) if one cannot be made. */
static bool new_pair(SsData data[2], const double *X, const double *y, SsVisitOrder order,
                     const int shrinking[2], SsSvm *svm[2]) {
  for (int s = 0; s < 2; ++s) {
    svm[s] = new_shrinking_sdca(&data[s], X, y, SS_LOSS_HINGE, NULL, shrinking[s]);
    if (!svm[s] || ss_svm_set_visit_order(svm[s], order) != SS_OK || ss_svm_set_epsilon(svm[s], 0) != SS_OK) {
      ss_svm_delete(svm[0]);
      if (s == 1) ss_svm_delete(svm[1]);
      return false;
    }
  }
  return true;
}

/* With every example active (the first epoch), the active list is the
 * identity and its shuffle is the epoch's permutation: the same visits as
 * without shrinking, bit for bit, whatever the visit order. */
void test_sdca_shrinking_first_epoch_is_unshrunk(void) {
  static double X[SN * SD], y[SN];
  make_overlapping(X, y);
  const int shrinking[2] = {0, 1};
  for (int k = 0; k < 3; ++k) {
    SsData data[2];
    SsSvm *svm[2];
    REQUIRE(new_pair(data, X, y, visit_orders[k], shrinking, svm));
    for (int s = 0; s < 2; ++s) {
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm[s], SN), SS_OK);
      CHECK_EQ_INT(ss_svm_train(svm[s]), SS_OK);
    }
    CHECK(tu_same_bits(ss_svm_get_dual_variables(svm[0]), ss_svm_get_dual_variables(svm[1]), SN));
    ss_svm_delete(svm[0]);
    ss_svm_delete(svm[1]);
  }
}

/* An epoch's visits do not depend on where the run is cut: three train
 * calls ending at uneven points inside epochs where examples are shrunk
 * (the positions map onto the active list) equal one call, in every
 * visit order; and the examples shrunk in each order are skipped, yet the
 * run reaches the optimum. */
void test_sdca_shrinking_cuts_and_orders(void) {
  static double X[SN * SD], y[SN];
  make_separated(X, y);
  const int64_t cuts[3] = {5 * SN + 7, 9 * SN + SN / 3, 14 * SN + SN - 1};
  const int shrinking[2] = {1, 1};
  for (int k = 0; k < 3; ++k) {
    SsData data[2];
    SsSvm *svm[2];
    REQUIRE(new_pair(data, X, y, visit_orders[k], shrinking, svm));
    SsSvm *one = svm[0], *cut = svm[1];
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(one, cuts[2]), SS_OK);
    CHECK_EQ_INT(ss_svm_train(one), SS_OK);
    int64_t done = 0, most_shrunk = 0;
    for (int c = 0; c < 3; ++c) {
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(cut, cuts[c] - done), SS_OK);
      CHECK_EQ_INT(ss_svm_train(cut), SS_OK);
      done = cuts[c];
      if (ss_svm_get_num_shrunk(cut) > most_shrunk) most_shrunk = ss_svm_get_num_shrunk(cut);
    }
    CHECK(most_shrunk > SN / 2);
    CHECK(tu_same_bits(ss_svm_get_dual_variables(one), ss_svm_get_dual_variables(cut), SN));
    CHECK(tu_same_bits(ss_svm_get_model(one), ss_svm_get_model(cut), SD));
    /* on to the optimum */
    CHECK_EQ_INT(ss_svm_set_epsilon(one, 1e-10), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(one, 3000 * (int64_t)SN), SS_OK);
    CHECK_EQ_INT(ss_svm_train(one), SS_OK);
    CHECK_EQ_INT(ss_svm_get_statistics(one)->status, SS_SVM_STATUS_CONVERGED);
    ss_svm_delete(one);
    ss_svm_delete(cut);
  }
}

/* The default schedule (a diagnostic budget, and the gate that asks for a
 * diagnostic when the steps' estimate of the gap is small): a "converged"
 * stop is certified by the gap of all n examples, so the model's objective,
 * computed here independently, is within (1 + tol) of the optimum (that of
 * a run without shrinking to a gap of 1e-11), for both shrinking losses,
 * with and without weights. */
void test_sdca_shrinking_gated_stop_is_certified(void) {
  static double X[SN * SD], y[SN], c[SN];
  for (int i = 0; i < SN; ++i) c[i] = 0.25 + (i % 7) * 0.5;
  make_overlapping(X, y);
  const SsLoss losses[2] = {SS_LOSS_HINGE, SS_LOSS_HINGE2};
  const double tols[2] = {1e-3, 1e-5};
  for (int l = 0; l < 2; ++l) {
    for (int weighted = 0; weighted < 2; ++weighted) {
      const double *w = weighted ? c : NULL;
      SsData d0;
      SsSvm *exact = new_shrinking_sdca(&d0, X, y, losses[l], w, 0);
      REQUIRE(exact);
      CHECK_EQ_INT(ss_svm_set_epsilon(exact, 1e-11), SS_OK);
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(exact, 20000 * (int64_t)SN), SS_OK);
      CHECK_EQ_INT(ss_svm_train(exact), SS_OK);
      const SsSvmStatistics *st0 = ss_svm_get_statistics(exact);
      CHECK_EQ_INT(st0->status, SS_SVM_STATUS_CONVERGED);
      const double lower = st0->dual_objective; /* <= P* */
      for (int k = 0; k < 2; ++k) {
        SsData d1;
        SsSvm *svm = new_shrinking_sdca(&d1, X, y, losses[l], w, 1);
        REQUIRE(svm);
        CHECK_EQ_INT(ss_svm_set_epsilon(svm, tols[k]), SS_OK);
        CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 20000 * (int64_t)SN), SS_OK);
        CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
        const SsSvmStatistics *st = ss_svm_get_statistics(svm);
        CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
        const double P = tu_objective(X, SN, SD, SD, y, ss_svm_get_model(svm), ss_svm_get_bias(svm), 1.0,
                                      0.01, losses[l], w, NULL, NULL);
        CHECK(P <= (1 + tols[k]) * lower * (1 + 1e-12));
        CHECK(st->duality_gap <= tols[k] * st->dual_objective);
        ss_svm_delete(svm);
      }
      ss_svm_delete(exact);
    }
  }
}

/* test_sdca_shift.c -- ss_svm_shift_sdca_model (sdca_shift.c): its argument
 * checks, the shifted model, that training steps from the shifted model, and
 * that a rebuild from the dual variables forgets the shift. */
#include <math.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { HN = 8, HD = 2 };

/* x_i = (y_i, 0.5 y_i): a shift w = (10, 0) classifies every row with margin 10. */
static void make_line(double *X, double *y) {
  for (int i = 0; i < HN; ++i) {
    y[i] = (i % 2) ? 1.0 : -1.0;
    X[i * HD] = y[i];
    X[i * HD + 1] = 0.5 * y[i];
  }
}

void test_sdca_shift_rejects_and_keeps_state(void) {
  static double X[HN * HD], y[HN];
  make_line(X, y);
  SsData data;
  SsSvm *sdca = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, HN, HD, 0.1);
  SsSvm *sgd = tu_new_dense(SS_SOLVER_SGD, &data, X, y, HN, HD, 0.1);
  REQUIRE(sdca && sgd);
  const double shift[HD] = {1.0, 2.0}, bad[HD] = {1.0, NAN};
  CHECK_EQ_INT(ss_svm_shift_sdca_model(NULL, shift, 0.0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_shift_sdca_model(sdca, NULL, 0.0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_shift_sdca_model(sdca, bad, 0.0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_shift_sdca_model(sdca, shift, INFINITY), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_shift_sdca_model(sgd, shift, 0.0), SS_ERR_BAD_STATE);
  const double *w = ss_svm_get_model(sdca);
  CHECK(w[0] == 0 && w[1] == 0 && ss_svm_get_bias(sdca) == 0); /* unchanged */
  ss_svm_delete(sdca);
  ss_svm_delete(sgd);
}

void test_sdca_shift_moves_the_model_and_the_steps(void) {
  static double X[HN * HD], y[HN], alpha[HN];
  make_line(X, y);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, HN, HD, 0.1);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(svm, 1.0), SS_OK);
  for (int i = 0; i < HN; ++i) alpha[i] = 0.25 * y[i];
  CHECK_EQ_INT(ss_svm_set_dual_variables(svm, alpha), SS_OK);
  /* w(alpha) = 1/(lambda n) sum alpha_i x_i = (0.25 * 8 / 0.8, 0.5 * that); b(alpha) = 0 */
  const double *w = ss_svm_get_model(svm);
  CHECK_CLOSE(w[0], 2.5, 1e-12);
  CHECK_CLOSE(w[1], 1.25, 1e-12);
  const double shift[HD] = {7.5, -1.25};
  CHECK_EQ_INT(ss_svm_shift_sdca_model(svm, shift, 0.5), SS_OK);
  w = ss_svm_get_model(svm);
  CHECK_CLOSE(w[0], 10.0, 1e-12);
  CHECK_CLOSE(w[1], 0.0, 1e-12);
  CHECK_CLOSE(ss_svm_get_bias(svm), 0.5, 1e-12);
  /* Every shifted margin y_i (10 y_i + 0.5) >= 9.5 > 1: the hinge steps take
   * every alpha_i to 0, and the model by exactly alpha's old contribution. */
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0.0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 3 * HN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const double *a = ss_svm_get_dual_variables(svm);
  for (int i = 0; i < HN; ++i) CHECK(a[i] == 0);
  w = ss_svm_get_model(svm);
  CHECK_CLOSE(w[0], 7.5, 1e-12);
  CHECK_CLOSE(w[1], -1.25, 1e-12);
  CHECK_CLOSE(ss_svm_get_bias(svm), 0.5, 1e-12);
  /* A rebuild from the dual variables forgets the shift. */
  CHECK_EQ_INT(ss_svm_set_dual_variables(svm, alpha), SS_OK);
  w = ss_svm_get_model(svm);
  CHECK_CLOSE(w[0], 2.5, 1e-12);
  CHECK_CLOSE(ss_svm_get_bias(svm), 0.0, 1e-12);
  ss_svm_delete(svm);
}

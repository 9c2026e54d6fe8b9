/* test_setters.c -- defaults documented in svm.h, and every setter's rejection
 * of out-of-range values with SS_ERR_BAD_ARG, leaving the getter unchanged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { SN = 10, SD = 3 };

typedef struct Fixture {
  double X[SN * SD];
  double y[SN];
  SsData data;
  SsSvm *svm;
} Fixture;

static int fixture_init(Fixture *f, SsSolver solver, double lambda) {
  tu_make_blobs(f->X, f->y, SN, SD, 1.0, 21);
  f->svm = tu_new_dense(solver, &f->data, f->X, f->y, SN, SD, lambda);
  return f->svm != NULL;
}

void test_defaults(void) {
  Fixture f;
  REQUIRE(fixture_init(&f, SS_SOLVER_SGD, 0.125));
  SsSvm *s = f.svm;
  CHECK_EQ_INT(ss_svm_get_solver(s), SS_SOLVER_SGD);
  CHECK_CLOSE(ss_svm_get_lambda(s), 0.125, 0.0);
  CHECK_CLOSE(ss_svm_get_epsilon(s), 1e-2, 0.0);
  CHECK_CLOSE(ss_svm_get_bias_multiplier(s), 1.0, 0.0);
  CHECK_CLOSE(ss_svm_get_bias_learning_rate(s), 1.0, 0.0);
  CHECK_CLOSE(ss_svm_get_t0(s), 16.0, 0.0);                  /* max(2, 2/lambda) */
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), 100 * SN);   /* max(100 n, ceil(80)) */
  CHECK_EQ_INT(ss_svm_get_diagnostic_frequency(s), SN);
  CHECK_EQ_INT(ss_svm_get_loss(s), SS_LOSS_HINGE);
  CHECK(ss_svm_get_seed(s) == 0);
  CHECK_EQ_INT(ss_svm_get_iteration_number(s), 0);
  CHECK_EQ_INT(ss_svm_get_dimension(s), SD);
  CHECK_EQ_INT(ss_svm_get_num_data(s), SN);
  CHECK(ss_svm_get_weights(s) == NULL);
  CHECK(ss_svm_get_scores(s) == NULL);
  CHECK(ss_svm_get_bias(s) == 0.0);
  const double *w = ss_svm_get_model(s);
  REQUIRE(w != NULL);
  for (int j = 0; j < SD; ++j) CHECK(w[j] == 0.0);
  const SsSvmStatistics *st = ss_svm_get_statistics(s);
  REQUIRE(st != NULL);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_UNTRAINED);
  CHECK_EQ_INT(st->iteration, 0);
  ss_svm_delete(s);
}

void test_defaults_follow_lambda(void) {
  Fixture f;
  REQUIRE(fixture_init(&f, SS_SOLVER_SGD, 4.0));
  SsSvm *s = f.svm;
  CHECK_CLOSE(ss_svm_get_t0(s), 2.0, 0.0);               /* max(2, 0.5) */
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), 100 * SN); /* max(100 n, ceil(2.5)) */
  CHECK_EQ_INT(ss_svm_set_lambda(s, 0.003), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 2.0 / 0.003, 1e-9);
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), 3334);  /* ceil(3333.33) > 100 n */
  CHECK_EQ_INT(ss_svm_set_lambda(s, 0.5), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 4.0, 0.0);
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), 100 * SN);
  /* 10/lambda adds at most SS_SVM_DEFAULT_MAX_EPOCHS epochs: at lambda =
   * 1e-12 the cap was 1e13 iterations (days of steps), whatever n. */
  CHECK_EQ_INT(ss_svm_set_lambda(s, 1.0 / 512), SS_OK);
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), 5120); /* 10/lambda: 512 epochs < 1000 */
  CHECK_EQ_INT(ss_svm_set_lambda(s, 1e-12), SS_OK);
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), SS_SVM_DEFAULT_MAX_EPOCHS * SN);
  CHECK_EQ_INT(ss_svm_set_lambda(s, SS_LAMBDA_MIN), SS_OK); /* 10/lambda past INT64_MAX */
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), SS_SVM_DEFAULT_MAX_EPOCHS * SN);
  CHECK_EQ_INT(ss_svm_set_lambda(s, 0.5), SS_OK);
  /* Once set, t0 and the cap no longer follow lambda. */
  CHECK_EQ_INT(ss_svm_set_t0(s, 7.5), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(s, 123), SS_OK);
  CHECK_EQ_INT(ss_svm_set_lambda(s, 0.01), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 7.5, 0.0);
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), 123);
  /* unset_t0 restores the default, which follows lambda again. */
  CHECK_EQ_INT(ss_svm_unset_t0(s), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 200.0, 1e-9);
  CHECK_EQ_INT(ss_svm_set_lambda(s, 0.1), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 20.0, 1e-9);
  ss_svm_delete(s);
}

/* Default t0 = max(2, 2/lambda, L/lambda) with L = 2 R^2 (squared hinge),
 * R^2/4 (logistic), 0 (hinge), R^2 = max_i ||x_i||^2 + B^2. */
void test_default_t0_follows_loss(void) {
  enum { N = 4, D = 2 };
  /* Row norms^2: 1.25, 18, 0.5, 4.25, and B = 1 -> R^2 = 18 + 1. */
  double X[N * D] = {1.0, 0.5, 3.0, -3.0, -0.5, 0.5, 2.0, 0.5};
  double y[N] = {1, -1, 1, -1};
  const double R2 = 19.0;
  SsData data;
  SsSvm *s = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.5);
  REQUIRE(s != NULL);
  CHECK_CLOSE(ss_svm_get_t0(s), 4.0, 1e-12);                 /* hinge: 2/lambda */
  CHECK_EQ_INT(ss_svm_set_loss(s, SS_LOSS_HINGE2), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 2.0 * R2 / 0.5, 1e-9);        /* 76 */
  CHECK_EQ_INT(ss_svm_set_loss(s, SS_LOSS_LOGISTIC), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 0.25 * R2 / 0.5, 1e-9);       /* 9.5 */
  CHECK_EQ_INT(ss_svm_set_lambda(s, 1.0), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 0.25 * R2 / 1.0, 1e-9);       /* 4.75 > 2/lambda = 2 */
  CHECK_EQ_INT(ss_svm_set_lambda(s, 10.0), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 2.0, 1e-12);                  /* max(2, 0.2, 0.475) */
  /* An explicit t0 wins over every default. */
  CHECK_EQ_INT(ss_svm_set_t0(s, 3.5), SS_OK);
  CHECK_EQ_INT(ss_svm_set_loss(s, SS_LOSS_HINGE2), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 3.5, 0.0);
  /* New data of another radius changes the default. */
  CHECK_EQ_INT(ss_svm_unset_t0(s), SS_OK);
  CHECK_EQ_INT(ss_svm_set_lambda(s, 0.5), SS_OK);
  SsData small;
  REQUIRE(ss_data_init_dense(&small, SS_DTYPE_FLOAT64, X, 1, D, D) == SS_OK); /* R^2 = 1.25 + 1 */
  CHECK_EQ_INT(ss_svm_set_data(s, &small, y), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 2.0 * 2.25 / 0.5, 1e-12);     /* 9 */
  ss_svm_delete(s);
}

void test_valid_setters_roundtrip(void) {
  Fixture f;
  REQUIRE(fixture_init(&f, SS_SOLVER_SGD, 0.1));
  SsSvm *s = f.svm;
  CHECK_EQ_INT(ss_svm_set_epsilon(s, 0.0), SS_OK);
  CHECK_CLOSE(ss_svm_get_epsilon(s), 0.0, 0.0);
  CHECK_EQ_INT(ss_svm_set_epsilon(s, 0.5), SS_OK);
  CHECK_CLOSE(ss_svm_get_epsilon(s), 0.5, 0.0);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(s, 1), SS_OK);
  CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), 1);
  CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(s, 1), SS_OK);
  CHECK_EQ_INT(ss_svm_get_diagnostic_frequency(s), 1);
  CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(s, 0), SS_OK); /* back to the default schedule */
  CHECK_EQ_INT(ss_svm_get_diagnostic_frequency(s), SN);
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(s, 0.0), SS_OK);
  CHECK_CLOSE(ss_svm_get_bias_multiplier(s), 0.0, 0.0);
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(s, 10.0), SS_OK);
  CHECK_CLOSE(ss_svm_get_bias_multiplier(s), 10.0, 0.0);
  CHECK_EQ_INT(ss_svm_set_bias_learning_rate(s, 0.01), SS_OK);
  CHECK_CLOSE(ss_svm_get_bias_learning_rate(s), 0.01, 0.0);
  CHECK_EQ_INT(ss_svm_set_t0(s, 1.0000001), SS_OK);
  CHECK_CLOSE(ss_svm_get_t0(s), 1.0000001, 0.0);
  CHECK_EQ_INT(ss_svm_set_loss(s, SS_LOSS_HINGE2), SS_OK);
  CHECK_EQ_INT(ss_svm_get_loss(s), SS_LOSS_HINGE2);
  CHECK_EQ_INT(ss_svm_set_loss(s, SS_LOSS_LOGISTIC), SS_OK);
  CHECK_EQ_INT(ss_svm_get_loss(s), SS_LOSS_LOGISTIC);
  CHECK_EQ_INT(ss_svm_set_seed(s, UINT64_MAX), SS_OK);
  CHECK(ss_svm_get_seed(s) == UINT64_MAX);
  CHECK_EQ_INT(ss_svm_set_iteration_number(s, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_iteration_number(s, INT64_C(1) << 40), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(s), INT64_C(1) << 40);
  double wts[SN];
  for (int i = 0; i < SN; ++i) wts[i] = (double)i; /* includes a zero weight */
  CHECK_EQ_INT(ss_svm_set_weights(s, wts), SS_OK);
  const double *gw = ss_svm_get_weights(s);
  REQUIRE(gw != NULL);
  CHECK(gw != wts); /* copied */
  CHECK(tu_same_bits(gw, wts, SN));
  wts[4] = 100.0;
  CHECK(ss_svm_get_weights(s)[4] == 4.0);
  CHECK_EQ_INT(ss_svm_set_weights(s, NULL), SS_OK);
  CHECK(ss_svm_get_weights(s) == NULL);
  double m[SD] = {1.0, -2.0, 1e-300};
  CHECK_EQ_INT(ss_svm_set_model(s, m), SS_OK);
  CHECK(tu_same_bits(ss_svm_get_model(s), m, SD));
  CHECK(ss_svm_get_model(s) != m);
  CHECK_EQ_INT(ss_svm_set_bias(s, -3.5), SS_OK);
  CHECK(ss_svm_get_bias(s) == -3.5);
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(s, NULL, NULL), SS_OK);
  CHECK_EQ_INT(ss_svm_set_interrupt_function(s, NULL, NULL), SS_OK);
  ss_svm_delete(s);
}

void test_setters_reject_bad_values(void) {
  Fixture f;
  REQUIRE(fixture_init(&f, SS_SOLVER_SGD, 0.1));
  SsSvm *s = f.svm;
  const double nan = NAN, inf = INFINITY;

  /* Give every parameter a non-default value first, so "unchanged" is not
   * confused with "reset to default". */
  REQUIRE(ss_svm_set_epsilon(s, 0.25) == SS_OK);
  REQUIRE(ss_svm_set_max_num_iterations(s, 77) == SS_OK);
  REQUIRE(ss_svm_set_diagnostic_frequency(s, 3) == SS_OK);
  REQUIRE(ss_svm_set_bias_multiplier(s, 2.5) == SS_OK);
  REQUIRE(ss_svm_set_bias_learning_rate(s, 0.5) == SS_OK);
  REQUIRE(ss_svm_set_t0(s, 9.0) == SS_OK);
  REQUIRE(ss_svm_set_loss(s, SS_LOSS_HINGE2) == SS_OK);
  REQUIRE(ss_svm_set_iteration_number(s, 42) == SS_OK);
  REQUIRE(ss_svm_set_bias(s, 1.25) == SS_OK);

  const double lam_bad[] = {0.0, -0.0, -1.0, nan, inf, -inf};
  for (size_t k = 0; k < sizeof lam_bad / sizeof lam_bad[0]; ++k) {
    CHECK_EQ_INT(ss_svm_set_lambda(s, lam_bad[k]), SS_ERR_BAD_ARG);
    CHECK_CLOSE(ss_svm_get_lambda(s), 0.1, 0.0);
  }
  const double eps_bad[] = {-1e-9, -1.0, nan, -inf, inf};
  for (size_t k = 0; k < sizeof eps_bad / sizeof eps_bad[0]; ++k) {
    CHECK_EQ_INT(ss_svm_set_epsilon(s, eps_bad[k]), SS_ERR_BAD_ARG);
    CHECK_CLOSE(ss_svm_get_epsilon(s), 0.25, 0.0);
  }
  const int64_t it_bad[] = {0, -1, INT64_MIN};
  for (size_t k = 0; k < sizeof it_bad / sizeof it_bad[0]; ++k) {
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(s, it_bad[k]), SS_ERR_BAD_ARG);
    CHECK_EQ_INT(ss_svm_get_max_num_iterations(s), 77);
    if (it_bad[k] == 0) continue; /* 0 is the frequency's default (below) */
    CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(s, it_bad[k]), SS_ERR_BAD_ARG);
    CHECK_EQ_INT(ss_svm_get_diagnostic_frequency(s), 3);
  }
  const double B_bad[] = {-1e-300, -1.0, nan, inf, -inf};
  for (size_t k = 0; k < sizeof B_bad / sizeof B_bad[0]; ++k) {
    CHECK_EQ_INT(ss_svm_set_bias_multiplier(s, B_bad[k]), SS_ERR_BAD_ARG);
    CHECK_CLOSE(ss_svm_get_bias_multiplier(s), 2.5, 0.0);
    CHECK(ss_svm_get_bias(s) == 1.25);
  }
  const double rate_bad[] = {0.0, -1.0, nan, inf, -inf};
  for (size_t k = 0; k < sizeof rate_bad / sizeof rate_bad[0]; ++k) {
    CHECK_EQ_INT(ss_svm_set_bias_learning_rate(s, rate_bad[k]), SS_ERR_BAD_ARG);
    CHECK_CLOSE(ss_svm_get_bias_learning_rate(s), 0.5, 0.0);
  }
  const double t0_bad[] = {1.0, 0.999, 0.5, 0.0, -3.0, nan, inf, -inf};
  for (size_t k = 0; k < sizeof t0_bad / sizeof t0_bad[0]; ++k) {
    CHECK_EQ_INT(ss_svm_set_t0(s, t0_bad[k]), SS_ERR_BAD_ARG);
    CHECK_CLOSE(ss_svm_get_t0(s), 9.0, 0.0);
  }
  const int loss_bad[] = {5, -1, 100 /* SS_LOSS_CUSTOM: only via set_loss_functions */, 1000};
  for (size_t k = 0; k < sizeof loss_bad / sizeof loss_bad[0]; ++k) {
    CHECK_EQ_INT(ss_svm_set_loss(s, (SsLoss)loss_bad[k]), SS_ERR_BAD_ARG);
    CHECK_EQ_INT(ss_svm_get_loss(s), SS_LOSS_HINGE2);
  }
  const double bias_bad[] = {nan, inf, -inf};
  for (size_t k = 0; k < sizeof bias_bad / sizeof bias_bad[0]; ++k) {
    CHECK_EQ_INT(ss_svm_set_bias(s, bias_bad[k]), SS_ERR_BAD_ARG);
    CHECK(ss_svm_get_bias(s) == 1.25);
  }
  CHECK_EQ_INT(ss_svm_set_iteration_number(s, -1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_iteration_number(s, INT64_MIN), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_get_iteration_number(s), 42);
  ss_svm_delete(s);
}

void test_set_weights_rejects(void) {
  Fixture f;
  REQUIRE(fixture_init(&f, SS_SOLVER_SGD, 0.1));
  SsSvm *s = f.svm;
  double good[SN], bad[SN];
  for (int i = 0; i < SN; ++i) good[i] = 0.5 + i;
  const double bad_values[] = {-1.0, -1e-300, NAN, INFINITY, -INFINITY};
  /* Rejected while uniform: stays NULL. */
  for (size_t k = 0; k < sizeof bad_values / sizeof bad_values[0]; ++k) {
    memcpy(bad, good, sizeof bad);
    bad[SN - 1 - (int)k] = bad_values[k];
    CHECK_EQ_INT(ss_svm_set_weights(s, bad), SS_ERR_BAD_ARG);
    CHECK(ss_svm_get_weights(s) == NULL);
  }
  /* Rejected after a valid set: the valid weights stay. */
  REQUIRE(ss_svm_set_weights(s, good) == SS_OK);
  for (size_t k = 0; k < sizeof bad_values / sizeof bad_values[0]; ++k) {
    memcpy(bad, good, sizeof bad);
    bad[(int)k] = bad_values[k];
    CHECK_EQ_INT(ss_svm_set_weights(s, bad), SS_ERR_BAD_ARG);
    const double *w = ss_svm_get_weights(s);
    CHECK(w != NULL);
    if (w) CHECK(tu_same_bits(w, good, SN));
  }
  ss_svm_delete(s);
}

void test_set_model_rejects(void) {
  Fixture f;
  REQUIRE(fixture_init(&f, SS_SOLVER_SGD, 0.1));
  SsSvm *s = f.svm;
  double good[SD] = {0.25, -0.5, 2.0};
  REQUIRE(ss_svm_set_model(s, good) == SS_OK);
  const double bad_values[] = {NAN, INFINITY, -INFINITY};
  for (int pos = 0; pos < SD; ++pos) {
    for (size_t k = 0; k < sizeof bad_values / sizeof bad_values[0]; ++k) {
      double bad[SD];
      memcpy(bad, good, sizeof bad);
      bad[pos] = bad_values[k];
      CHECK_EQ_INT(ss_svm_set_model(s, bad), SS_ERR_BAD_ARG);
      CHECK(tu_same_bits(ss_svm_get_model(s), good, SD));
    }
  }
  CHECK_EQ_INT(ss_svm_set_model(s, NULL), SS_ERR_BAD_ARG);
  CHECK(tu_same_bits(ss_svm_get_model(s), good, SD));
  ss_svm_delete(s);
}

void test_bias_and_multiplier_order(void) {
  Fixture f1, f2;
  REQUIRE(fixture_init(&f1, SS_SOLVER_NONE, 0.1));
  REQUIRE(fixture_init(&f2, SS_SOLVER_NONE, 0.1));
  CHECK_EQ_INT(ss_svm_set_bias(f1.svm, 0.75), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(f1.svm, 4.0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(f2.svm, 4.0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias(f2.svm, 0.75), SS_OK);
  CHECK(ss_svm_get_bias(f1.svm) == 0.75);
  CHECK(ss_svm_get_bias(f2.svm) == 0.75);
  CHECK(ss_svm_get_bias_multiplier(f1.svm) == 4.0);
  CHECK(ss_svm_get_bias_multiplier(f2.svm) == 4.0);
  /* The bias stays when the multiplier changes again, even to 0 and back. */
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(f1.svm, 0.0), SS_OK);
  CHECK(ss_svm_get_bias(f1.svm) == 0.75);
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(f1.svm, 0.5), SS_OK);
  CHECK(ss_svm_get_bias(f1.svm) == 0.75);
  /* Both orders evaluate to the same statistics (B = 4 in both). */
  REQUIRE(ss_svm_set_bias_multiplier(f1.svm, 4.0) == SS_OK);
  CHECK_EQ_INT(ss_svm_train(f1.svm), SS_OK);
  CHECK_EQ_INT(ss_svm_train(f2.svm), SS_OK);
  const SsSvmStatistics *a = ss_svm_get_statistics(f1.svm), *b = ss_svm_get_statistics(f2.svm);
  CHECK(a->objective == b->objective);
  CHECK_CLOSE(a->regularizer, 0.5 * 0.1 * (0.75 / 4.0) * (0.75 / 4.0), 1e-15);
  ss_svm_delete(f1.svm);
  ss_svm_delete(f2.svm);
}

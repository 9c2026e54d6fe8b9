/* test_lifecycle.c -- creating and destroying SVM objects: argument checks of
 * the constructors, abstract data, objects without data, and leak-free
 * new/train/delete loops (checked by ASan's leak detector). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_budget.h"
#include "stochsvm/kernel_svm.h"
#include "stochsvm/res.h"
#include "stochsvm/sdca.h"
#include "stochsvm/sgdqn.h"
#include "stochsvm/svm.h"
#include "testutil.h"

void test_delete_null(void) {
  ss_svm_delete(NULL);
  CHECK(1); /* reaching here is the test */
}

/* Every getter of svm.h, sdca.h, sgdqn.h, res.h, kernel_svm.h and
 * kernel_budget.h takes NULL without reading it, and answers 0, NaN (a
 * double), NULL (a pointer), "" (a text) or the enum's value for "none" or its
 * default (svm.h, "Getters"). Run under ASan/UBSan in CI; tests/test_docs.py
 * checks that this list names every getter of the headers. */
void test_getters_take_null(void) {
  CHECK(ss_svm_get_loss(NULL) == SS_LOSS_HINGE);
  CHECK(ss_svm_get_sdca_model(NULL) == SS_SDCA_MODEL_NONE);
  CHECK(ss_svm_get_solver(NULL) == SS_SOLVER_NONE);
  CHECK(ss_svm_get_stopping_rule(NULL) == SS_SVM_STOP_DEFAULT);
  CHECK(ss_svm_get_visit_order(NULL) == SS_VISIT_PERMUTATION);
  CHECK(ss_svm_get_statistics(NULL) == NULL);
  CHECK(strcmp(ss_svm_get_last_error(NULL), "") == 0);
  CHECK(ss_svm_get_dual_variables(NULL) == NULL);
  CHECK(ss_svm_get_model(NULL) == NULL);
  CHECK(ss_svm_get_scaling(NULL) == NULL);
  CHECK(ss_svm_get_scores(NULL) == NULL);
  CHECK(ss_svm_get_weights(NULL) == NULL);
  CHECK(isnan(ss_svm_get_bias(NULL)));
  CHECK(isnan(ss_svm_get_bias_learning_rate(NULL)));
  CHECK(isnan(ss_svm_get_bias_multiplier(NULL)));
  CHECK(isnan(ss_svm_get_density(NULL)));
  CHECK(isnan(ss_svm_get_epsilon(NULL)));
  CHECK(isnan(ss_svm_get_lambda(NULL)));
  CHECK(isnan(ss_svm_get_res_delta(NULL)));
  CHECK(isnan(ss_svm_get_res_eps0(NULL)));
  CHECK(isnan(ss_svm_get_res_gamma(NULL)));
  CHECK(isnan(ss_svm_get_res_initial_curvature(NULL)));
  CHECK(isnan(ss_svm_get_res_tau(NULL)));
  CHECK(isnan(ss_svm_get_t0(NULL)));
  CHECK(ss_svm_get_newton_fallback(NULL) == 0);
  CHECK(ss_svm_get_num_threads(NULL) == 0);
  CHECK(ss_svm_get_shrinking(NULL) == 0);
  CHECK(ss_svm_get_shuffle(NULL) == 0);
  CHECK(ss_svm_get_diagnostic_frequency(NULL) == 0);
  CHECK(ss_svm_get_dimension(NULL) == 0);
  CHECK(ss_svm_get_iteration_number(NULL) == 0);
  CHECK(ss_svm_get_lres_memory(NULL) == 0);
  CHECK(ss_svm_get_max_num_iterations(NULL) == 0);
  CHECK(ss_svm_get_num_data(NULL) == 0);
  CHECK(ss_svm_get_num_shrunk(NULL) == 0);
  CHECK(ss_svm_get_res_curvature_state_size(NULL) == 0);
  CHECK(ss_svm_get_res_minibatch_size(NULL) == 0);
  CHECK(ss_svm_get_res_num_curvature_restarts(NULL) == 0);
  CHECK(ss_svm_get_res_num_curvature_skips(NULL) == 0);
  CHECK(ss_svm_get_res_num_curvature_updates(NULL) == 0);
  CHECK(ss_svm_get_res_num_rejected_steps(NULL) == 0);
  CHECK(ss_svm_get_res_num_step_halvings(NULL) == 0);
  CHECK(ss_svm_get_scaling_updates(NULL) == 0);
  CHECK(ss_svm_get_skip(NULL) == 0);
  CHECK(ss_svm_poll_iteration_number(NULL) == 0);
  CHECK(ss_svm_get_seed(NULL) == 0);
  CHECK(ss_kernel_svm_get_budget_maintenance(NULL) == SS_BUDGET_MAINTENANCE_AUTO);
  CHECK(ss_kernel_svm_get_kernel_precision(NULL) == SS_KERNEL_ROWS_FLOAT64);
  CHECK(ss_kernel_svm_get_solver(NULL) == SS_KSOLVER_NONE);
  CHECK(ss_kernel_svm_get_support_vectors(NULL) == NULL);
  CHECK(ss_kernel_svm_get_kernel(NULL) == NULL);
  CHECK(ss_kernel_svm_get_statistics(NULL) == NULL);
  CHECK(strcmp(ss_kernel_svm_get_last_error(NULL), "") == 0);
  CHECK(ss_kernel_svm_get_coefficients(NULL) == NULL);
  CHECK(ss_kernel_svm_get_dual_variables(NULL) == NULL);
  CHECK(ss_kernel_svm_get_weights(NULL) == NULL);
  CHECK(ss_kernel_svm_get_support_indices(NULL) == NULL);
  CHECK(isnan(ss_kernel_svm_get_bias(NULL)));
  CHECK(isnan(ss_kernel_svm_get_cache_size(NULL)));
  CHECK(isnan(ss_kernel_svm_get_epsilon(NULL)));
  CHECK(isnan(ss_kernel_svm_get_eta0(NULL)));
  CHECK(isnan(ss_kernel_svm_get_lambda(NULL)));
  CHECK(isnan(ss_kernel_svm_get_nu(NULL)));
  CHECK(ss_kernel_svm_get_num_threads(NULL) == 0);
  CHECK(ss_kernel_svm_get_row_copy(NULL) == 0);
  CHECK(ss_kernel_svm_get_sdca_finish(NULL) == 0);
  CHECK(ss_kernel_svm_get_shrinking(NULL) == 0);
  CHECK(ss_kernel_svm_get_unregularized_bias(NULL) == 0);
  CHECK(ss_kernel_svm_get_budget(NULL) == 0);
  CHECK(ss_kernel_svm_get_diagnostic_frequency(NULL) == 0);
  CHECK(ss_kernel_svm_get_dimension(NULL) == 0);
  CHECK(ss_kernel_svm_get_iteration_number(NULL) == 0);
  CHECK(ss_kernel_svm_get_last_train_iterations(NULL) == 0);
  CHECK(ss_kernel_svm_get_max_num_iterations(NULL) == 0);
  CHECK(ss_kernel_svm_get_num_data(NULL) == 0);
  CHECK(ss_kernel_svm_get_num_kernel_evaluations(NULL) == 0);
  CHECK(ss_kernel_svm_get_num_support_vectors(NULL) == 0);
  CHECK(ss_kernel_svm_poll_iteration_number(NULL) == 0);
  CHECK(ss_kernel_svm_get_seed(NULL) == 0);
  CHECK(ss_data_get_dimension(NULL) == 0);
  SsBudgetStatistics budget_statistics;
  double state[1];
  CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(NULL, &budget_statistics), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_get_res_curvature_state(NULL, state), SS_ERR_BAD_ARG);
}

void test_new_rejects(void) {
  double X[8] = {1, 0, 0, 1, -1, 0, 0, -1};
  double y[4] = {1, 1, -1, -1};
  double ynan[4] = {1, NAN, -1, -1};
  double yinf[4] = {1, 1, INFINITY, -1};
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, 4, 2, 2) == SS_OK);

  struct {
    SsSolver solver;
    const SsData *data;
    const double *labels;
    double lambda;
    SsStatus expected;
    const char *what;
  } cases[] = {
      {SS_SOLVER_SGD, NULL, y, 0.1, SS_ERR_BAD_ARG, "NULL data"},
      {SS_SOLVER_SGD, &data, NULL, 0.1, SS_ERR_BAD_ARG, "NULL labels"},
      {SS_SOLVER_SGD, &data, ynan, 0.1, SS_ERR_BAD_DATA, "NaN label"},
      {SS_SOLVER_SGD, &data, yinf, 0.1, SS_ERR_BAD_DATA, "inf label"},
      {SS_SOLVER_SGD, &data, y, 0.0, SS_ERR_BAD_ARG, "lambda 0"},
      {SS_SOLVER_SGD, &data, y, -1.0, SS_ERR_BAD_ARG, "lambda -1"},
      {SS_SOLVER_SGD, &data, y, NAN, SS_ERR_BAD_ARG, "lambda NaN"},
      {SS_SOLVER_SGD, &data, y, INFINITY, SS_ERR_BAD_ARG, "lambda inf"},
      {SS_SOLVER_NONE, &data, y, -INFINITY, SS_ERR_BAD_ARG, "lambda -inf"},
      {(SsSolver)77, &data, y, 0.1, SS_ERR_BAD_ARG, "unknown solver"},
      {(SsSolver)-1, &data, y, 0.1, SS_ERR_BAD_ARG, "negative solver"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    SsSvm *svm = ss_svm_new(cases[k].solver, cases[k].data, cases[k].labels, cases[k].lambda);
    SsStatus st = ss_svm_check_new(cases[k].solver, cases[k].data, cases[k].labels, cases[k].lambda);
    if (svm != NULL || st != cases[k].expected) printf("  case: %s\n", cases[k].what);
    CHECK(svm == NULL);
    CHECK_EQ_INT(st, cases[k].expected);
    ss_svm_delete(svm);
  }
  /* Valid arguments: check_new says OK and new succeeds, for both solvers. */
  CHECK_EQ_INT(ss_svm_check_new(SS_SOLVER_SGD, &data, y, 0.1), SS_OK);
  CHECK_EQ_INT(ss_svm_check_new(SS_SOLVER_NONE, &data, y, 1e-9), SS_OK);
  SsSvm *svm = ss_svm_new(SS_SOLVER_NONE, &data, y, 0.1);
  CHECK(svm != NULL);
  if (svm) {
    CHECK_EQ_INT(ss_svm_get_solver(svm), SS_SOLVER_NONE);
    CHECK_EQ_INT(ss_svm_get_num_data(svm), 4);
    CHECK_EQ_INT(ss_svm_get_dimension(svm), 2);
    CHECK_CLOSE(ss_svm_get_lambda(svm), 0.1, 0.0);
  }
  ss_svm_delete(svm);
  /* A descriptor not filled by ss_data_init_* (all zero: no values) is refused. */
  SsData zero;
  memset(&zero, 0, sizeof zero);
  CHECK(ss_svm_check_new(SS_SOLVER_SGD, &zero, y, 0.1) != SS_OK);
  SsSvm *bad = ss_svm_new(SS_SOLVER_SGD, &zero, y, 0.1);
  CHECK(bad == NULL);
  ss_svm_delete(bad);
  /* Labels that are finite but not +-1 are accepted by new (checked by train). */
  double yodd[4] = {2, 0.5, -1, 0};
  CHECK_EQ_INT(ss_svm_check_new(SS_SOLVER_SGD, &data, yodd, 0.1), SS_OK);
}

void test_new_copies_labels_and_descriptor(void) {
  double X[8] = {1, 0, 0, 1, -1, 0, 0, -1};
  double y[4] = {1, 1, -1, -1};
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, 4, 2, 2) == SS_OK);
  SsSvm *a = ss_svm_new(SS_SOLVER_SGD, &data, y, 0.1);
  REQUIRE(a != NULL);
  /* Scribble over the labels and the descriptor after creation: the object
   * copied both, so training on a twin must give the same result. */
  double y2[4];
  memcpy(y2, y, sizeof y);
  SsData data2 = data;
  SsSvm *b = ss_svm_new(SS_SOLVER_SGD, &data2, y2, 0.1);
  REQUIRE(b != NULL);
  for (int i = 0; i < 4; ++i) y2[i] = 7.0;
  memset(&data2, 0, sizeof data2);
  ss_svm_set_max_num_iterations(a, 40);
  ss_svm_set_max_num_iterations(b, 40);
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  CHECK_EQ_INT(ss_svm_train(b), SS_OK);
  CHECK(tu_same_bits(ss_svm_get_model(a), ss_svm_get_model(b), 2));
  CHECK(ss_svm_get_bias(a) == ss_svm_get_bias(b));
  ss_svm_delete(a);
  ss_svm_delete(b);
}

void test_lifecycle_loops(void) {
  enum { N = 30, D = 5 };
  double X[N * D], y[N], wts[N];
  tu_make_blobs(X, y, N, D, 1.0, 3);
  for (int i = 0; i < N; ++i) wts[i] = 1.0 + (i % 3);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, N, D, D) == SS_OK);
  int ok = 1;
  for (int rep = 0; rep < 50; ++rep) {
    SsSvm *svm = ss_svm_new(rep % 2 ? SS_SOLVER_SGD : SS_SOLVER_NONE, &data, y, 0.05);
    if (!svm) { ok = 0; break; }
    /* Exercise every owned buffer: weights (set twice), model, scores, data. */
    ok &= ss_svm_set_weights(svm, wts) == SS_OK;
    ok &= ss_svm_set_weights(svm, wts) == SS_OK;
    if (rep % 5 == 0) ok &= ss_svm_set_weights(svm, NULL) == SS_OK;
    ok &= ss_svm_set_max_num_iterations(svm, 3 * N) == SS_OK;
    ok &= ss_svm_train(svm) == SS_OK;
    ok &= ss_svm_train(svm) == SS_OK;
    ok &= ss_svm_set_data(svm, &data, y) == SS_OK;
    ok &= ss_svm_train(svm) == SS_OK;
    ok &= ss_svm_get_scores(svm) != NULL;
    ss_svm_delete(svm);
  }
  CHECK(ok);
  for (int rep = 0; rep < 20; ++rep) {
    SsSvm *svm = ss_svm_new_without_data(SS_SOLVER_SGD, D, 0.1);
    if (!svm) { ok = 0; break; }
    ss_svm_delete(svm);
  }
  CHECK(ok);
}

/* Abstract data: a dense row-major double matrix seen only through callbacks (TuRows). */
void test_abstract_data_matches_dense(void) {
  enum { N = 40, D = 3 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.7, 11);
  TuRows mm = {X, D, 0, 0};
  SsData data;
  SsSvm *ref = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.02);
  SsSvm *abs = ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &mm, D, N, y, 0.02, tu_rows_inner_product,
                                             tu_rows_accumulate);
  REQUIRE(ref != NULL);
  REQUIRE(abs != NULL);
  CHECK_EQ_INT(ss_svm_get_num_data(abs), N);
  CHECK_EQ_INT(ss_svm_get_dimension(abs), D);
  SsSvm *both[2] = {ref, abs};
  for (int k = 0; k < 2; ++k) {
    ss_svm_set_max_num_iterations(both[k], 25 * N);
    ss_svm_set_epsilon(both[k], 0);
    ss_svm_set_seed(both[k], 5);
    ss_svm_set_bias_multiplier(both[k], 1.5);
    CHECK_EQ_INT(ss_svm_train(both[k]), SS_OK);
  }
  CHECK(mm.inner_products > 0 && mm.accumulates > 0);
  /* The data-dependent default t0 (squared hinge) sees the same radius. */
  for (int k = 0; k < 2; ++k) ss_svm_set_loss(both[k], SS_LOSS_HINGE2);
  CHECK_CLOSE(ss_svm_get_t0(abs), ss_svm_get_t0(ref), 1e-12 * ss_svm_get_t0(ref));
  for (int k = 0; k < 2; ++k) ss_svm_set_loss(both[k], SS_LOSS_HINGE);
  const double *wr = ss_svm_get_model(ref), *wa = ss_svm_get_model(abs);
  for (int j = 0; j < D; ++j) CHECK_CLOSE(wa[j], wr[j], 1e-12);
  CHECK_CLOSE(ss_svm_get_bias(abs), ss_svm_get_bias(ref), 1e-12);
  CHECK(fabs(wr[0]) > 1e-3); /* trained, not trivially zero */
  const SsSvmStatistics *sr = ss_svm_get_statistics(ref), *sa = ss_svm_get_statistics(abs);
  CHECK_CLOSE(sa->objective, sr->objective, 1e-12);
  CHECK_EQ_INT(sa->iteration, sr->iteration);
  const double *scr = ss_svm_get_scores(ref), *sca = ss_svm_get_scores(abs);
  REQUIRE(scr && sca);
  for (int i = 0; i < N; ++i) CHECK_CLOSE(sca[i], scr[i], 1e-12);
  ss_svm_delete(ref);
  ss_svm_delete(abs);
}

void test_abstract_data_rejects(void) {
  double X[4] = {1, -1, 2, -2};
  double y[4] = {1, -1, 1, -1};
  TuRows mm = {X, 1, 0, 0};
  SsInnerProductFunction dot = tu_rows_inner_product;
  SsAccumulateFunction axpy = tu_rows_accumulate;
  CHECK(ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &mm, 1, 4, y, 0.1, NULL, axpy) == NULL);
  CHECK(ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &mm, 1, 4, y, 0.1, dot, NULL) == NULL);
  CHECK(ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &mm, 0, 4, y, 0.1, dot, axpy) == NULL);
  CHECK(ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &mm, 1, 0, y, 0.1, dot, axpy) == NULL);
  CHECK(ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &mm, 1, 4, NULL, 0.1, dot, axpy) == NULL);
  CHECK(ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &mm, 1, 4, y, 0.0, dot, axpy) == NULL);
  CHECK(ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &mm, 1, 4, y, NAN, dot, axpy) == NULL);
  CHECK(ss_svm_new_with_abstract_data((SsSolver)9, &mm, 1, 4, y, 0.1, dot, axpy) == NULL);
  CHECK_EQ_INT(mm.inner_products + mm.accumulates, 0);
}

void test_without_data(void) {
  enum { N = 12, D = 3 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 1.0, 2);
  CHECK(ss_svm_new_without_data(SS_SOLVER_SGD, 0, 0.1) == NULL);
  CHECK(ss_svm_new_without_data(SS_SOLVER_SGD, -4, 0.1) == NULL);
  CHECK(ss_svm_new_without_data(SS_SOLVER_SGD, D, 0.0) == NULL);
  CHECK(ss_svm_new_without_data(SS_SOLVER_SGD, D, NAN) == NULL);
  CHECK(ss_svm_new_without_data((SsSolver)99, D, 0.1) == NULL);

  SsSvm *svm = ss_svm_new_without_data(SS_SOLVER_SGD, D, 0.25);
  REQUIRE(svm != NULL);
  /* Getters. */
  CHECK_EQ_INT(ss_svm_get_dimension(svm), D);
  CHECK_EQ_INT(ss_svm_get_num_data(svm), 0);
  CHECK_EQ_INT(ss_svm_get_diagnostic_frequency(svm), 0);
  CHECK_EQ_INT(ss_svm_get_solver(svm), SS_SOLVER_SGD);
  CHECK_CLOSE(ss_svm_get_lambda(svm), 0.25, 0.0);
  CHECK_CLOSE(ss_svm_get_t0(svm), 8.0, 0.0);
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), 0);
  CHECK(ss_svm_get_scores(svm) == NULL);
  CHECK(ss_svm_get_weights(svm) == NULL);
  const double *w = ss_svm_get_model(svm);
  REQUIRE(w != NULL);
  for (int j = 0; j < D; ++j) CHECK(w[j] == 0.0);
  REQUIRE(ss_svm_get_statistics(svm) != NULL);
  CHECK_EQ_INT(ss_svm_get_statistics(svm)->status, SS_SVM_STATUS_UNTRAINED);
  /* Setters work (restoring a saved model). */
  double w0[D] = {0.5, -0.25, 1.0};
  CHECK_EQ_INT(ss_svm_set_model(svm, w0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias(svm, 0.75), SS_OK);
  CHECK_EQ_INT(ss_svm_set_iteration_number(svm, 100), SS_OK);
  CHECK(tu_same_bits(ss_svm_get_model(svm), w0, D));
  /* Weights need n: with no data there is nothing to weight. */
  double wts[N];
  for (int i = 0; i < N; ++i) wts[i] = 1.0;
  CHECK_EQ_INT(ss_svm_set_weights(svm, wts), SS_ERR_BAD_STATE);
  CHECK(ss_svm_get_weights(svm) == NULL);
  /* Train without data. */
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_BAD_STATE);
  CHECK(tu_same_bits(ss_svm_get_model(svm), w0, D));
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), 100);
  /* Data of the wrong dimension, NULL data/labels, NaN labels. */
  SsData wrong, good;
  REQUIRE(ss_data_init_dense(&wrong, SS_DTYPE_FLOAT64, X, N, D - 1, D) == SS_OK);
  REQUIRE(ss_data_init_dense(&good, SS_DTYPE_FLOAT64, X, N, D, D) == SS_OK);
  CHECK_EQ_INT(ss_svm_set_data(svm, &wrong, y), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_data(svm, NULL, y), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_data(svm, &good, NULL), SS_ERR_BAD_ARG);
  double ybad[N];
  memcpy(ybad, y, sizeof y);
  ybad[3] = NAN;
  CHECK_EQ_INT(ss_svm_set_data(svm, &good, ybad), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_svm_get_num_data(svm), 0);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_BAD_STATE);
  /* Now with data: kept model/bias/iteration, then training works. */
  CHECK_EQ_INT(ss_svm_set_data(svm, &good, y), SS_OK);
  CHECK_EQ_INT(ss_svm_get_num_data(svm), N);
  CHECK_EQ_INT(ss_svm_get_diagnostic_frequency(svm), N);
  CHECK(tu_same_bits(ss_svm_get_model(svm), w0, D));
  CHECK(ss_svm_get_bias(svm) == 0.75);
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), 100);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 5 * N), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), 100 + 5 * N);
  CHECK(ss_svm_get_scores(svm) != NULL);
  CHECK(!tu_same_bits(ss_svm_get_model(svm), w0, D));
  ss_svm_delete(svm);
}

void test_set_data_clears_weights(void) {
  enum { N = 8, D = 2 };
  double X[N * D], y[N], wts[N];
  tu_make_blobs(X, y, N, D, 1.0, 4);
  for (int i = 0; i < N; ++i) wts[i] = 2.0;
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_NONE, &data, X, y, N, D, 0.1);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_set_weights(svm, wts), SS_OK);
  CHECK(ss_svm_get_weights(svm) != NULL);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(ss_svm_get_scores(svm) != NULL);
  /* A failed set_data changes nothing. */
  SsData wrong;
  REQUIRE(ss_data_init_dense(&wrong, SS_DTYPE_FLOAT64, X, N, D - 1, D) == SS_OK);
  double ynan[N];
  memcpy(ynan, y, sizeof ynan);
  ynan[0] = NAN;
  CHECK_EQ_INT(ss_svm_set_data(svm, &wrong, y), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_data(svm, &data, ynan), SS_ERR_BAD_DATA);
  CHECK(ss_svm_get_weights(svm) != NULL);
  CHECK(ss_svm_get_scores(svm) != NULL);
  CHECK_EQ_INT(ss_svm_get_num_data(svm), N);
  CHECK(ss_svm_get_statistics(svm)->status != SS_SVM_STATUS_UNTRAINED);
  /* A new batch of a different size. */
  SsData half;
  REQUIRE(ss_data_init_dense(&half, SS_DTYPE_FLOAT64, X, N / 2, D, D) == SS_OK);
  CHECK(ss_svm_get_statistics(svm)->status != SS_SVM_STATUS_UNTRAINED);
  CHECK_EQ_INT(ss_svm_set_data(svm, &half, y), SS_OK);
  CHECK(ss_svm_get_weights(svm) == NULL);
  CHECK(ss_svm_get_scores(svm) == NULL);
  CHECK_EQ_INT(ss_svm_get_statistics(svm)->status, SS_SVM_STATUS_UNTRAINED);
  CHECK_EQ_INT(ss_svm_get_num_data(svm), N / 2);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(ss_svm_get_scores(svm) != NULL);
  ss_svm_delete(svm);
}

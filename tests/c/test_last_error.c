/* test_last_error.c -- every failing call leaves a message naming the call,
 * the argument and its value (ss_svm_get_last_error,
 * ss_kernel_svm_get_last_error), and every successful call clears it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { EN = 12, ED = 3 };

/* Does the object's last error contain every one of the given pieces? */
static int says(const char *message, const char *a, const char *b)
{
  return message != NULL && strstr(message, a) != NULL && (b == NULL || strstr(message, b) != NULL);
}

static int stop_now(void *user)
{
  (void)user;
  return 1;
}

static int stop_at_diagnostic(const SsSvm *svm, void *user)
{
  (void)svm;
  (void)user;
  return 1;
}

void test_last_error_svm_setters(void)
{
  double X[EN * ED], y[EN];
  tu_make_blobs(X, y, EN, ED, 1.0, 3);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, EN, ED, 0.1);
  REQUIRE(svm != NULL);
  CHECK(strcmp(ss_svm_get_last_error(svm), "") == 0);
  CHECK(strcmp(ss_svm_get_last_error(NULL), "") == 0);

  CHECK_EQ_INT(ss_svm_set_lambda(svm, -1), SS_ERR_BAD_ARG);
  CHECK(says(ss_svm_get_last_error(svm), "set_lambda: lambda must be in [1e-150, 1e+150]", "got -1"));
  CHECK_EQ_INT(ss_svm_set_lambda(svm, 0.5), SS_OK); /* success clears it */
  CHECK(strcmp(ss_svm_get_last_error(svm), "") == 0);

  CHECK_EQ_INT(ss_svm_set_epsilon(svm, NAN), SS_ERR_BAD_ARG);
  CHECK(says(ss_svm_get_last_error(svm), "set_epsilon", "got nan"));
  CHECK_EQ_INT(ss_svm_set_t0(svm, 0.5), SS_ERR_BAD_ARG);
  CHECK(says(ss_svm_get_last_error(svm), "set_t0: t0 must be finite and > 1", "got 0.5"));
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 0), SS_ERR_BAD_ARG);
  CHECK(says(ss_svm_get_last_error(svm), "set_max_num_iterations", "got 0"));

  double w[EN];
  for (int i = 0; i < EN; ++i) w[i] = 1.0;
  w[7] = -2.0;
  CHECK_EQ_INT(ss_svm_set_weights(svm, w), SS_ERR_BAD_ARG);
  CHECK(says(ss_svm_get_last_error(svm), "set_weights: weights[7]", "got -2"));
  double model[ED] = {0, INFINITY, 0};
  CHECK_EQ_INT(ss_svm_set_model(svm, model), SS_ERR_BAD_ARG);
  CHECK(says(ss_svm_get_last_error(svm), "set_model: model[1]", "got inf"));
  CHECK_EQ_INT(ss_svm_set_loss(svm, (SsLoss)42), SS_ERR_BAD_ARG);
  CHECK(says(ss_svm_get_last_error(svm), "set_loss: unknown loss 42", NULL));

  /* A status other than SS_ERR_BAD_ARG: the SDCA-only dual variables. */
  double alpha[EN] = {0};
  CHECK_EQ_INT(ss_svm_set_dual_variables(svm, alpha), SS_ERR_BAD_STATE);
  CHECK(says(ss_svm_get_last_error(svm), "set_dual_variables", "solver is sgd"));
  /* A knob of another solver (sgd.h, sgdqn.h, sdca.h, res.h). */
  CHECK_EQ_INT(ss_svm_set_skip(svm, 3), SS_ERR_BAD_STATE);
  CHECK(says(ss_svm_get_last_error(svm), "set_skip applies to solvers svmsgd2 and sgdqn, this object's solver is sgd",
             NULL));
  CHECK_EQ_INT(ss_svm_set_seed(svm, 7), SS_OK);
  CHECK(strcmp(ss_svm_get_last_error(svm), "") == 0);
  ss_svm_delete(svm);

  SsSvm *res = tu_new_dense(SS_SOLVER_RES, &data, X, y, EN, ED, 0.1);
  REQUIRE(res != NULL);
  CHECK_EQ_INT(ss_svm_set_loss(res, SS_LOSS_HINGE), SS_ERR_BAD_ARG);
  CHECK(says(ss_svm_get_last_error(res), "solver res needs a differentiable loss", "got hinge"));
  ss_svm_delete(res);
}

void test_last_error_svm_train(void)
{
  double X[EN * ED], y[EN];
  tu_make_blobs(X, y, EN, ED, 1.0, 5);
  SsData data;

  /* No data. */
  SsSvm *empty = ss_svm_new_without_data(SS_SOLVER_SGD, ED, 0.1);
  REQUIRE(empty != NULL);
  CHECK_EQ_INT(ss_svm_train(empty), SS_ERR_BAD_STATE);
  CHECK(says(ss_svm_get_last_error(empty), "training needs data", NULL));
  ss_svm_delete(empty);

  /* Labels a classification loss cannot take. */
  double bad_y[EN];
  memcpy(bad_y, y, sizeof bad_y);
  bad_y[4] = 2.0;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, bad_y, EN, ED, 0.1);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_BAD_DATA);
  CHECK(says(ss_svm_get_last_error(svm), "not valid for the hinge loss: they must be -1 or +1", "labels[4] = 2"));
  CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_L2), SS_OK); /* regression: any label */
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 10 * EN), SS_OK);
  CHECK(ss_svm_train(svm) == SS_OK);
  CHECK(strcmp(ss_svm_get_last_error(svm), "") == 0);

  /* Interrupted by a callback (the diagnostic one: the interrupt callback
   * is polled only every SS_SVM_INTERRUPT_PERIOD iterations). */
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, stop_at_diagnostic, NULL), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_INTERRUPTED);
  CHECK(says(ss_svm_get_last_error(svm), "training interrupted by a callback", "(solver sgd)"));
  ss_svm_delete(svm);

  /* Diverged: squared loss on large rows with the first step far too long
   * (as test_run_divergence_status). */
  for (int k = 0; k < EN * ED; ++k) X[k] *= 30.0;
  svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, EN, ED, 1.0);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_L2), SS_OK);
  CHECK_EQ_INT(ss_svm_set_t0(svm, 1.5), SS_OK);
  CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(svm, 5), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 100 * EN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_DIVERGED);
  CHECK(says(ss_svm_get_last_error(svm), "training diverged: the objective rose to", "(solver sgd)"));
  ss_svm_delete(svm);

  /* Non-finite: a bias learning rate of 1e300 (as test_sgd_diverges_huge_bias_rate). */
  tu_make_blobs(X, y, EN, ED, 0.5, 9);
  svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, EN, ED, 0.1);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 1000 * EN), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias_learning_rate(svm, 1e300), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_NUMERIC);
  CHECK(says(ss_svm_get_last_error(svm), "training diverged: the model or a score became non-finite", NULL));
  ss_svm_delete(svm);
}

void test_last_error_kernel_svm(void)
{
  double X[EN * ED], y[EN];
  tu_make_blobs(X, y, EN, ED, 1.0, 7);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, EN, ED, ED) == SS_OK);
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_PEGASOS, &kernel, &data, y, 0.1);
  REQUIRE(svm != NULL);
  CHECK(strcmp(ss_kernel_svm_get_last_error(svm), "") == 0);
  CHECK(strcmp(ss_kernel_svm_get_last_error(NULL), "") == 0);

  CHECK_EQ_INT(ss_kernel_svm_set_nu(svm, 0.1), SS_ERR_BAD_STATE);
  CHECK(says(ss_kernel_svm_get_last_error(svm), "set_nu applies to solver sbp", "solver is pegasos"));
  CHECK_EQ_INT(ss_kernel_svm_set_lambda(svm, INFINITY), SS_ERR_BAD_ARG);
  CHECK(says(ss_kernel_svm_get_last_error(svm), "set_lambda", "got inf"));
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 1), SS_ERR_BAD_STATE);
  CHECK(says(ss_kernel_svm_get_last_error(svm), "set_unregularized_bias", "solver is pegasos"));
  CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, 1), SS_OK);
  CHECK(strcmp(ss_kernel_svm_get_last_error(svm), "") == 0);

  double bad_y[EN];
  memcpy(bad_y, y, sizeof bad_y);
  bad_y[2] = 0.5;
  CHECK_EQ_INT(ss_kernel_svm_set_data(svm, &data, bad_y), SS_ERR_BAD_DATA);
  CHECK(says(ss_kernel_svm_get_last_error(svm), "set_data: labels must be -1 or +1", "labels[2] = 0.5"));

  CHECK_EQ_INT(ss_kernel_svm_set_interrupt_function(svm, stop_now, NULL), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 100000), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_ERR_INTERRUPTED);
  CHECK(says(ss_kernel_svm_get_last_error(svm), "training interrupted by a callback", "(solver pegasos)"));
  CHECK_EQ_INT(ss_kernel_svm_set_interrupt_function(svm, NULL, NULL), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 2 * EN), SS_OK);
  CHECK(ss_kernel_svm_train(svm) == SS_OK);
  CHECK(strcmp(ss_kernel_svm_get_last_error(svm), "") == 0);
  ss_kernel_svm_delete(svm);

  SsKernelSvm *empty = ss_kernel_svm_new_without_data(SS_KSOLVER_SDCA, &kernel, ED, 0.1);
  REQUIRE(empty != NULL);
  CHECK_EQ_INT(ss_kernel_svm_train(empty), SS_ERR_BAD_STATE);
  CHECK(says(ss_kernel_svm_get_last_error(empty), "training needs data", NULL));
  ss_kernel_svm_delete(empty);
}

/* A diagnostic function that calls train, set_data and set_lambda on its own
 * object (through user: the callback's pointer is const): each is refused
 * with SS_ERR_BAD_STATE. A train there recursed until the stack overflowed,
 * and a set_data freed the visit order the run was reading. A delete there
 * does nothing (it freed the object under the run: a use after free). */
typedef struct Reentry {
  SsSvm *svm;
  SsKernelSvm *kernel_svm;
  const SsData *data;
  const double *labels;
  SsStatus train, set_data, set_lambda;
  char message[256];
  int calls;
} Reentry;

static int reenter_linear(const SsSvm *svm, void *user)
{
  (void)svm;
  Reentry *r = user;
  if (r->calls++ > 0) return 0;
  r->train = ss_svm_train(r->svm);
  snprintf(r->message, sizeof r->message, "%s", ss_svm_get_last_error(r->svm));
  r->set_data = ss_svm_set_data(r->svm, r->data, r->labels);
  r->set_lambda = ss_svm_set_lambda(r->svm, 0.5);
  ss_svm_delete(r->svm);
  return 0;
}

static int reenter_kernel(const SsKernelSvm *svm, void *user)
{
  (void)svm;
  Reentry *r = user;
  if (r->calls++ > 0) return 0;
  r->train = ss_kernel_svm_train(r->kernel_svm);
  snprintf(r->message, sizeof r->message, "%s", ss_kernel_svm_get_last_error(r->kernel_svm));
  r->set_data = ss_kernel_svm_set_data(r->kernel_svm, r->data, r->labels);
  r->set_lambda = ss_kernel_svm_set_lambda(r->kernel_svm, 0.5);
  ss_kernel_svm_delete(r->kernel_svm);
  return 0;
}

void test_last_error_callbacks_may_only_read(void)
{
  double X[EN * ED], y[EN];
  tu_make_blobs(X, y, EN, ED, 1.0, 5);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, EN, ED, 0.1);
  REQUIRE(svm != NULL);
  Reentry r = {.svm = svm, .data = &data, .labels = y};
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, reenter_linear, &r), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 4 * EN), SS_OK);
  CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(svm, EN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(r.calls >= 2);
  CHECK_EQ_INT(r.train, SS_ERR_BAD_STATE);
  CHECK(says(r.message, "train: this object is training", "getters only"));
  CHECK_EQ_INT(r.set_data, SS_ERR_BAD_STATE);
  CHECK_EQ_INT(r.set_lambda, SS_ERR_BAD_STATE);
  CHECK(ss_svm_get_lambda(svm) == 0.1);
  /* after the run the object takes setters and trains again */
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, NULL, NULL), SS_OK);
  CHECK_EQ_INT(ss_svm_set_lambda(svm, 0.5), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  ss_svm_delete(svm);

  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  SsKernelSvm *ksvm = ss_kernel_svm_new(SS_KSOLVER_PEGASOS, &kernel, &data, y, 0.1);
  REQUIRE(ksvm != NULL);
  Reentry k = {.kernel_svm = ksvm, .data = &data, .labels = y};
  CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_function(ksvm, reenter_kernel, &k), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(ksvm, 4 * EN), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(ksvm, EN), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(ksvm), SS_OK);
  CHECK(k.calls >= 2);
  CHECK_EQ_INT(k.train, SS_ERR_BAD_STATE);
  CHECK(says(k.message, "train: this object is training", "getters and decision_function only"));
  CHECK_EQ_INT(k.set_data, SS_ERR_BAD_STATE);
  CHECK_EQ_INT(k.set_lambda, SS_ERR_BAD_STATE);
  CHECK(ss_kernel_svm_get_lambda(ksvm) == 0.1);
  CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_function(ksvm, NULL, NULL), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_lambda(ksvm, 0.5), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(ksvm), SS_OK);
  ss_kernel_svm_delete(ksvm);
}

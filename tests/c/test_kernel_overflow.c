/* test_kernel_overflow.c -- kernel training on finite data whose kernel
 * values overflow says so: train returns SS_ERR_NUMERIC with a message that
 * names the kernel, never SS_OK with a model whose scores of the training
 * data are not finite (CI's fuzz_kernel_train: a polynomial kernel of
 * degree 37 and coef0 -1.8e308 trained "successfully" with BSCA, and only
 * the decision function returned SS_ERR_NUMERIC). Every kernel solver, with
 * and without the bias where it has one. */
#include <math.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"

enum { N = 12, D = 4 };

static const SsKernelSolver solvers[] = {SS_KSOLVER_NONE, SS_KSOLVER_SBP,  SS_KSOLVER_PEGASOS,
                                         SS_KSOLVER_SDCA, SS_KSOLVER_PERCEPTRON, SS_KSOLVER_BSCA,
                                         SS_KSOLVER_BSGD};
#define NUM_SOLVERS ((int)(sizeof solvers / sizeof solvers[0]))

static void labels_of(double y[N])
{
  for (int i = 0; i < N; ++i) y[i] = (i % 3) ? 1.0 : -1.0;
}

/* A new object of @p solver with the bias on or off; NULL where the solver
 * has no such setting (or the object cannot be made). */
static SsKernelSvm *object(SsKernelSolver solver, const SsKernel *kernel, const SsData *data,
                           const double *y, int bias)
{
  SsKernelSvm *svm = ss_kernel_svm_new(solver, kernel, data, y, 0.1);
  if (svm && ss_kernel_svm_set_unregularized_bias(svm, bias) != SS_OK) {
    ss_kernel_svm_delete(svm);
    return NULL;
  }
  if (svm && (solver == SS_KSOLVER_BSCA || solver == SS_KSOLVER_BSGD))
    CHECK_EQ_INT(ss_kernel_svm_set_budget(svm, 2 * N), SS_OK);
  return svm;
}

/* K(x_i, x_i) = (||x_i||^2 - 1.79e308)^37 = -inf for every row: refused at
 * the start of train, nothing trained (the model, the iteration number and
 * the statistics stay as they were). */
void test_kernel_overflow_on_the_diagonal(void)
{
  double x[N * D], y[N];
  for (int k = 0; k < N * D; ++k) x[k] = (double)(k % 7) / 3.0 - 1.0;
  labels_of(y);
  SsData data;
  SsKernel kernel;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, x, N, D, D) == SS_OK);
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_POLYNOMIAL, 1.0, -1.79e308, 37) == SS_OK);
  int tried = 0;
  for (int s = 0; s < NUM_SOLVERS; ++s) {
    for (int bias = 0; bias < 2; ++bias) {
      SsKernelSvm *svm = object(solvers[s], &kernel, &data, y, bias);
      if (!svm) continue;
      ++tried;
      CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_ERR_NUMERIC);
      const char *why = ss_kernel_svm_get_last_error(svm);
      CHECK(strstr(why, "the kernel's values overflow") != NULL);
      CHECK(strstr(why, "degree 37") != NULL && strstr(why, "coef0 -1.79e+308") != NULL);
      CHECK_EQ_INT(ss_kernel_svm_get_num_support_vectors(svm), 0);
      CHECK_EQ_INT(ss_kernel_svm_get_iteration_number(svm), 0);
      CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->status, SS_SVM_STATUS_UNTRAINED);
      ss_kernel_svm_delete(svm);
    }
  }
  CHECK_EQ_INT(tried, 10); /* 7 solvers without the bias, SBP, SDCA and BSCA with it */
}

/* Rows 1e100 e_k (signs alternating): K(x_i, x_i) = (1e200 - 1e200)^3 = 0
 * is finite, K(x_i, x_j) = (-1e200)^3 = -inf for orthogonal rows. Found in
 * the run (a step's value or a diagnostic's score not finite): status
 * error, SS_ERR_NUMERIC, the kernel named. BSCA without the bias, SDCA and
 * BSCA with it returned SS_OK there, with a finite primal (the hinge skipped
 * NaN scores, ||w||^2 = NaN counted as 0) and a model that cannot score. */
void test_kernel_overflow_off_the_diagonal(void)
{
  double x[N * D] = {0}, y[N];
  for (int i = 0; i < N; ++i) x[i * D + i % D] = ((i / D) % 2 ? -1.0 : 1.0) * 1e100;
  labels_of(y);
  SsData data;
  SsKernel kernel;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, x, N, D, D) == SS_OK);
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_POLYNOMIAL, 1.0, -1e200, 3) == SS_OK);
  for (int s = 1; s < NUM_SOLVERS; ++s) { /* (none has no model to score with) */
    for (int bias = 0; bias < 2; ++bias) {
      SsKernelSvm *svm = object(solvers[s], &kernel, &data, y, bias);
      if (!svm) continue;
      const SsStatus status = ss_kernel_svm_train(svm);
      CHECK_EQ_INT(status, SS_ERR_NUMERIC);
      if (status != SS_ERR_NUMERIC) fprintf(stderr, "  solver %d, bias %d\n", (int)solvers[s], bias);
      CHECK(strstr(ss_kernel_svm_get_last_error(svm), "the kernel's values overflow") != NULL);
      CHECK(strstr(ss_kernel_svm_get_last_error(svm), "coef0 -1e+200") != NULL);
      CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->status, SS_SVM_STATUS_ERROR);
      ss_kernel_svm_delete(svm);
    }
  }
}

/* The same kernel on rows where it stays finite trains as before. */
void test_kernel_overflow_finite_values_train(void)
{
  double x[N * D], y[N], scores[N];
  for (int k = 0; k < N * D; ++k) x[k] = (double)(k % 5) / 4.0 - 0.5;
  labels_of(y);
  SsData data;
  SsKernel kernel;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, x, N, D, D) == SS_OK);
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_POLYNOMIAL, 1.0, 1.0, 3) == SS_OK);
  for (int s = 0; s < NUM_SOLVERS; ++s) {
    SsKernelSvm *svm = object(solvers[s], &kernel, &data, y, 0);
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &data, scores), SS_OK);
    ss_kernel_svm_delete(svm);
  }
}

/* Every K(x_i, x_j) finite, (x_i.x_j + 3e102)^3 ~ 2.7e307, but the model's
 * sum over its support vectors overflows (the tester's poly degree 3, coef0
 * 3e102 on standardized rows). SDCA with the bias returned SS_OK, status
 * converged, a regularizer of 0: its scores came from its gradient cache,
 * whose pairs' updates cancel, while the decision function's running sum
 * overflowed. Now no solver returns SS_OK with a model that cannot score
 * its training rows: it fails naming the kernel instead. */
void test_kernel_overflow_in_the_sum(void)
{
  enum { N2 = 24 };
  double x[N2 * D], y[N2], scores[N2];
  for (int k = 0; k < N2 * D; ++k) x[k] = (double)((k * 7) % 11) / 5.0 - 1.0;
  for (int i = 0; i < N2; ++i) y[i] = (i % 3) ? 1.0 : -1.0;
  SsData data;
  SsKernel kernel;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, x, N2, D, D) == SS_OK);
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_POLYNOMIAL, 1.0, 3e102, 3) == SS_OK);
  for (int s = 1; s < NUM_SOLVERS; ++s) {
    for (int bias = 0; bias < 2; ++bias) {
      SsKernelSvm *svm = object(solvers[s], &kernel, &data, y, bias);
      if (!svm) continue;
      CHECK_EQ_INT(ss_kernel_svm_set_lambda(svm, 0.01), SS_OK);
      const SsStatus status = ss_kernel_svm_train(svm);
      if (status == SS_OK) {
        const SsStatus scored = ss_kernel_svm_decision_function(svm, &data, scores);
        CHECK_EQ_INT(scored, SS_OK);
        if (scored != SS_OK) fprintf(stderr, "  solver %d, bias %d: SS_OK, cannot score\n", (int)solvers[s], bias);
      } else {
        CHECK_EQ_INT(status, SS_ERR_NUMERIC);
        CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->status, SS_SVM_STATUS_ERROR);
      }
      if (solvers[s] == SS_KSOLVER_SDCA && bias) { /* the tester's case */
        CHECK_EQ_INT(status, SS_ERR_NUMERIC);
        CHECK(strstr(ss_kernel_svm_get_last_error(svm), "the kernel's values overflow") != NULL);
        CHECK(strstr(ss_kernel_svm_get_last_error(svm), "coef0 3e+102") != NULL);
      }
      ss_kernel_svm_delete(svm);
    }
  }
}

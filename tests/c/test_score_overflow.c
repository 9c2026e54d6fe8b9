/* test_score_overflow.c -- the three decision functions (ss_svm_,
 * ss_kernel_svm_ and ss_model_decision_function) say when a score is not
 * finite: SS_ERR_NUMERIC when finite values overflow against the model
 * (1e308 times a weight of 10; an rbf distance of a row whose squared norm
 * overflows, which counted as 0, K = 1, a finite wrong score),
 * SS_ERR_BAD_DATA when the caller's borrowed array turned NaN after its
 * descriptor was made. Every score is written either way, so the caller
 * can find the row; finite scores are SS_OK. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "stochsvm/model_file.h"
#include "stochsvm/svm.h"

enum { N = 3, D = 2 };

/* Row 1 overflows against a weight of 10: 1e308 * 10. */
static void overflowing_rows(double x[N * D])
{
  const double rows[N * D] = {1, 2, 1e308, 0, -3, 0.5};
  for (int k = 0; k < N * D; ++k) x[k] = rows[k];
}

/* overflowing_rows and three finite rows, each with its descriptor (the
 * tests change the arrays after the descriptors are made). */
typedef struct TwoSets {
  double x[N * D], small[N * D];
  SsData data, finite;
} TwoSets;

static bool two_sets(TwoSets *t)
{
  const double small[N * D] = {1, 2, 3, 4, -3, 0.5};
  overflowing_rows(t->x);
  for (int k = 0; k < N * D; ++k) t->small[k] = small[k];
  return ss_data_init_dense(&t->data, SS_DTYPE_FLOAT64, t->x, N, D, D) == SS_OK &&
         ss_data_init_dense(&t->finite, SS_DTYPE_FLOAT64, t->small, N, D, D) == SS_OK;
}

void test_score_overflow_linear(void)
{
  double labels[N] = {1, -1, 1}, scores[N];
  TwoSets t;
  REQUIRE(two_sets(&t));
  SsSvm *svm = ss_svm_new(SS_SOLVER_SGD, &t.finite, labels, 0.1);
  REQUIRE(svm != NULL);
  const double w[D] = {10, 1};
  REQUIRE(ss_svm_set_model(svm, w) == SS_OK);
  CHECK_EQ_INT(ss_svm_decision_function(svm, &t.finite, scores), SS_OK);
  CHECK_CLOSE(scores[1], 34.0, 0);
  CHECK_EQ_INT(ss_svm_decision_function(svm, &t.data, scores), SS_ERR_NUMERIC);
  CHECK(isinf(scores[1]) && scores[1] > 0);
  CHECK_CLOSE(scores[0], 12.0, 0); /* the other rows are scored */
  CHECK_CLOSE(scores[2], -29.5, 0);
  t.small[4] = NAN; /* the borrowed array changed after its descriptor was made */
  CHECK_EQ_INT(ss_svm_decision_function(svm, &t.finite, scores), SS_ERR_BAD_DATA);
  ss_svm_delete(svm);
}

/* A kernel object on 3 finite rows (labels +-1) whose model is the one
 * support vector z = (1, 0) with coefficient 10 and bias 0; NULL if it
 * cannot be made. */
static SsKernelSvm *one_support_vector(SsKernelType type, double gamma, const SsData *finite)
{
  static const double labels[N] = {1, -1, 1};
  static const double z[D] = {1, 0}, beta[1] = {10};
  SsKernel kernel;
  SsData support;
  if (ss_kernel_init(&kernel, type, gamma, 0, 3) != SS_OK ||
      ss_data_init_dense(&support, SS_DTYPE_FLOAT64, z, 1, D, D) != SS_OK)
    return NULL;
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, finite, labels, 0.1);
  if (svm && ss_kernel_svm_set_model(svm, &support, NULL, beta, 1, 0) != SS_OK) {
    ss_kernel_svm_delete(svm);
    return NULL;
  }
  return svm;
}

void test_score_overflow_kernel(void)
{
  double scores[N];
  TwoSets t;
  REQUIRE(two_sets(&t));
  SsKernelSvm *svm = one_support_vector(SS_KERNEL_LINEAR, 1, &t.finite);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &t.finite, scores), SS_OK);
  CHECK_CLOSE(scores[1], 30.0, 0);
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &t.data, scores), SS_ERR_NUMERIC);
  CHECK(isinf(scores[1]));
  CHECK_CLOSE(scores[2], -30.0, 0);
  t.small[0] = INFINITY;
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &t.finite, scores), SS_ERR_BAD_DATA);
  ss_kernel_svm_delete(svm);
}

/* A binary model of D inputs, labels -1/+1, hinge loss, bias 0: linear with
 * weights (10, 1), or rbf (gamma 0.5) with the one support vector (1, 0) of
 * coefficient 10. */
static SsModel binary_model(SsModelKind kind)
{
  static double w[D] = {10, 1}, bias[1] = {0}, labels[2] = {-1, 1};
  static int64_t indptr[2] = {0, 1};
  static int32_t indices[1] = {0};
  static double values[1] = {1}, coef[1] = {10};
  SsModel m;
  ss_model_init(&m);
  m.kind = kind;
  m.task = SS_TASK_BINARY;
  m.dimension = D;
  m.num_outputs = 1;
  m.num_classes = 2;
  m.labels = labels;
  m.loss = SS_LOSS_HINGE;
  m.biases = bias;
  if (kind == SS_MODEL_LINEAR) {
    m.weights = w;
  } else {
    m.kernel = SS_MODEL_KERNEL_RBF;
    m.gamma = 0.5;
    m.num_support_vectors = 1;
    m.sv_indptr = indptr;
    m.sv_indices = indices;
    m.sv_values = values;
    m.coefficients = coef;
  }
  return m;
}

void test_score_overflow_model(void)
{
  double x[N * D], scores[N], predictions[N];
  overflowing_rows(x);
  SsModel m = binary_model(SS_MODEL_LINEAR);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, x, N, D, D) == SS_OK);
  CHECK_EQ_INT(ss_model_decision_function(&m, &data, scores), SS_ERR_NUMERIC);
  CHECK(isinf(scores[1]));
  CHECK_CLOSE(scores[0], 12.0, 0);
  CHECK_EQ_INT(ss_model_predict(&m, &data, predictions), SS_ERR_NUMERIC);
  x[2] = 3; /* row 1 is finite now */
  CHECK_EQ_INT(ss_model_predict(&m, &data, predictions), SS_OK);
  CHECK_CLOSE(predictions[1], 1.0, 0);
  x[3] = NAN;
  CHECK_EQ_INT(ss_model_decision_function(&m, &data, scores), SS_ERR_BAD_DATA);
}

/* The rbf kernel: row 1 of overflowing_rows has a squared norm of inf and
 * a NaN distance to z = (1, 0); it scored beta K = 10 (K = 1), status OK. */
void test_score_overflow_rbf(void)
{
  double scores[N];
  TwoSets t;
  REQUIRE(two_sets(&t));
  SsKernelSvm *svm = one_support_vector(SS_KERNEL_RBF, 0.5, &t.finite);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &t.data, scores), SS_ERR_NUMERIC);
  CHECK(isnan(scores[1]));
  CHECK_CLOSE(scores[0], 10 * exp(-0.5 * 4), 1e-15);
  t.small[1] = NAN;
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &t.finite, scores), SS_ERR_BAD_DATA);
  ss_kernel_svm_delete(svm);

  /* the same through a model file's kernel model (model.c's own kernel) */
  SsModel m = binary_model(SS_MODEL_KERNEL);
  CHECK_EQ_INT(ss_model_decision_function(&m, &t.data, scores), SS_ERR_NUMERIC);
  CHECK(isnan(scores[1]));
  CHECK_CLOSE(scores[0], 10 * exp(-0.5 * 4), 1e-15);
}

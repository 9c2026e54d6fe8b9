/* test_threads_linear.c -- threads inside one linear model: the score passes
 * (diagnostics: objective, duality gap; prediction) give bit-identical
 * iterates, statistics and scores on 1 and on 2 threads. */
#include <stdlib.h>

#include "../../src/core/linear/svm_internal.h"
#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

void test_svm_num_threads_setter(void)
{
  double X[4] = {0, 1, 2, 3}, y[4] = {-1, -1, 1, 1};
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, 4, 1, 0.1);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_get_num_threads(svm), 1);
  CHECK_EQ_INT(ss_svm_set_num_threads(NULL, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_num_threads(svm, 0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_num_threads(svm, -1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_get_num_threads(svm), 1);
  CHECK_EQ_INT(ss_svm_set_num_threads(svm, 4), SS_OK);
  CHECK_EQ_INT(ss_svm_get_num_threads(svm), 4);
  double s[4];
  CHECK_EQ_INT(ss_svm_decision_function(NULL, &data, s), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_decision_function(svm, NULL, s), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_decision_function(svm, &data, NULL), SS_ERR_BAD_ARG);
  SsData wide;
  REQUIRE(ss_data_init_dense(&wide, SS_DTYPE_FLOAT64, X, 2, 2, 2) == SS_OK);
  CHECK_EQ_INT(ss_svm_decision_function(svm, &wide, s), SS_ERR_BAD_ARG);
  ss_svm_delete(svm);
}

/* Rows not a multiple of anything, the loop threshold (threads.h) lowered
 * so that every pass is split. */
enum { LN = 997, LD = 9 };

static void check_linear_threads_bitwise(SsSolver solver, SsDType dtype, int sparse)
{
  double *X = malloc(sizeof(double) * LN * LD), *y = malloc(sizeof(double) * LN);
  float *X32 = malloc(sizeof(float) * LN * LD);
  double *s1 = malloc(sizeof(double) * LN), *s2 = malloc(sizeof(double) * LN);
  int64_t *indptr = malloc(sizeof(int64_t) * (LN + 1));
  int32_t *indices = malloc(sizeof(int32_t) * LN * LD);
  REQUIRE(X && y && X32 && s1 && s2 && indptr && indices);
  tu_make_blobs(X, y, LN, LD, 0.2, 3);
  int64_t nnz = 0;
  indptr[0] = 0;
  for (int64_t i = 0; i < LN; ++i) {
    for (int64_t j = 0; j < LD; ++j) {
      const double v = (i + 2 * j) % 4 == 0 ? 0.0 : X[i * LD + j];
      if (v != 0 || !sparse) {
        if (sparse) indices[nnz] = (int32_t)j;
        X[nnz] = v;
        X32[nnz++] = (float)v;
      }
    }
    indptr[i + 1] = nnz;
  }
  const void *values = dtype == SS_DTYPE_FLOAT32 ? (const void *)X32 : (const void *)X;
  SsData data;
  if (sparse) {
    REQUIRE(ss_data_init_csr(&data, dtype, values, indptr, indices, LN, LD) == SS_OK);
  } else {
    REQUIRE(ss_data_init_dense(&data, dtype, values, LN, LD, LD) == SS_OK);
  }
  SsSvm *svm[2];
  for (int k = 0; k < 2; ++k) {
    svm[k] = ss_svm_new(solver, &data, y, 1e-3);
    REQUIRE(svm[k]);
    CHECK_EQ_INT(ss_svm_set_num_threads(svm[k], k + 1), SS_OK);
    svm[k]->threads.min_length = 16;
    CHECK_EQ_INT(ss_svm_set_epsilon(svm[k], 0), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm[k], 5 * LN), SS_OK);
    CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(svm[k], LN / 3), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm[k]), SS_OK);
  }
  CHECK(tu_same_bits(ss_svm_get_model(svm[0]), ss_svm_get_model(svm[1]), LD));
  const SsSvmStatistics *a = ss_svm_get_statistics(svm[0]), *b = ss_svm_get_statistics(svm[1]);
  CHECK(tu_same_bits(&a->objective, &b->objective, 1));
  CHECK(tu_same_bits(&a->loss, &b->loss, 1));
  CHECK(tu_same_bits(&a->scores_variation, &b->scores_variation, 1));
  if (solver == SS_SOLVER_SDCA) CHECK(tu_same_bits(&a->duality_gap, &b->duality_gap, 1));
  CHECK(tu_same_bits(ss_svm_get_scores(svm[0]), ss_svm_get_scores(svm[1]), LN));
  CHECK_EQ_INT(ss_svm_decision_function(svm[0], &data, s1), SS_OK);
  CHECK_EQ_INT(ss_svm_decision_function(svm[1], &data, s2), SS_OK);
  CHECK(tu_same_bits(s1, s2, LN));
  CHECK(tu_same_bits(s1, ss_svm_get_scores(svm[0]), LN)); /* the pass of the last diagnostic */
  ss_svm_delete(svm[0]);
  ss_svm_delete(svm[1]);
  free(X), free(y), free(X32), free(s1), free(s2), free(indptr), free(indices);
}

void test_svm_threads_bitwise(void)
{
  check_linear_threads_bitwise(SS_SOLVER_SDCA, SS_DTYPE_FLOAT64, 0);
  check_linear_threads_bitwise(SS_SOLVER_SDCA, SS_DTYPE_FLOAT32, 1);
  check_linear_threads_bitwise(SS_SOLVER_SGD, SS_DTYPE_FLOAT32, 0);
  check_linear_threads_bitwise(SS_SOLVER_SGD, SS_DTYPE_FLOAT64, 1);
}

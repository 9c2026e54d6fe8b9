/* test_example.c -- an end-to-end use of the public API, as a user would write
 * it: float32 CSR training data, each loss, accuracy on held-out points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

void test_example_pipeline(void) {
  enum { NTR = 300, NTE = 200, D = 8 };
  double Xtr[NTR * D], ytr[NTR], Xte[NTE * D], yte[NTE];
  tu_make_blobs(Xtr, ytr, NTR, D, 1.5, 100);
  tu_make_blobs(Xte, yte, NTE, D, 1.5, 200);
  /* float32 CSR copy of the training set, dropping small values. */
  float vals[NTR * D];
  int32_t idx[NTR * D];
  int64_t indptr[NTR + 1];
  int64_t nnz = 0;
  indptr[0] = 0;
  for (int i = 0; i < NTR; ++i) {
    for (int j = 0; j < D; ++j) {
      double v = Xtr[i * D + j];
      if (fabs(v) < 0.25) continue;
      vals[nnz] = (float)v;
      idx[nnz] = j;
      ++nnz;
    }
    indptr[i + 1] = nnz;
  }
  SsData train, test;
  REQUIRE(ss_data_init_csr(&train, SS_DTYPE_FLOAT32, vals, indptr, idx, NTR, D) == SS_OK);
  REQUIRE(ss_data_init_dense(&test, SS_DTYPE_FLOAT64, Xte, NTE, D, D) == SS_OK);
  const SsLoss losses[3] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int k = 0; k < 3; ++k) {
    SsSvm *svm = ss_svm_new(SS_SOLVER_SGD, &train, ytr, 1e-3);
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_svm_set_loss(svm, losses[k]), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 20 * NTR), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    const double *w = ss_svm_get_model(svm);
    double b = ss_svm_get_bias(svm);
    int correct = 0;
    for (int i = 0; i < NTE; ++i)
      correct += yte[i] * (ss_data_inner_product(&test, i, w) + b) > 0;
    if (correct < 0.9 * NTE) printf("  loss %d: %d/%d correct\n", (int)losses[k], correct, NTE);
    CHECK(correct >= 0.9 * NTE);
    /* The first coordinate carries the class: it dominates the model. */
    for (int j = 1; j < D; ++j) CHECK(fabs(w[0]) > fabs(w[j]));
    ss_svm_delete(svm);
  }
}

/* test_iteration_room.c -- a train call needs room for its cap: with the
 * iteration number t above INT64_MAX - max_num_iterations the counter would
 * saturate and the run stop short (set_iteration_number(2^63 - 1) made
 * train() silently do nothing). Both objects refuse such a call with
 * SS_ERR_BAD_STATE and change nothing; the setters themselves accept any
 * t >= 0 and any cap >= 1, in either order. */
#include <stdint.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { N = 40, D = 3 };

void test_svm_train_needs_room_for_the_cap(void)
{
  static double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.8, 21);
  const SsSolver solvers[3] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SDCA};
  for (int k = 0; k < 3; ++k) {
    SsData data;
    SsSvm *svm = tu_new_dense(solvers[k], &data, X, y, N, D, 0.01);
    REQUIRE(svm);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 100), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    double before[D];
    memcpy(before, ss_svm_get_model(svm), sizeof before);
    const SsSvmStatistics stats = *ss_svm_get_statistics(svm);
    const int64_t starts[3] = {INT64_MAX, INT64_MAX - 99, INT64_MAX - 50};
    for (int q = 0; q < 3; ++q) {
      CHECK_EQ_INT(ss_svm_set_iteration_number(svm, starts[q]), SS_OK);
      CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_BAD_STATE);
      CHECK_EQ_INT(ss_svm_get_iteration_number(svm), starts[q]);
      CHECK(tu_same_bits(ss_svm_get_model(svm), before, D));
      CHECK_EQ_INT(ss_svm_get_statistics(svm)->iteration, stats.iteration);
      CHECK_EQ_INT(ss_svm_get_statistics(svm)->status, stats.status);
    }
    /* the other order: a cap raised after the iteration number */
    CHECK_EQ_INT(ss_svm_set_iteration_number(svm, INT64_MAX - 100), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 101), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_BAD_STATE);
    /* exactly enough room: the run does all its iterations and ends at INT64_MAX */
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 100), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    CHECK_EQ_INT(ss_svm_get_iteration_number(svm), INT64_MAX);
    ss_svm_delete(svm);
  }
  /* SS_SOLVER_NONE does no iterations: it needs no room */
  SsData data;
  SsSvm *none = tu_new_dense(SS_SOLVER_NONE, &data, X, y, N, D, 0.01);
  REQUIRE(none);
  CHECK_EQ_INT(ss_svm_set_iteration_number(none, INT64_MAX), SS_OK);
  CHECK_EQ_INT(ss_svm_train(none), SS_OK);
  ss_svm_delete(none);
}

/* The kernel object's counter only grows by training: a cap raised to near
 * INT64_MAX after a first run leaves no room for the second. */
void test_kernel_svm_train_needs_room_for_the_cap(void)
{
  static double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.8, 22);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, N, D, D) == SS_OK);
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  const SsKernelSolver solvers[3] = {SS_KSOLVER_SDCA, SS_KSOLVER_PEGASOS, SS_KSOLVER_SBP};
  for (int k = 0; k < 3; ++k) {
    SsKernelSvm *svm = ss_kernel_svm_new(solvers[k], &kernel, &data, y, 0.05);
    REQUIRE(svm);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 50), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    const int64_t t = ss_kernel_svm_get_iteration_number(svm);
    CHECK(t > 0);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, INT64_MAX - t + 1), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_ERR_BAD_STATE);
    CHECK_EQ_INT(ss_kernel_svm_get_iteration_number(svm), t);
    CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->iteration, t);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 10), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    CHECK(ss_kernel_svm_get_iteration_number(svm) > t);
    ss_kernel_svm_delete(svm);
  }
}

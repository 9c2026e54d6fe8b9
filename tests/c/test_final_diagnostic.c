/* test_final_diagnostic.c -- what a train call costs beyond its epochs
 * (epochs.c). The closing diagnostic of a run that reaches its cap is left
 * for later when no diagnostic function watches, and made, with the result
 * the run would have had, by the first reader (statistics, scores,
 * ss_svm_settle), by a setter that changes what it measures, or by the next
 * train; ss_svm_set_data drops it. The order buffer is kept between calls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { FN = 300, FD = 4 };

/* Abstract data over a dense descriptor that counts the inner products. */
typedef struct Counted {
  SsData data;
  int64_t inner_products;
} Counted;

static double counted_inner_product(const void *user, int64_t i, const double *w)
{
  Counted *c = (Counted *)user;
  ++c->inner_products;
  return ss_data_inner_product(&c->data, i, w);
}

static void counted_accumulate(const void *user, int64_t i, double *w, double a)
{
  ss_data_accumulate(&((const Counted *)user)->data, i, w, a);
}

static int watch(const SsSvm *svm, void *user)
{
  (void)svm;
  ++*(int *)user;
  return 0;
}

/* The statistics of two objects agree bit for bit (the elapsed time aside). */
static int same_statistics(const SsSvmStatistics *a, const SsSvmStatistics *b)
{
  const double x[] = {a->objective, a->regularizer, a->loss, a->dual_objective, a->duality_gap,
                      a->scores_variation};
  const double y[] = {b->objective, b->regularizer, b->loss, b->dual_objective, b->duality_gap,
                      b->scores_variation};
  return a->status == b->status && a->iteration == b->iteration && a->epoch == b->epoch &&
         memcmp(x, y, sizeof x) == 0;
}

/* One epoch of SGD on abstract data: train does the n steps' inner
 * products only; the first read of the statistics adds the closing pass. */
void test_final_diagnostic_waits_for_a_reader(void)
{
  static double X[FN * FD], y[FN];
  tu_make_blobs(X, y, FN, FD, 0.7, 5);
  Counted counted = {.inner_products = 0};
  REQUIRE(ss_data_init_dense(&counted.data, SS_DTYPE_FLOAT64, X, FN, FD, FD) == SS_OK);
  SsSvm *svm = ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &counted, FD, FN, y, 0.01, counted_inner_product,
                                             counted_accumulate);
  REQUIRE(svm);
  REQUIRE(ss_svm_set_max_num_iterations(svm, FN) == SS_OK);
  counted.inner_products = 0; /* (the object took the rows' norms) */
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(counted.inner_products, FN);
  CHECK_EQ_INT(ss_svm_get_statistics(svm)->status, SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(counted.inner_products, 2 * FN);
  CHECK(ss_svm_get_scores(svm) != NULL);
  CHECK_EQ_INT(ss_svm_settle(svm), SS_OK); /* made once */
  CHECK_EQ_INT(counted.inner_products, 2 * FN);

  /* Watched by a diagnostic function, the run makes it itself. */
  int calls = 0;
  REQUIRE(ss_svm_set_diagnostic_function(svm, watch, &calls) == SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(calls, 1);
  CHECK_EQ_INT(counted.inner_products, 4 * FN);
  ss_svm_delete(svm);
}

/* A lazy object (no diagnostic function) and an eager one (a function that
 * only watches) agree on statistics, scores and history: the next run, with
 * the stopping rule on, stops at the same iteration with the same model.
 * @p change, if non-NULL, is applied to both between the runs, before the
 * lazy one's statistics are read. */
static void lazy_equals_eager(SsSolver solver, SsVisitOrder order, SsStatus (*change)(SsSvm *))
{
  static double X[FN * FD], y[FN];
  tu_make_blobs(X, y, FN, FD, 0.7, 9);
  SsData data[2];
  SsSvm *svm[2];
  int calls = 0;
  for (int k = 0; k < 2; ++k) {
    svm[k] = tu_new_dense(solver, &data[k], X, y, FN, FD, 0.01);
    REQUIRE(svm[k]);
    REQUIRE(ss_svm_set_visit_order(svm[k], order) == SS_OK);
    REQUIRE(ss_svm_set_max_num_iterations(svm[k], 3 * FN + 17) == SS_OK);
    REQUIRE(ss_svm_set_epsilon(svm[k], 0) == SS_OK);
    /* (a fixed schedule: SDCA's default one differs when a function watches) */
    REQUIRE(ss_svm_set_diagnostic_frequency(svm[k], FN) == SS_OK);
  }
  REQUIRE(ss_svm_set_diagnostic_function(svm[1], watch, &calls) == SS_OK);
  for (int k = 0; k < 2; ++k) CHECK_EQ_INT(ss_svm_train(svm[k]), SS_OK);
  if (change)
    for (int k = 0; k < 2; ++k) REQUIRE(change(svm[k]) == SS_OK);
  CHECK(same_statistics(ss_svm_get_statistics(svm[0]), ss_svm_get_statistics(svm[1])));
  CHECK(tu_same_bits(ss_svm_get_scores(svm[0]), ss_svm_get_scores(svm[1]), FN));
  for (int k = 0; k < 2; ++k) {
    REQUIRE(ss_svm_set_epsilon(svm[k], 0.05) == SS_OK);
    REQUIRE(ss_svm_set_max_num_iterations(svm[k], 60 * FN) == SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm[k]), SS_OK);
  }
  CHECK(same_statistics(ss_svm_get_statistics(svm[0]), ss_svm_get_statistics(svm[1])));
  CHECK(tu_same_bits(ss_svm_get_model(svm[0]), ss_svm_get_model(svm[1]), FD));
  CHECK(ss_svm_get_bias(svm[0]) == ss_svm_get_bias(svm[1]));
  ss_svm_delete(svm[0]);
  ss_svm_delete(svm[1]);
}

static SsStatus double_lambda(SsSvm *svm)
{
  return ss_svm_set_lambda(svm, 2 * ss_svm_get_lambda(svm));
}

static SsStatus move_bias(SsSvm *svm)
{
  return ss_svm_set_bias(svm, ss_svm_get_bias(svm) + 0.25);
}

static SsStatus restart_count(SsSvm *svm)
{
  return ss_svm_set_iteration_number(svm, 5);
}

void test_final_diagnostic_lazy_equals_eager(void)
{
  const SsSolver solvers[] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN, SS_SOLVER_SDCA};
  for (size_t k = 0; k < sizeof solvers / sizeof *solvers; ++k) {
    lazy_equals_eager(solvers[k], SS_VISIT_PERMUTATION, NULL);
    lazy_equals_eager(solvers[k], SS_VISIT_DATA_ORDER, double_lambda);
  }
  lazy_equals_eager(SS_SOLVER_SGD, SS_VISIT_BLOCKS, move_bias);
  lazy_equals_eager(SS_SOLVER_SGD, SS_VISIT_PERMUTATION, restart_count);
}

/* A divergence only the closing diagnostic sees: as in
 * test_run_divergence_status, SGD diverges, found by a diagnostic every 5
 * iterations; a run that ends there sees it at its closing diagnostic. The
 * eager run returns it; the lazy one reports it through ss_svm_settle and
 * the statistics. */
static SsSvm *diverging(SsData *data, const double *X, const double *y, int64_t cap)
{
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, data, X, y, FN, FD, 1.0);
  if (!svm || ss_svm_set_loss(svm, SS_LOSS_L2) != SS_OK || ss_svm_set_t0(svm, 1.5) != SS_OK ||
      ss_svm_set_diagnostic_frequency(svm, 5) != SS_OK || ss_svm_set_max_num_iterations(svm, cap) != SS_OK) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

void test_final_diagnostic_divergence_verdict(void)
{
  static double X[FN * FD], y[FN];
  tu_make_blobs(X, y, FN, FD, 1.0, 11);
  for (int k = 0; k < FN * FD; ++k) X[k] *= 30.0;
  SsData data[3];
  SsSvm *probe = diverging(&data[2], X, y, 100 * FN);
  REQUIRE(probe);
  REQUIRE(ss_svm_train(probe) == SS_ERR_DIVERGED);
  const int64_t t_diverged = ss_svm_get_iteration_number(probe);
  REQUIRE(t_diverged > 5 && t_diverged < 100 * FN);
  ss_svm_delete(probe);

  SsSvm *svm[2];
  int calls = 0;
  SsStatus trained[2];
  for (int k = 0; k < 2; ++k) {
    svm[k] = diverging(&data[k], X, y, t_diverged);
    REQUIRE(svm[k]);
  }
  REQUIRE(ss_svm_set_diagnostic_function(svm[1], watch, &calls) == SS_OK);
  for (int k = 0; k < 2; ++k) trained[k] = ss_svm_train(svm[k]);
  CHECK_EQ_INT(trained[1], SS_ERR_DIVERGED);
  CHECK_EQ_INT(trained[0], SS_OK);
  CHECK_EQ_INT(ss_svm_settle(svm[0]), SS_ERR_DIVERGED);
  CHECK(strcmp(ss_svm_get_last_error(svm[0]), ss_svm_get_last_error(svm[1])) == 0);
  CHECK(same_statistics(ss_svm_get_statistics(svm[0]), ss_svm_get_statistics(svm[1])));
  CHECK_EQ_INT(ss_svm_get_statistics(svm[0])->status, SS_SVM_STATUS_DIVERGED);
  CHECK_EQ_INT(ss_svm_settle(svm[0]), SS_OK); /* nothing pending any more */
  CHECK_EQ_INT(ss_svm_settle(NULL), SS_ERR_BAD_ARG);
  ss_svm_delete(svm[0]);
  ss_svm_delete(svm[1]);
}

/* New data drop the pending diagnostic (the old data may be gone) and the
 * order buffer: a larger data set is visited whole (ASan checks the bounds). */
void test_final_diagnostic_new_data(void)
{
  static double X[2 * FN * FD], y[2 * FN];
  tu_make_blobs(X, y, 2 * FN, FD, 0.7, 13);
  const SsVisitOrder orders[] = {SS_VISIT_DATA_ORDER, SS_VISIT_PERMUTATION, SS_VISIT_BLOCKS};
  for (size_t o = 0; o < sizeof orders / sizeof *orders; ++o) {
    SsData small, large;
    SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &small, X, y, FN, FD, 0.01);
    REQUIRE(svm);
    REQUIRE(ss_svm_set_visit_order(svm, orders[o]) == SS_OK);
    REQUIRE(ss_svm_set_max_num_iterations(svm, FN) == SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    REQUIRE(ss_data_init_dense(&large, SS_DTYPE_FLOAT64, X, 2 * FN, FD, FD) == SS_OK);
    REQUIRE(ss_svm_set_data(svm, &large, y) == SS_OK);
    CHECK_EQ_INT(ss_svm_get_statistics(svm)->status, SS_SVM_STATUS_UNTRAINED);
    CHECK(ss_svm_get_scores(svm) == NULL);
    REQUIRE(ss_svm_set_max_num_iterations(svm, 4 * FN) == SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    const SsSvmStatistics *st = ss_svm_get_statistics(svm);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
    CHECK_EQ_INT(st->iteration, 5 * FN);
    CHECK(isfinite(st->objective));
    ss_svm_delete(svm);
  }
}

/* The order kept between calls changes nothing: one call of 2.5 epochs
 * equals calls that stop mid-epoch, resume it, and change the seed and the
 * order between them (each redrawn when needed). */
void test_final_diagnostic_order_buffer_reuse(void)
{
  static double X[FN * FD], y[FN];
  tu_make_blobs(X, y, FN, FD, 0.7, 17);
  const SsVisitOrder orders[] = {SS_VISIT_DATA_ORDER, SS_VISIT_PERMUTATION, SS_VISIT_BLOCKS};
  for (size_t o = 0; o < sizeof orders / sizeof *orders; ++o) {
    SsData data[2];
    SsSvm *whole = tu_new_dense(SS_SOLVER_SVMSGD2, &data[0], X, y, FN, FD, 0.01);
    SsSvm *parts = tu_new_dense(SS_SOLVER_SVMSGD2, &data[1], X, y, FN, FD, 0.01);
    REQUIRE(whole && parts);
    for (int k = 0; k < 2; ++k) {
      SsSvm *svm = k ? parts : whole;
      REQUIRE(ss_svm_set_visit_order(svm, orders[o]) == SS_OK);
      REQUIRE(ss_svm_set_epsilon(svm, 0) == SS_OK);
      REQUIRE(ss_svm_set_seed(svm, 3) == SS_OK);
    }
    REQUIRE(ss_svm_set_max_num_iterations(whole, 5 * FN / 2) == SS_OK);
    CHECK_EQ_INT(ss_svm_train(whole), SS_OK);
    /* another seed and order for a while, then the iteration count set back */
    REQUIRE(ss_svm_set_seed(parts, 4) == SS_OK);
    REQUIRE(ss_svm_set_visit_order(parts, orders[(o + 1) % 3]) == SS_OK);
    REQUIRE(ss_svm_set_max_num_iterations(parts, FN / 2) == SS_OK);
    CHECK_EQ_INT(ss_svm_train(parts), SS_OK);
    REQUIRE(ss_svm_set_iteration_number(parts, 0) == SS_OK);
    REQUIRE(ss_svm_set_model(parts, (const double[FD]){0}) == SS_OK);
    REQUIRE(ss_svm_set_bias(parts, 0) == SS_OK);
    REQUIRE(ss_svm_set_seed(parts, 3) == SS_OK);
    REQUIRE(ss_svm_set_visit_order(parts, orders[o]) == SS_OK);
    const int64_t pieces[] = {FN / 3, FN - FN / 3, FN + 7, FN / 2 - 7};
    for (int p = 0; p < 4; ++p) {
      REQUIRE(ss_svm_set_max_num_iterations(parts, pieces[p]) == SS_OK);
      CHECK_EQ_INT(ss_svm_train(parts), SS_OK);
    }
    CHECK_EQ_INT(ss_svm_get_iteration_number(parts), 5 * FN / 2);
    CHECK(tu_same_bits(ss_svm_get_model(whole), ss_svm_get_model(parts), FD));
    CHECK(ss_svm_get_bias(whole) == ss_svm_get_bias(parts));
    ss_svm_delete(whole);
    ss_svm_delete(parts);
  }
}

/* Seven calls of one epoch that no one reads between make the diagnostics
 * of one call of seven epochs (the schedule's, at epochs 1, 2, 3, 4, 6 and
 * the closing one at 7: epoch 5's pending one is dropped), and leave the
 * same statistics and history: the next run stops where the long call's
 * would. Counted through abstract data. */
void test_final_diagnostic_split_calls_cost_one_call(void)
{
  static double X[FN * FD], y[FN];
  tu_make_blobs(X, y, FN, FD, 0.7, 21);
  Counted counted[2] = {{.inner_products = 0}, {.inner_products = 0}};
  SsSvm *svm[2];
  for (int k = 0; k < 2; ++k) {
    REQUIRE(ss_data_init_dense(&counted[k].data, SS_DTYPE_FLOAT64, X, FN, FD, FD) == SS_OK);
    svm[k] = ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &counted[k], FD, FN, y, 0.01, counted_inner_product,
                                           counted_accumulate);
    REQUIRE(svm[k]);
    REQUIRE(ss_svm_set_epsilon(svm[k], 0) == SS_OK);
    counted[k].inner_products = 0;
  }
  REQUIRE(ss_svm_set_max_num_iterations(svm[0], 7 * FN) == SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm[0]), SS_OK);
  REQUIRE(ss_svm_set_max_num_iterations(svm[1], FN) == SS_OK);
  for (int e = 0; e < 7; ++e) CHECK_EQ_INT(ss_svm_train(svm[1]), SS_OK);
  CHECK_EQ_INT(counted[0].inner_products, 7 * FN + 5 * FN);
  CHECK_EQ_INT(counted[1].inner_products, counted[0].inner_products);
  CHECK(same_statistics(ss_svm_get_statistics(svm[0]), ss_svm_get_statistics(svm[1])));
  CHECK_EQ_INT(counted[1].inner_products, counted[0].inner_products);
  CHECK(tu_same_bits(ss_svm_get_scores(svm[0]), ss_svm_get_scores(svm[1]), FN));
  for (int k = 0; k < 2; ++k) {
    REQUIRE(ss_svm_set_epsilon(svm[k], 0.05) == SS_OK);
    REQUIRE(ss_svm_set_max_num_iterations(svm[k], 200 * FN) == SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm[k]), SS_OK);
  }
  const SsSvmStatistics *st = ss_svm_get_statistics(svm[0]);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  CHECK(same_statistics(st, ss_svm_get_statistics(svm[1])));
  CHECK(tu_same_bits(ss_svm_get_model(svm[0]), ss_svm_get_model(svm[1]), FD));
  ss_svm_delete(svm[0]);
  ss_svm_delete(svm[1]);
}

/* test_run.c -- the run driver (src/core/driver/run.c) through both objects: the
 * cap, the relative-gap certificate, the objective window, divergence,
 * interruption, and N iterations == N/2 + N/2 at the default schedule. */
#include "minitest.h"
#include "testutil.h"

#include "stochsvm/kernel_svm.h"
#include "../../src/core/driver/run.h"
#include "../../src/core/linear/svm_internal.h"

#include <math.h>
#include <string.h>

enum { RN = 200, RD = 5 };

static void blobs(double *X, double *y, double sep, uint64_t seed)
{
  tu_make_blobs(X, y, RN, RD, sep, seed);
}

void test_run_stops_on_cap(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.5, 3);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, 1e-3);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 3 * RN + 7), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(st->iteration, 3 * RN + 7);
  CHECK(isfinite(st->objective));
  ss_svm_delete(svm);
}

/* The SDCA dual of the hinge loss, written from the formula: with
 * beta_i = y_i alpha_i in [0, 1], D = 1/n sum_i beta_i - lambda/2 ||w~||^2. */
static double hinge_dual(const double *alpha, const double *y, const double *w, double b,
                         double B, double lambda)
{
  double sum = 0, norm2 = (b / B) * (b / B);
  for (int i = 0; i < RN; ++i) sum += y[i] * alpha[i];
  for (int k = 0; k < RD; ++k) norm2 += w[k] * w[k];
  return sum / RN - 0.5 * lambda * norm2;
}

void test_run_relative_gap_certificate(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.4, 5); /* overlapping classes: many bounded alphas */
  const double lambda = 1e-3, epsilon = 1e-3;
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, RN, RD, lambda);
  SsSvm *exact = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, RN, RD, lambda);
  REQUIRE(svm != NULL && exact != NULL);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, epsilon), SS_OK);
  /* room to converge under any diagnostic schedule (the hinge primal is noisy) */
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 2000 * (int64_t)RN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);

  /* The certificate, recomputed from the model and the dual variables. */
  const double *w = ss_svm_get_model(svm), b = ss_svm_get_bias(svm);
  double P = tu_objective(X, RN, RD, RD, y, w, b, 1.0, lambda, SS_LOSS_HINGE, NULL, NULL, NULL);
  /* D at w~(alpha), which the model returned need not be (sdca_best.c) */
  const double *alpha = ss_svm_get_dual_variables(svm);
  double wa[RD] = {0}, ba = 0;
  for (int i = 0; i < RN; ++i) {
    for (int k = 0; k < RD; ++k) wa[k] += alpha[i] * X[i * RD + k] / (lambda * RN);
    ba += alpha[i] / (lambda * RN);
  }
  double D = hinge_dual(alpha, y, wa, ba, 1.0, lambda);
  CHECK_REL(P, st->objective, 1e-10);
  CHECK_REL(D, st->dual_objective, 1e-9);
  CHECK(P - D <= epsilon * D);
  /* It is not trivially met: an absolute gap of epsilon would have stopped earlier. */
  CHECK(st->epoch > 1);

  /* And what it promises: P <= (1 + epsilon) P*. */
  CHECK_EQ_INT(ss_svm_set_epsilon(exact, 1e-12), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(exact, 100000 * (int64_t)RN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(exact), SS_OK);
  const double P_star = ss_svm_get_statistics(exact)->objective;
  CHECK(P <= (1 + epsilon) * P_star);
  CHECK(P >= P_star * (1 - 1e-12));
  ss_svm_delete(svm);
  ss_svm_delete(exact);
}

/* SGD with a huge t0 takes tiny steps: the scores barely move, so the former
 * rule declares convergence far from the optimum; the objective window
 * does not fire while the objective still falls at a steady pace. */
void test_run_window_no_false_convergence(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.5, 7);
  const double lambda = 1e-2;
  SsData data;
  SsSvm *exact = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, RN, RD, lambda);
  REQUIRE(exact != NULL);
  CHECK_EQ_INT(ss_svm_set_epsilon(exact, 1e-12), SS_OK);
  CHECK_EQ_INT(ss_svm_train(exact), SS_OK);
  const double P_star = ss_svm_get_statistics(exact)->objective;

  double P_end[2];
  SsSvmStatus status[2];
  for (int rule = 0; rule < 2; ++rule) {
    SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, lambda);
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_svm_set_t0(svm, 1e5 / lambda), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 60 * RN), SS_OK);
    CHECK_EQ_INT(ss_svm_set_stopping_rule(svm, rule ? SS_SVM_STOP_SCORES_VARIATION : SS_SVM_STOP_DEFAULT),
                 SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    P_end[rule] = ss_svm_get_statistics(svm)->objective;
    status[rule] = ss_svm_get_statistics(svm)->status;
    ss_svm_delete(svm);
  }
  /* The former rule: "converged" above 1.05 P*. */
  CHECK_EQ_INT(status[1], SS_SVM_STATUS_CONVERGED);
  CHECK(P_end[1] > 1.05 * P_star);
  /* The window: no "converged" while above the optimum by more than epsilon. */
  CHECK(status[0] != SS_SVM_STATUS_CONVERGED || P_end[0] <= 1.02 * P_star);
  CHECK_EQ_INT(status[0], SS_SVM_STATUS_MAX_ITERATIONS);
  ss_svm_delete(exact);
}

void test_run_window_converges(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.5, 9);
  const double lambda = 1e-2;
  SsData data;
  SsSvm *exact = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, RN, RD, lambda);
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, lambda);
  REQUIRE(exact != NULL && svm != NULL);
  CHECK_EQ_INT(ss_svm_set_epsilon(exact, 1e-12), SS_OK);
  CHECK_EQ_INT(ss_svm_train(exact), SS_OK);
  const double P_star = ss_svm_get_statistics(exact)->objective;
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 10000 * RN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  CHECK(st->iteration < 10000 * RN);
  CHECK(st->objective <= 1.02 * P_star);
  ss_svm_delete(svm);
  ss_svm_delete(exact);
}

/* The window's proof (ss_run_window_may_fire_by): records at 100, 200,
 * 300, ... with the objectives below. The band of a diagnostic by t_last
 * holds the records from the last at or before half of t_last - 100. */
void test_run_window_may_fire_by(void)
{
  int64_t it[4] = {100, 200, 300, 400};
  double P[4] = {0.30, 0.066, 0.048, 0.0479};
  SsRunHistory h = {.iteration = it, .objective = P, .count = 3};
  const double eps = 0.01;
  /* by 700 the band starts at 400 or later: no record kept in it */
  CHECK(ss_run_window_may_fire_by(&h, 700, eps));
  /* by 500 it starts at 300 (the last record at or before 100 + 400 / 2),
   * the last one: a single record, no proof */
  CHECK(ss_run_window_may_fire_by(&h, 500, eps));
  /* by 450 the band starts at or before 275, i.e. at 200: 0.066 and 0.048
   * spread 0.018 > 0.01/0.99 * 0.048: it cannot fire */
  CHECK(!ss_run_window_may_fire_by(&h, 450, eps));
  /* nor by 400, the earliest diagnostic left (its band from 200 too) */
  CHECK(!ss_run_window_may_fire_by(&h, 400, eps));
  /* no diagnostic left at or before the last record */
  CHECK(!ss_run_window_may_fire_by(&h, 300, eps));
  /* a flat stretch: 0.048 and 0.0479 within the band's bound (ratio 1.002 <
   * 1 / 0.99): it may fire by 650 (band from 300) */
  h.count = 4;
  CHECK(ss_run_window_may_fire_by(&h, 650, eps));
  /* the bound is epsilon / (1 - epsilon) = 1.0101 % of the least record:
   * 0.0485 against 0.048 spreads 1.042 %: cannot */
  P[3] = 0.0485;
  CHECK(!ss_run_window_may_fire_by(&h, 650, eps));
  P[3] = 0.04848; /* 0.00048 / 0.048 = 1.0 % <= 1.0101 %: may */
  CHECK(ss_run_window_may_fire_by(&h, 650, eps));
  /* the window off (epsilon 0) never fires; an empty history may */
  CHECK(!ss_run_window_may_fire_by(&h, 650, 0.0));
  h.count = 0;
  CHECK(ss_run_window_may_fire_by(&h, 650, eps));
}

/* Squared loss, lambda tiny, t0 just above 1: the first steps multiply the
 * error by about eta ||x||^2 each. */
void test_run_divergence_status(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 1.0, 11);
  for (int k = 0; k < RN * RD; ++k) X[k] *= 30.0;
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, 1.0);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_L2), SS_OK);
  CHECK_EQ_INT(ss_svm_set_t0(svm, 1.5), SS_OK);
  CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(svm, 5), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 100 * RN), SS_OK);
  SsStatus s = ss_svm_train(svm);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(s, SS_ERR_DIVERGED);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_DIVERGED);
  CHECK(isfinite(st->objective));
  CHECK(st->iteration < 100 * RN);
  ss_svm_delete(svm);
}

/* Pegasos at VLFeat's default t0 = 2/lambda on rows of norm ~1e3: a first
 * step of 1/2 puts the objective far above that of w = 0. The step back-off
 * (run.c) restarts from w = 0 with t0 sized by the row norms, and the run
 * ends below the zero model's objective; with the same t0 set by the caller
 * the run ends as before (no back-off, the steps are the caller's). */
void test_run_step_backoff(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 1.0, 11);
  for (int k = 0; k < RN * RD; ++k) X[k] *= 1e3;
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, 1e-3);
  SsSvm *fixed = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, 1e-3);
  REQUIRE(svm != NULL && fixed != NULL);
  CHECK_EQ_INT(ss_svm_set_t0(fixed, ss_svm_get_t0(svm)), SS_OK);
  for (int k = 0; k < 2; ++k) {
    SsSvm *s = k == 0 ? svm : fixed;
    CHECK_EQ_INT(ss_svm_set_epsilon(s, 1e-3), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(s, 50 * RN), SS_OK);
  }
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK(st->num_step_backoffs >= 1 && st->num_step_backoffs <= 4);
  CHECK(st->objective < 1.0); /* the hinge loss of w = 0 */
  CHECK(ss_svm_get_t0(svm) == 2.0 / 1e-3); /* the default, as before */
  const SsStatus s = ss_svm_train(fixed);
  const SsSvmStatistics *old = ss_svm_get_statistics(fixed);
  CHECK_EQ_INT(old->num_step_backoffs, 0);
  CHECK(s == SS_ERR_DIVERGED || old->objective > 1.0);
  ss_svm_delete(svm);
  ss_svm_delete(fixed);
}

/* One row 300x the others' norm, squared hinge, C = 1 and 1e3: SVMSGD2's and
 * SGD-QN's default t0, sized by the 99 % quantile of the norms, does not see
 * it; each run backs off (10x longer t0; SGD-QN's scaling reset too) and
 * ends below the zero model's objective (1). */
void test_run_step_backoff_outlier(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.3, 7);
  for (int j = 0; j < RD; ++j) X[(RN / 2) * RD + j] *= 300.0;
  const SsSolver solvers[2] = {SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN};
  const double C[2] = {1.0, 1e3};
  for (int a = 0; a < 2; ++a) {
    for (int c = 0; c < 2; ++c) {
      SsData data;
      SsSvm *svm = tu_new_dense(solvers[a], &data, X, y, RN, RD, 1.0 / (C[c] * RN));
      REQUIRE(svm != NULL);
      CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_HINGE2), SS_OK);
      CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-3), SS_OK);
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const SsSvmStatistics *st = ss_svm_get_statistics(svm);
      CHECK(st->objective < 1.0);
      CHECK(st->num_step_backoffs >= 1);
      ss_svm_delete(svm);
    }
  }
}

static int stop_at_once(void *user)
{
  ++*(int *)user;
  return 1;
}

void test_run_interrupt(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.5, 13);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, 1e-4);
  REQUIRE(svm != NULL);
  int calls = 0;
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 1000 * RN), SS_OK);
  CHECK_EQ_INT(ss_svm_set_interrupt_function(svm, stop_at_once, &calls), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_INTERRUPTED);
  CHECK_EQ_INT(calls, 1);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_INTERRUPTED);
  CHECK_EQ_INT(st->iteration, SS_SVM_INTERRUPT_PERIOD);
  ss_svm_delete(svm);
}

/* N iterations equal N/2 and N/2 more at the default (geometric) schedule,
 * for both objects. */
void test_run_split_equals_whole(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.5, 15);
  SsData data;
  const SsSolver solvers[2] = {SS_SOLVER_SGD, SS_SOLVER_SDCA};
  for (int k = 0; k < 2; ++k) {
    SsSvm *whole = tu_new_dense(solvers[k], &data, X, y, RN, RD, 1e-3);
    SsSvm *split = tu_new_dense(solvers[k], &data, X, y, RN, RD, 1e-3);
    REQUIRE(whole != NULL && split != NULL);
    ss_svm_set_epsilon(whole, 0);
    ss_svm_set_epsilon(split, 0);
    ss_svm_set_max_num_iterations(whole, 14 * RN + 3);
    CHECK_EQ_INT(ss_svm_train(whole), SS_OK);
    ss_svm_set_max_num_iterations(split, 7 * RN + 1);
    CHECK_EQ_INT(ss_svm_train(split), SS_OK);
    ss_svm_set_max_num_iterations(split, 7 * RN + 2);
    CHECK_EQ_INT(ss_svm_train(split), SS_OK);
    CHECK(tu_same_bits(ss_svm_get_model(whole), ss_svm_get_model(split), RD));
    CHECK(ss_svm_get_bias(whole) == ss_svm_get_bias(split));
    ss_svm_delete(whole);
    ss_svm_delete(split);
  }

  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  SsKernelSvm *kw = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, 1e-3);
  SsKernelSvm *ks = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, 1e-3);
  REQUIRE(kw != NULL && ks != NULL);
  ss_kernel_svm_set_epsilon(kw, 0);
  ss_kernel_svm_set_epsilon(ks, 0);
  ss_kernel_svm_set_max_num_iterations(kw, 6 * RN);
  CHECK_EQ_INT(ss_kernel_svm_train(kw), SS_OK);
  ss_kernel_svm_set_max_num_iterations(ks, 3 * RN - 5);
  CHECK_EQ_INT(ss_kernel_svm_train(ks), SS_OK);
  ss_kernel_svm_set_max_num_iterations(ks, 3 * RN + 5);
  CHECK_EQ_INT(ss_kernel_svm_train(ks), SS_OK);
  CHECK(memcmp(ss_kernel_svm_get_dual_variables(kw), ss_kernel_svm_get_dual_variables(ks),
               RN * sizeof(double)) == 0);
  ss_kernel_svm_delete(kw);
  ss_kernel_svm_delete(ks);
}

/* The kernel object: SDCA stops on the relative gap, and its certificate
 * holds; the default cap is SS_KERNEL_SVM_DEFAULT_EPOCHS epochs. */
void test_run_kernel_relative_gap(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.4, 17);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, RN, RD, RD) == SS_OK);
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, 1e-3);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_kernel_svm_get_max_num_iterations(svm), SS_KERNEL_SVM_DEFAULT_EPOCHS * RN);
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm, 1e-3), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  CHECK(st->duality_gap <= 1e-3 * st->dual_objective);
  ss_kernel_svm_delete(svm);
}

/* The published iteration number (ss_*_poll_iteration_number), read where
 * the driver stops between pieces of steps: at every interrupt poll of one
 * epoch it equals the object's iteration number and increases. */
typedef struct PollLog {
  const void *svm;
  int kernel;
  int64_t polled[64], actual[64];
  int count;
} PollLog;

static int log_poll(void *user)
{
  PollLog *log = user;
  if (log->count < 64) {
    log->polled[log->count] =
        log->kernel ? ss_kernel_svm_poll_iteration_number(log->svm)
                    : ss_svm_poll_iteration_number(log->svm);
    log->actual[log->count] =
        log->kernel ? ss_kernel_svm_get_iteration_number(log->svm)
                    : ss_svm_get_iteration_number(log->svm);
    ++log->count;
  }
  return 0;
}

void test_run_poll_iteration_number(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.5, 19);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, RN, RD, RD) == SS_OK);
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  SsKernelSvm *ksvm = ss_kernel_svm_new(SS_KSOLVER_PEGASOS, &kernel, &data, y, 1e-3);
  REQUIRE(ksvm != NULL);
  CHECK_EQ_INT(ss_kernel_svm_poll_iteration_number(ksvm), 0);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(ksvm, RN), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(ksvm, 0), SS_OK);
  PollLog log = {.svm = ksvm, .kernel = 1};
  CHECK_EQ_INT(ss_kernel_svm_set_interrupt_function(ksvm, log_poll, &log), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(ksvm), SS_OK);
  /* 200 iterations, a poll every 64: at 64, 128, 192, inside the one epoch. */
  CHECK_EQ_INT(log.count, RN / SS_KERNEL_SVM_INTERRUPT_PERIOD);
  for (int k = 0; k < log.count; ++k) {
    CHECK_EQ_INT(log.polled[k], (k + 1) * SS_KERNEL_SVM_INTERRUPT_PERIOD);
    CHECK_EQ_INT(log.polled[k], log.actual[k]);
  }
  CHECK_EQ_INT(ss_kernel_svm_poll_iteration_number(ksvm), RN);
  ss_kernel_svm_delete(ksvm);

  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, 1e-3);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 3 * RN + 7), SS_OK);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_poll_iteration_number(svm), 3 * RN + 7);
  /* A second train call publishes from where the first ended. */
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 5), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_poll_iteration_number(svm), 3 * RN + 12);
  ss_svm_delete(svm);
}

/* ---- the diagnostic budget, on a fake object whose steps do nothing ---- */

typedef struct FakeObject {
  int64_t t;
  double epoch_cost;  /* in diagnostics */
  int num_measured;
  int64_t measured_at[128];
  int64_t futile_before; /* diagnostic_futile: true before this t (fake_futile_ops) */
  int num_futile;        /* ... and how often it was asked with true */
} FakeObject;

static SsStatus fake_steps(void *object, int64_t t, int64_t t_end)
{
  (void)t;
  ((FakeObject *)object)->t = t_end;
  return SS_OK;
}
static int64_t fake_iteration(const void *object) { return ((const FakeObject *)object)->t; }
static SsStatus fake_measure(void *object, SsSvmStatus status, SsRunMeasure *m)
{
  (void)status;
  FakeObject *f = object;
  if (f->num_measured < 128) f->measured_at[f->num_measured] = f->t;
  ++f->num_measured;
  m->primal = 1.0; /* a gap that never closes: the rule does not fire */
  m->dual = 0.0;
  return SS_OK;
}
static void fake_set_status(void *object, SsSvmStatus status) { (void)object, (void)status; }
static double fake_epoch_cost(const void *object) { return ((const FakeObject *)object)->epoch_cost; }

static const SsRunOps fake_ops = {
  .steps = fake_steps,
  .iteration = fake_iteration,
  .measure = fake_measure,
  .set_status = fake_set_status,
  .epoch_cost = fake_epoch_cost,
};

static bool fake_futile(void *object)
{
  FakeObject *f = object;
  const bool futile = f->t < f->futile_before;
  f->num_futile += futile;
  return futile;
}

static const SsRunOps fake_futile_ops = {
  .steps = fake_steps,
  .iteration = fake_iteration,
  .measure = fake_measure,
  .set_status = fake_set_status,
  .epoch_cost = fake_epoch_cost,
  .diagnostic_futile = fake_futile,
};

/* 100 epochs of n = 10; returns the diagnostics made (their t in f). */
static int fake_run_ops(FakeObject *f, double budget, const SsRunOps *ops)
{
  SsRunHistory history = {.reference = NAN};
  SsRunSettings settings = {.num_data = 10, .max_num_iterations = 1000, .diagnostic_budget = budget,
                            .epsilon = 1e-3, .criterion = SS_RUN_RELATIVE_GAP, .zero_objective = 1,
                            .interrupt_period = 1000000};
  SsRun run = {.history = &history, .settings = settings, .ops = ops, .object = f};
  CHECK_EQ_INT(ss_run_train(&run), SS_OK);
  ss_run_history_free(&history);
  return f->num_measured;
}

static int fake_run(FakeObject *f, double budget) { return fake_run_ops(f, budget, &fake_ops); }

void test_run_diagnostic_budget(void)
{
  /* An epoch worth one diagnostic, a budget of 10 %: a diagnostic every 10
   * epochs, and the final one on the cap. */
  FakeObject f = {.epoch_cost = 1.0};
  CHECK_EQ_INT(fake_run(&f, 0.1), 10);
  for (int k = 0; k < 10; ++k) CHECK_EQ_INT(f.measured_at[k], 100 * (k + 1));
  /* An epoch worth 2.5: the k-th once 2.5 e >= 10 k, every 4 epochs; the
   * diagnostics before the final one cost 24 <= 0.1 * 250. */
  f = (FakeObject){.epoch_cost = 2.5};
  CHECK_EQ_INT(fake_run(&f, 0.1), 25);
  for (int k = 0; k < 24; ++k) CHECK_EQ_INT(f.measured_at[k], 40 * (k + 1));
  CHECK_EQ_INT(f.measured_at[24], 1000);
  /* Without a budget: the epoch schedule 1, 2, 3, 4, 6, 9, 13, 19, 28, 42,
   * 63, 94, then the cap. */
  f = (FakeObject){.epoch_cost = 1.0};
  const int64_t epochs[13] = {1, 2, 3, 4, 6, 9, 13, 19, 28, 42, 63, 94, 100};
  CHECK_EQ_INT(fake_run(&f, 0), 13);
  for (int k = 0; k < 13; ++k) CHECK_EQ_INT(f.measured_at[k], 10 * epochs[k]);
}

/* The budget's diagnostics the object calls futile are skipped but counted
 * as made: the ones made stay at the budget's iterations (not caught up
 * later), and the final one on the cap is made regardless. */
void test_run_diagnostic_futile(void)
{
  /* An epoch worth 2.5 diagnostics at 10 %: due every 4 epochs (t = 40 k);
   * futile before t = 500: the 12 due at 40 .. 480 skipped. */
  FakeObject f = {.epoch_cost = 2.5, .futile_before = 500};
  CHECK_EQ_INT(fake_run_ops(&f, 0.1, &fake_futile_ops), 13);
  CHECK_EQ_INT(f.num_futile, 12);
  for (int k = 0; k < 12; ++k) CHECK_EQ_INT(f.measured_at[k], 40 * (k + 13));
  CHECK_EQ_INT(f.measured_at[12], 1000);
  /* Futile to the end: only the final diagnostic, on the cap. */
  f = (FakeObject){.epoch_cost = 2.5, .futile_before = 2000};
  CHECK_EQ_INT(fake_run_ops(&f, 0.1, &fake_futile_ops), 1);
  CHECK_EQ_INT(f.measured_at[0], 1000);
  CHECK_EQ_INT(f.num_futile, 24);
}

/* SDCA's trend (sdca_trend.c): from the last two checks' relative gaps, a
 * check is futile while the geometric trend through them predicts a gap
 * above 100 epsilon; the logistic loss only, only on a falling gap, and not
 * where the Newton fallback's stall rule would judge a doubling. */
void test_sdca_trend_futile(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.5, 13);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, RN, RD, 1e-2);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_LOGISTIC), SS_OK);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-8), SS_OK);
  /* the stall rule apart (below) */
  CHECK_EQ_INT(ss_svm_set_newton_fallback(svm, SS_SVM_NEWTON_FALLBACK_OFF), SS_OK);
  ss_sdca_trend_begin(svm);
  /* gaps 1e-2 at epoch 4, 1e-3 at epoch 7: a decade per 3 epochs */
  SsRunMeasure m = {.primal = 1.01, .dual = 1.0, .finite = true};
  svm->iteration = 4 * RN;
  CHECK(!ss_sdca_diagnostic_futile(svm)); /* no trend yet */
  ss_sdca_trend_record(svm, &m);
  svm->iteration = 7 * RN;
  CHECK(!ss_sdca_diagnostic_futile(svm));
  m.primal = 1.001;
  ss_sdca_trend_record(svm, &m);
  /* predicted: 1e-4 at 10, 1e-5 at 13, 1e-6 at 16, 1e-7 at 19 */
  svm->iteration = 10 * RN;
  CHECK(ss_sdca_diagnostic_futile(svm));
  svm->iteration = 16 * RN - 10;
  CHECK(ss_sdca_diagnostic_futile(svm)); /* just above 1e-6 */
  svm->iteration = 16 * RN + 10;
  CHECK(!ss_sdca_diagnostic_futile(svm)); /* just below */
  /* the same trend with a tolerance 100 times looser: due already at 10 */
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-6), SS_OK);
  svm->iteration = 10 * RN;
  CHECK(!ss_sdca_diagnostic_futile(svm));
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-8), SS_OK);
  CHECK(ss_sdca_diagnostic_futile(svm));
  /* epsilon 0 (no rule): never */
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0), SS_OK);
  CHECK(!ss_sdca_diagnostic_futile(svm));
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-8), SS_OK);
  /* a gap that rose: no prediction */
  m.primal = 1.002;
  svm->iteration = 11 * RN;
  ss_sdca_trend_record(svm, &m);
  CHECK(!ss_sdca_diagnostic_futile(svm));
  /* other losses: never */
  CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_HINGE2), SS_OK);
  ss_sdca_trend_begin(svm);
  m.primal = 1.01;
  svm->iteration = 4 * RN;
  ss_sdca_trend_record(svm, &m);
  m.primal = 1.001;
  svm->iteration = 7 * RN;
  ss_sdca_trend_record(svm, &m);
  svm->iteration = 10 * RN;
  CHECK(!ss_sdca_diagnostic_futile(svm));
  /* a non-positive dual: the trend starts again */
  CHECK_EQ_INT(ss_svm_set_loss(svm, SS_LOSS_LOGISTIC), SS_OK);
  CHECK(ss_sdca_diagnostic_futile(svm));
  /* With the Newton fallback, a check that completes a doubling of the
   * stall rule's is made: at epoch 10 after a checkpoint at 4, not at 7. */
  CHECK_EQ_INT(ss_svm_set_newton_fallback(svm, SS_SVM_NEWTON_FALLBACK_AUTO), SS_OK);
  svm->newton.run_start = 0;
  svm->newton.checkpoint_epochs = 4;
  CHECK(!ss_sdca_diagnostic_futile(svm));
  svm->newton.checkpoint_epochs = 7;
  CHECK(ss_sdca_diagnostic_futile(svm));
  m.dual = -1;
  ss_sdca_trend_record(svm, &m);
  CHECK(!ss_sdca_diagnostic_futile(svm));
  ss_svm_delete(svm);
}

/* The primal solvers' dual bound (primal_certificate.c): below the optimum
 * at any model (weak duality), and tight at the optimum for the smooth
 * losses, where the window rule's veto leans on it. */
void test_run_primal_certificate(void)
{
  double X[RN * RD], y[RN];
  blobs(X, y, 0.5, 11);
  const double lambda = 1e-2;
  const SsLoss losses[3] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int l = 0; l < 3; ++l) {
    SsData data;
    SsSvm *exact = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, RN, RD, lambda);
    SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, RN, RD, lambda);
    REQUIRE(exact != NULL && svm != NULL);
    CHECK_EQ_INT(ss_svm_set_loss(exact, losses[l]), SS_OK);
    CHECK_EQ_INT(ss_svm_set_loss(svm, losses[l]), SS_OK);
    CHECK_EQ_INT(ss_svm_set_epsilon(exact, 1e-12), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(exact, 5000 * RN), SS_OK);
    CHECK_EQ_INT(ss_svm_train(exact), SS_OK);
    const double P_star = ss_svm_get_statistics(exact)->dual_objective; /* <= P*, within 1e-12 */
    double w[RD];
    memcpy(w, ss_svm_get_model(exact), sizeof w);
    const double b = ss_svm_get_bias(exact);

    SsRunMeasure m;
    for (int trial = 0; trial < 3; ++trial) {
      /* the zero model, the optimum scaled by 3, and the optimum */
      double v[RD];
      for (int k = 0; k < RD; ++k) v[k] = trial == 0 ? 0 : (trial == 1 ? 3 * w[k] : w[k]);
      CHECK_EQ_INT(ss_svm_set_model(svm, v), SS_OK);
      CHECK_EQ_INT(ss_svm_set_bias(svm, trial == 0 ? 0 : b), SS_OK);
      CHECK_EQ_INT(ss_svm_measure(svm, SS_SVM_STATUS_TRAINING, &m), SS_OK);
      const double D = ss_svm_primal_certificate(svm, ss_svm_get_scores(svm));
      CHECK(isfinite(D));
      CHECK_EQ_INT(ss_svm_primal_certificate_kind(svm),
                   losses[l] == SS_LOSS_HINGE ? SS_RUN_BOUND_NONE : SS_RUN_BOUND_TIGHT);
      CHECK(D <= P_star * (1 + 1e-9));
      if (trial == 2) {
        CHECK(m.primal <= P_star * (1 + 1e-9));
        /* the smooth losses: tight; the hinge's subgradient: a bound well above 0 */
        if (losses[l] == SS_LOSS_HINGE) CHECK(D > 0.5 * P_star);
        else CHECK(m.primal - D <= 1e-6 * P_star);
      }
    }
    ss_svm_delete(svm);
    ss_svm_delete(exact);
  }
}

/* test_budget_stop.c -- the run driver's budget rule (src/core/driver/run.c):
 * through a scripted object, it fires on a plateaued gap while the budget is
 * full, never while the gap falls by a quarter per doubling of the run, never
 * while the budget has room, never at epsilon = 0; through the kernel object,
 * BSCA with a budget far too small stops "budget_limited" before its cap, and
 * with B >= n it never does; a dual that is only an estimate (BSCA after
 * budget maintenance) never certifies a stop: where it closes the gap the run
 * ends "budget_limited", reporting no dual. */
#include "minitest.h"
#include "testutil.h"

#include "stochsvm/kernel_budget.h"
#include "stochsvm/kernel_svm.h"
#include "../../src/core/driver/run.h"

#include <math.h>

/* ---- a scripted object: P = 1, D = 1 / (1 + gap(epoch)), so that the
 * rule's (P - D) / D is gap(epoch); no steps of its own ---- */

enum { SN = 10 };

typedef struct Scripted {
  int64_t t;
  double (*gap)(double epoch);
  bool full;          /* what budget_full answers */
  bool estimate;      /* D is only an estimate (SsRunMeasure.dual_estimate, dual NaN) */
  SsSvmStatus status; /* the last status set */
} Scripted;

static SsStatus scripted_steps(void *object, int64_t t, int64_t t_end)
{
  (void)t;
  ((Scripted *)object)->t = t_end;
  return SS_OK;
}

static int64_t scripted_iteration(const void *object)
{
  return ((const Scripted *)object)->t;
}

static SsStatus scripted_measure(void *object, SsSvmStatus status, SsRunMeasure *m)
{
  Scripted *s = object;
  s->status = status;
  m->primal = 1.0;
  m->dual = 1.0 / (1.0 + s->gap((double)s->t / SN));
  if (s->estimate) {
    m->dual_estimate = m->dual;
    m->dual = NAN;
  }
  return SS_OK;
}

static void scripted_set_status(void *object, SsSvmStatus status)
{
  ((Scripted *)object)->status = status;
}

static bool scripted_full(const void *object)
{
  return ((const Scripted *)object)->full;
}

static const SsRunOps scripted_ops = {
  .steps = scripted_steps,
  .iteration = scripted_iteration,
  .measure = scripted_measure,
  .set_status = scripted_set_status,
  .budget_full = scripted_full,
};

/* A run of at most @p epochs epochs with a diagnostic every @p frequency
 * iterations (0: the default schedule); its status, and the iteration it
 * ended at in @p end. */
static SsSvmStatus scripted_run_every(double (*gap)(double), bool full, double epsilon, int64_t epochs,
                                      int64_t frequency, int64_t *end)
{
  Scripted object = {.gap = gap, .full = full, .status = SS_SVM_STATUS_UNTRAINED};
  SsRunHistory history = {0};
  SsRun run = {.history = &history, .ops = &scripted_ops, .object = &object,
               .settings = {.num_data = SN, .max_num_iterations = epochs * SN, .epsilon = epsilon,
                            .criterion = SS_RUN_RELATIVE_GAP, .interrupt_period = INT64_MAX,
                            .diagnostic_frequency = frequency}};
  SsStatus status = ss_run_train(&run);
  ss_run_history_free(&history);
  *end = object.t;
  return status == SS_OK ? object.status : SS_SVM_STATUS_ERROR;
}

/* The same on the default schedule, the epoch it ended at in @p end. */
static SsSvmStatus scripted_run(double (*gap)(double), bool full, double epsilon, int64_t epochs,
                                int64_t *end)
{
  const SsSvmStatus status = scripted_run_every(gap, full, epsilon, epochs, 0, end);
  *end /= SN;
  return status;
}

/* Falls fast, then stays at 0.1: the budget's floor. */
static double plateau(double epoch)
{
  return 0.1 + 0.5 / (epoch * epoch * epoch);
}

/* Falls by 29 % per doubling, for ever. */
static double inverse_sqrt(double epoch)
{
  return 0.5 / sqrt(epoch);
}

/* Falls by 26 % per doubling (just more than the rule's quarter). */
static double slow_power(double epoch)
{
  return 0.5 * pow(epoch, -0.44);
}

/* A plateau that wobbles by +-10 % from diagnostic to diagnostic. */
static double noisy_plateau(double epoch)
{
  return 0.1 * (1 + 0.1 * sin(7 * epoch)) + 0.5 / (epoch * epoch * epoch);
}

void test_budget_rule_fires_on_a_plateau(void)
{
  int64_t end = 0;
  CHECK_EQ_INT(scripted_run(plateau, true, 1e-3, 1000, &end), SS_SVM_STATUS_BUDGET_LIMITED);
  CHECK(end >= 4 && end <= 20); /* four diagnostics at least; the plateau starts near epoch 3 */
  CHECK_EQ_INT(scripted_run(noisy_plateau, true, 1e-3, 1000, &end), SS_SVM_STATUS_BUDGET_LIMITED);
  CHECK(end <= 40);
}

void test_budget_rule_waits_for_a_falling_gap(void)
{
  int64_t end = 0;
  CHECK_EQ_INT(scripted_run(inverse_sqrt, true, 1e-6, 3000, &end), SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(end, 3000);
  CHECK_EQ_INT(scripted_run(slow_power, true, 1e-6, 3000, &end), SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(end, 3000);
}

/* Flat for three epochs, then falling like 1/t^2 (a budgeted model's slow
 * start): a gap that keeps halving per doubling of the run. */
static double flat_start(double epoch)
{
  return epoch <= 3 ? 1.0 : 9.0 / (epoch * epoch);
}

void test_budget_rule_judges_two_epochs_at_least(void)
{
  int64_t end = 0;
  /* Diagnostics every half epoch (train calls of n/2 iterations, or a
   * frequency set): with one epoch since t_b the rule read 1.5 flat epochs
   * (1.5 to 3) against the flat start and fired at epoch 3; with two it
   * sees the fall. */
  CHECK_EQ_INT(scripted_run_every(flat_start, true, 1e-6, 300, SN / 2, &end), SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(end, 300 * SN);
  /* the default schedule (1, 2, 3, 4, 6, ...) never read it so */
  CHECK_EQ_INT(scripted_run(flat_start, true, 1e-6, 300, &end), SS_SVM_STATUS_MAX_ITERATIONS);
  /* and a plateau still stops a run with dense diagnostics */
  CHECK_EQ_INT(scripted_run_every(plateau, true, 1e-3, 1000, SN / 2, &end), SS_SVM_STATUS_BUDGET_LIMITED);
  CHECK(end <= 20 * SN);
}

void test_budget_rule_needs_a_full_budget_and_a_tolerance(void)
{
  int64_t end = 0;
  CHECK_EQ_INT(scripted_run(plateau, false, 1e-3, 300, &end), SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(end, 300);
  CHECK_EQ_INT(scripted_run(plateau, true, 0.0, 300, &end), SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(end, 300);
  /* The gap test comes first: a plateau below epsilon is convergence. */
  CHECK_EQ_INT(scripted_run(plateau, true, 0.2, 300, &end), SS_SVM_STATUS_CONVERGED);
  CHECK(end < 300);
}

/* ---- BSCA on the kernel object ---- */

enum { KN = 300, KD = 4 };

/* BSCA (default form, with the bias) at C = 10, gamma = 1 on overlapping
 * blobs: hundreds of support vectors at the optimum. */
static SsKernelSvm *bsca_on_blobs(double *X, double *y, SsData *data, int64_t budget)
{
  tu_make_blobs(X, y, KN, KD, 0.3, 11);
  ss_data_init_dense(data, SS_DTYPE_FLOAT64, X, KN, KD, KD);
  SsKernel kernel;
  ss_kernel_init(&kernel, SS_KERNEL_RBF, 1.0, 0, 1);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_BSCA, &kernel, data, y, 1.0 / (10.0 * KN));
  if (!svm) return NULL;
  ss_kernel_svm_set_budget(svm, budget);
  ss_kernel_svm_set_epsilon(svm, 1e-3);
  ss_kernel_svm_set_max_num_iterations(svm, 200 * (int64_t)KN);
  return svm;
}

void test_budget_rule_stops_bsca_on_a_small_budget(void)
{
  double X[KN * KD], y[KN];
  SsData data;
  SsKernelSvm *svm = bsca_on_blobs(X, y, &data, 8);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_BUDGET_LIMITED);
  CHECK(st->iteration < 200 * (int64_t)KN);   /* before the cap */
  CHECK(isnan(st->duality_gap)); /* maintenance: D~ is no dual value, no gap to report */
  CHECK(isnan(st->dual_objective));
  SsBudgetStatistics bs;
  CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(svm, &bs), SS_OK);
  CHECK(bs.num_maintenance > 0);
  CHECK_EQ_INT(bs.num_points, 8);
  ss_kernel_svm_delete(svm);
}

void test_budget_rule_silent_when_budget_has_room(void)
{
  double X[KN * KD], y[KN];
  SsData data;
  SsKernelSvm *svm = bsca_on_blobs(X, y, &data, KN);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
  CHECK(st->status == SS_SVM_STATUS_CONVERGED || st->status == SS_SVM_STATUS_MAX_ITERATIONS);
  SsBudgetStatistics bs;
  CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(svm, &bs), SS_OK);
  CHECK_EQ_INT(bs.num_maintenance, 0);
  ss_kernel_svm_delete(svm);
}

/* ---- a dual that is only an estimate ---- */

static double closed(double epoch)
{
  (void)epoch;
  return 1e-6; /* within epsilon = 1e-3 from the start */
}

/* The scripted gap closed from the first diagnostic on, read as an estimate:
 * never "converged"; the run ends there, "budget_limited", full or not. */
void test_budget_rule_estimate_never_certifies(void)
{
  for (int full = 0; full <= 1; ++full) {
    Scripted object = {.gap = closed, .full = full, .estimate = true, .status = SS_SVM_STATUS_UNTRAINED};
    SsRunHistory history = {0};
    SsRun run = {.history = &history, .ops = &scripted_ops, .object = &object,
                 .settings = {.num_data = SN, .max_num_iterations = 20 * SN, .epsilon = 1e-3,
                              .criterion = SS_RUN_RELATIVE_GAP, .interrupt_period = INT64_MAX}};
    CHECK_EQ_INT(ss_run_train(&run), SS_OK);
    ss_run_history_free(&history);
    CHECK_EQ_INT(object.status, SS_SVM_STATUS_BUDGET_LIMITED);
    CHECK_EQ_INT(object.t, SN); /* at the first diagnostic, as the gap test would have */
  }
  /* the same gap as a true dual: converged */
  int64_t end = 0;
  CHECK_EQ_INT(scripted_run(closed, true, 1e-3, 20, &end), SS_SVM_STATUS_CONVERGED);
}

/* BSCA whose maintenance dropped points: a near-identity kernel (rbf,
 * gamma = 10, 30 uniform features: k(x_i, x_j) ~ e^-200 off the diagonal),
 * n = 200, B = 180, C = 1. The optimum has alpha_i = 1 for every i, P* ~ 1/2;
 * the budgeted model keeps 180 points and pays the hinge of the 20 others,
 * P = 0.55 = 1.1 P*, and its dual read through the model equals P: before
 * this rule the run read "converged" after one epoch (with the bias after
 * three), a dual 1.1 times the optimum reported as a certificate. */
void test_budget_rule_bsca_after_maintenance_not_certified(void)
{
  enum { MN = 200, MD = 30 };
  static double X[MN * MD], y[MN];
  tu_make_blobs(X, y, MN, MD, 0.3, 5);
  SsData data;
  ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, MN, MD, MD);
  SsKernel kernel;
  ss_kernel_init(&kernel, SS_KERNEL_RBF, 10.0, 0, 1);
  for (int bias = 0; bias <= 1; ++bias) {
    SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_BSCA, &kernel, &data, y, 1.0 / (1.0 * MN));
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_kernel_svm_set_budget(svm, 180), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, bias), SS_OK);
    ss_kernel_svm_set_epsilon(svm, 1e-3);
    ss_kernel_svm_set_max_num_iterations(svm, 20 * (int64_t)MN);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
    SsBudgetStatistics bs;
    CHECK_EQ_INT(ss_kernel_svm_get_budget_statistics(svm, &bs), SS_OK);
    CHECK(bs.num_maintenance > 0);
    CHECK(st->status != SS_SVM_STATUS_CONVERGED);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_BUDGET_LIMITED);
    CHECK(isnan(st->dual_objective)); /* no dual value to report */
    CHECK(isnan(st->duality_gap));
    CHECK(st->primal_objective > 1.05 * 0.5); /* far from the optimum: right not to certify */
    ss_kernel_svm_delete(svm);
  }
}

/* epochs.c -- the linear object's side of the run driver (run.c).
 *
 * Iteration t (counted over the object's whole life) belongs to epoch
 * e = t / n and visits example perm_e[t mod n], perm_e being a permutation
 * drawn from (seed, e) only: uniform, block-wise (SS_VISIT_BLOCKS: blocks
 * of consecutive rows in random order, each block shuffled, so the rows
 * read are memory neighbours), or the identity (ss_svm_set_shuffle(0)). The
 * driver (run.c) cuts the run into pieces within an epoch and hands each to
 * the solver's inner loop; at epoch boundaries the SGD factor is folded.
 * Every boundary depends on t only: training N iterations equals N/2 and
 * then N/2 more, bit for bit.
 *
 * What a train call costs beyond its epochs is kept to O(1): the order
 * buffer (n indices) is allocated once per object and data set, data order
 * is written into it once, and a random order is drawn once per epoch (O(n),
 * which the epoch's n steps dwarf). The closing diagnostic of a run that
 * reaches its cap, a full pass over the data as costly as a third to a half
 * of an SGD epoch, is made only when someone needs it: when no diagnostic
 * function watches, the run leaves it pending and the object makes it,
 * exactly as the run would have, the first time the statistics or scores
 * are read or the model or the problem changes (ss_svm_settle_final). The
 * next train call makes it only if one run through both calls would have
 * made a diagnostic there, and otherwise drops it (ss_svm_resume_final):
 * calls of one epoch each that no one reads between cost what one long
 * call costs, O(log E) passes over E epochs, and see the same history.
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <math.h>
#include <stdlib.h>

SsStatus ss_svm_set_shuffle(SsSvm *self, int enabled)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_shuffle");
  self->visit_order = enabled ? SS_VISIT_PERMUTATION : SS_VISIT_DATA_ORDER;
  return ss_svm_succeed(self);
}

int ss_svm_get_shuffle(const SsSvm *self) { return self ? self->visit_order != SS_VISIT_DATA_ORDER : 0; }

SsStatus ss_svm_set_visit_order(SsSvm *self, SsVisitOrder order)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_visit_order");
  if (order != SS_VISIT_DATA_ORDER && order != SS_VISIT_PERMUTATION && order != SS_VISIT_BLOCKS &&
      order != SS_VISIT_INTERLEAVED)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_visit_order: order must be 0 (data), 1 (permutation), "
                       "2 (blocks) or 3 (interleaved), got %d", (int)order);
  self->visit_order = order;
  return ss_svm_succeed(self);
}

SsVisitOrder ss_svm_get_visit_order(const SsSvm *self) { return self ? self->visit_order : SS_VISIT_PERMUTATION; }

void ss_svm_fold_factor(SsSvm *self)
{
  if (self->factor == 1.0) return;
  for (int64_t k = 0; k < self->dimension; ++k) self->u[k] *= self->factor;
  self->factor = 1.0;
}

/* ---- the linear object's callbacks for the run driver (run.h) ---------- */

/* SS_VISIT_INTERLEAVED: the blocks of b consecutive rows in a random
 * order, dealt into groups of k; a group is visited a row of each of its
 * blocks in turn (row j of every block, then row j + 1, ...; the one short
 * last block drops out when exhausted). Each block is read sequentially,
 * so the hardware streams k places of the data at once, while consecutive
 * visits come from k random places: a file sorted by class still gives
 * mixed neighbours. One generator call per block. The block order is drawn
 * into the head of the buffer and the groups are written from the back,
 * whose positions lie beyond the block numbers still to be read. */
static void interleaved_order(int64_t *order, int64_t n, int64_t b, uint64_t seed, uint64_t stream)
{
  enum { K = SS_SVM_VISIT_STREAMS };
  const int64_t blocks = (n + b - 1) / b;
  ss_rng_permutation(order, blocks, seed, stream);
  int64_t end = n;
  for (int64_t g = (blocks - 1) / K; g >= 0; --g) {
    const int64_t first_block = g * K, count = blocks - first_block < K ? blocks - first_block : K;
    int64_t first[K], size[K], group_size = 0;
    for (int64_t q = 0; q < count; ++q) {
      first[q] = order[first_block + q] * b;
      size[q] = first[q] + b < n ? b : n - first[q];
      group_size += size[q];
    }
    int64_t position = end - group_size;
    end = position;
    for (int64_t j = 0; j < b; ++j)
      for (int64_t q = 0; q < count; ++q)
        if (j < size[q]) order[position++] = first[q] + j;
  }
}

/* The order of epoch `epoch` into the object's buffer, unless it holds it
 * already (data order, whatever the epoch: filled once per buffer; a
 * random order when a train call resumes the epoch the last one stopped in). */
static void draw_order(SsSvm *self, int64_t epoch)
{
  const SsVisitOrder kind = self->visit_order;
  if (self->order_drawn && self->order_kind == kind &&
      (kind == SS_VISIT_DATA_ORDER || (self->order_seed == self->seed && self->order_epoch == epoch)))
    return;
  int64_t *order = self->order;
  const int64_t n = self->source.num_data;
  switch (kind) {
    case SS_VISIT_DATA_ORDER:
      for (int64_t k = 0; k < n; ++k) order[k] = k;
      break;
    case SS_VISIT_PERMUTATION:
      ss_rng_permutation(order, n, self->seed, (uint64_t)epoch);
      break;
    case SS_VISIT_BLOCKS:
      ss_rng_block_permutation(order, n, SS_SVM_VISIT_BLOCK, self->seed, (uint64_t)epoch);
      break;
    case SS_VISIT_INTERLEAVED:
      interleaved_order(order, n, SS_SVM_VISIT_BLOCK, self->seed, (uint64_t)epoch);
      break;
  }
  self->order_drawn = true;
  self->order_kind = kind;
  self->order_seed = self->seed;
  self->order_epoch = epoch;
}

static SsStatus begin_epoch(void *object, int64_t epoch)
{
  SsEpochRun *run = object;
  if (!ss_sdca_draws_order(run->svm)) draw_order(run->svm, epoch);
  run->epoch_start = epoch * run->svm->source.num_data;
  return SS_OK;
}

static SsStatus steps(void *object, int64_t t, int64_t t_end)
{
  SsEpochRun *run = object;
  return run->steps(run, t, t_end);
}

static void end_epoch(void *object)
{
  SsSvm *self = ((SsEpochRun *)object)->svm;
  ss_svm_fold_factor(self);
  if (self->alpha) ss_sdca_best_average(self);
}

static double start_objective(void *object)
{
  return ss_svm_start_objective(((SsEpochRun *)object)->svm);
}

static int64_t iteration(const void *object)
{
  return ((const SsEpochRun *)object)->svm->iteration;
}

static SsStatus measure(void *object, SsSvmStatus status, SsRunMeasure *m)
{
  SsSvm *self = ((SsEpochRun *)object)->svm;
  const SsStatus s = ss_svm_measure(self, status, m);
  self->ray.scores_fresh = true;
  /* SDCA's rule reads the gap of the best model so far (sdca_best.c) */
  if (self->alpha) {
    ss_sdca_best_record(self, status, m);
    if (status == SS_SVM_STATUS_TRAINING) ss_sdca_trend_record(self, m);
  }
  return s;
}

static void set_status(void *object, SsSvmStatus status)
{
  SsSvm *self = ((SsEpochRun *)object)->svm;
  self->statistics.status = status;
  self->statistics.iteration = self->iteration;
  self->statistics.epoch = self->iteration / self->source.num_data;
  /* A converged SDCA run returns the model its gap certified (sdca_best.c). */
  if (status == SS_SVM_STATUS_CONVERGED && self->alpha) ss_sdca_best_return(self);
}

static int notify(void *object)
{
  SsSvm *self = ((SsEpochRun *)object)->svm;
  if (!self->diagnostic_fn) return 0;
  const SsSvmStatistics *st = &self->statistics;
  self->notified = (SsRunSeen){st->status, st->iteration, st->objective};
  return self->diagnostic_fn(self, self->diagnostic_user);
}

/* SDCA's diagnostic budget (run.c): the default stop costs at most 10% of
 * the run. The cost model counts an epoch's visits that compute a step (all
 * n, or with shrinking the examples active when the epoch began), each worth
 * a few rows of a diagnostic pass (one score and one loss per row, in data
 * order): measured on a9a, w8a and ijcnn1 (CSR), an unshrunk epoch costs
 * 1.8-3 passes for the hinge losses and 2.7-4.8 for the logistic loss. The
 * weights sit below that range, so the budget errs toward fewer diagnostics
 * (shrunk hinge epochs with another visit order than the default also pay
 * that order for all n). A diagnostic that also scores the tail average of
 * the hinge and l1 losses (sdca_best.c) makes two passes, and the epoch is
 * worth half as many of them. */
#define SS_SDCA_DIAGNOSTIC_BUDGET 0.1
#define SS_SDCA_VISIT_COST_HINGE 1.5
#define SS_SDCA_VISIT_COST_SMOOTH 3.0

static double epoch_cost(const void *object)
{
  const SsSvm *self = ((const SsEpochRun *)object)->svm;
  const int64_t n = self->source.num_data;
  const bool hinge = self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_HINGE2;
  /* (num_candidates < 0: every example, after an unshrinking at the epoch's end) */
  const int64_t m = self->shrinking.num_candidates;
  const double visits = ss_sdca_shrinks(self) && m >= 0 ? (double)m : (double)n;
  const double passes = (hinge ? SS_SDCA_VISIT_COST_HINGE : SS_SDCA_VISIT_COST_SMOOTH) * visits / (double)n;
  return passes / ss_sdca_best_diagnostic_passes(self);
}

static bool diagnostic_wanted(void *object)
{
  SsSvm *self = ((SsEpochRun *)object)->svm;
  return ss_sdca_shrinks(self) && ss_sdca_diagnostic_wanted(self);
}

static bool diagnostic_futile(void *object)
{
  const SsSvm *self = ((SsEpochRun *)object)->svm;
  return self->alpha && ss_sdca_diagnostic_futile(self);
}

/* The primal solvers' certificate of the model just measured (its scores
 * are the diagnostic's), where the run driver can judge by it; SDCA stops
 * on its own gap and gives none. */
static double dual_bound(void *object, SsRunBound *kind)
{
  const SsSvm *self = ((SsEpochRun *)object)->svm;
  *kind = self->alpha ? SS_RUN_BOUND_NONE : ss_svm_primal_certificate_kind(self);
  return *kind == SS_RUN_BOUND_NONE ? NAN : ss_svm_primal_certificate(self, self->scores);
}

static bool stalled(void *object, const SsRunMeasure *m)
{
  SsSvm *self = ((SsEpochRun *)object)->svm;
  if (self->alpha) return ss_sdca_stalled(self, m);
  return self->newton.primal_stalled && self->newton.primal_stalled(self, m);
}

/* ---- the step back-off (run.c): the SGD family, RES and LRES ------------ */

/** Back-offs a run may take: the steps end 10^4 times shorter at most. */
#define SS_SVM_MAX_STEP_BACKOFFS 4

/* The t0 of the k-th back-off's schedule (restarted at its own t = 0): 10^k
 * times the default t0. SVMSGD2's and SGD-QN's default sizes the first step
 * by a quantile of the row norms already; SGD's, VLFeat's 2/lambda, ignores
 * them, and its first back-off puts them in:
 *
 *     t0_k = max(10^k t0, 10^(k-1) t0_R),   t0_R = max(2, L_R) / lambda,
 *
 * L_R the loss's curvature bound over the largest row norm R^2 + B^2 (R^2 +
 * B^2 itself for the hinge and l1 losses): the first step of t0_R moves no
 * score by more than 1 (svm_effective.c). (Measured on the suite's outlier
 * set, t0_R would make SVMSGD2's and SGD-QN's steps 10^4 times too short for
 * every other row: 1.9x-2.6x the optimum after 100 epochs, 1.05x-1.6x
 * without.) */
static double backoff_t0(const SsSvm *self, int64_t k)
{
  const double scale = pow(10.0, (double)k);
  const double t0 = scale * ss_svm_effective_t0(self);
  if (self->solver != SS_SOLVER_SGD) return t0;
  const double B = self->bias_multiplier;
  const double r2 = self->max_squared_norm + B * B;
  const double curvature = ss_loss_curvature_bound(self->loss, r2);
  const double L = curvature > 0 ? curvature : r2;
  return fmax(t0, 0.1 * scale * (L > 2.0 ? L : 2.0) / self->lambda);
}

/* The SGD family's k-th back-off: from iteration t_k on the steps
 * 1/(lambda (t - t_k + t0_k)), the schedule started again, shorter (SGD-QN's
 * scaling back at 1/lambda). Only at the default t0: a t0 set by the caller
 * is never changed (the run then ends on its divergence test). */
static bool sgd_back_off(SsSvm *self, int64_t k)
{
  if (self->t0 > 0) return false;
  /* (t - t_k + t0_k is computed as t + (t0_k - t_k): exact enough while t
   * is, below 2^52) */
  if (self->iteration > ((int64_t)1 << 52)) return false;
  const double t0 = backoff_t0(self, k);
  if (!isfinite(t0)) return false; /* row norms that overflow: no step fits */
  self->backoff_t0 = t0 - (double)self->iteration;
  if (self->scaling) {
    /* SGD-QN's B back at 1/lambda, as ss_sgdqn_reset_scaling sets it (sgdqn.c
     * calls this file: the call graph keeps one way) */
    for (int64_t j = 0; j <= self->dimension; ++j) self->scaling[j] = 1.0 / self->lambda;
    self->scaling_updates = 0;
  }
  return true;
}

/* w = 0 (and b = 0 where the bias is learned), and the solver's steps
 * restarted shorter: the SGD family's t0 (above), or the solver's own
 * back-off (RES's and LRES's eps0, res_steps.c). */
static bool back_off(void *object)
{
  const SsEpochRun *run = object;
  SsSvm *self = run->svm;
  if (self->step_backoffs >= SS_SVM_MAX_STEP_BACKOFFS) return false;
  const int64_t k = self->step_backoffs + 1;
  const bool sgd_family = self->solver == SS_SOLVER_SGD || self->solver == SS_SOLVER_SVMSGD2 ||
                          self->solver == SS_SOLVER_SGDQN;
  const bool restarted = run->back_off ? run->back_off(self, k) : sgd_family && sgd_back_off(self, k);
  if (!restarted) return false;
  self->step_backoffs = k;
  for (int64_t j = 0; j < self->dimension; ++j) self->u[j] = 0;
  self->factor = 1.0;
  if (self->bias_multiplier > 0) self->bias = 0;
  ss_svm_realise_model(self);
  return true;
}

static const SsRunOps linear_run_ops = {
  .begin_epoch = begin_epoch,
  .steps = steps,
  .end_epoch = end_epoch,
  .start_objective = start_objective,
  .iteration = iteration,
  .measure = measure,
  .set_status = set_status,
  .notify = notify,
  .epoch_cost = epoch_cost,
  .diagnostic_wanted = diagnostic_wanted,
  .diagnostic_futile = diagnostic_futile,
  .dual_bound = dual_bound,
  .back_off = back_off,
  .stalled = stalled,
};

SsRun ss_svm_run(SsSvm *self, SsEpochRun *epoch_run)
{
  SsRunCriterion criterion = SS_RUN_OBJECTIVE_WINDOW;
  if (self->stopping_rule == SS_SVM_STOP_SCORES_VARIATION) criterion = SS_RUN_SCORES_VARIATION;
  else if (self->alpha) criterion = SS_RUN_RELATIVE_GAP;
  SsRunSettings settings = {
    .num_data = self->source.num_data,
    .max_num_iterations = ss_svm_effective_max_num_iterations(self),
    .diagnostic_frequency = self->diagnostic_frequency,
    /* A diagnostic function watches the diagnostics the run makes anyway:
     * installing one never moves them, so watching never changes the model
     * (it used to put SDCA on the epoch schedule: the command line's
     * progress lines made a9a stop at epoch 211 where -q stopped at 215). */
    .diagnostic_budget = self->alpha ? SS_SDCA_DIAGNOSTIC_BUDGET : 0,
    .epsilon = self->epsilon,
    .criterion = criterion,
    /* (a pass over the labels, which the driver reads only to start a history) */
    .zero_objective = self->alpha == NULL && self->history.count == 0 ? ss_svm_zero_objective(self) : NAN,
    .divergence_test = self->alpha == NULL,
    .interrupt_fn = self->interrupt_fn,
    .interrupt_user = self->interrupt_user,
    .interrupt_period = SS_SVM_INTERRUPT_PERIOD,
    /* No diagnostic function watches the end of the run: the closing
     * diagnostic waits until the statistics are read (svm.c). */
    .defer_final = !self->diagnostic_fn,
  };
  return (SsRun){.history = &self->history, .settings = settings, .ops = &linear_run_ops,
                 .object = epoch_run, .progress = &self->progress};
}

void ss_svm_free_order(SsSvm *self)
{
  free(self->order);
  self->order = NULL;
  self->order_drawn = false;
}

SsStatus ss_run_epochs(SsSvm *self, SsStepsFunction steps_function)
{
  return ss_run_epochs_backing_off(self, steps_function, NULL);
}

SsStatus ss_run_epochs_backing_off(SsSvm *self, SsStepsFunction steps_function, SsBackOffFunction back_off)
{
  if (!self->order) {
    self->order = malloc((size_t)self->source.num_data * sizeof(int64_t));
    if (!self->order) return SS_ERR_ALLOC;
  }
  SsEpochRun epoch_run = {.svm = self, .perm = self->order, .epoch_start = -1, .steps = steps_function,
                          .back_off = back_off};
  SsRun run = ss_svm_run(self, &epoch_run);
  SsStatus status = ss_run_train(&run);
  ss_svm_realise_model(self);
  if (!run.final_deferred) ss_sdca_close_on_ray(self);
  if (run.final_deferred) {
    self->final_pending = true;
    self->final_settings = run.settings;
    self->final_end_time = ss_clock_seconds();
  }
  return status;
}

SsStatus ss_svm_settle_final(SsSvm *self)
{
  if (!self->final_pending) return SS_OK;
  self->final_pending = false;
  SsEpochRun evaluation = {.svm = self};
  SsRun run = {.history = &self->history, .settings = self->final_settings, .ops = &linear_run_ops,
               .object = &evaluation};
  /* The elapsed time as the run would have measured it: from the start of
   * its train call, without the time that passed since its steps ended. */
  const double start = self->train_start_time;
  self->train_start_time = start + (ss_clock_seconds() - self->final_end_time);
  SsStatus status = ss_run_diagnose(&run, SS_SVM_STATUS_MAX_ITERATIONS, false);
  self->train_start_time = start;
  ss_sdca_close_on_ray(self);
  return status;
}

void ss_svm_drop_final(SsSvm *self)
{
  self->final_pending = false;
}

void ss_svm_resume_final(SsSvm *self)
{
  if (!self->final_pending) return;
  if (ss_run_diagnostic_scheduled(&self->final_settings, self->iteration)) (void)ss_svm_settle_final(self);
  else ss_svm_drop_final(self);
}

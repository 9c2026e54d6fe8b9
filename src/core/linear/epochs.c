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
 */
#include "svm_internal.h"

#include <stdlib.h>

SsStatus ss_svm_set_shuffle(SsSvm *self, int enabled)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->visit_order = enabled ? SS_VISIT_PERMUTATION : SS_VISIT_DATA_ORDER;
  return ss_svm_succeed(self);
}

int ss_svm_get_shuffle(const SsSvm *self) { return self->visit_order != SS_VISIT_DATA_ORDER; }

SsStatus ss_svm_set_visit_order(SsSvm *self, SsVisitOrder order)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (order != SS_VISIT_DATA_ORDER && order != SS_VISIT_PERMUTATION && order != SS_VISIT_BLOCKS)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_visit_order: order must be 0 (data), 1 (permutation) or "
                       "2 (blocks), got %d", (int)order);
  self->visit_order = order;
  return ss_svm_succeed(self);
}

SsVisitOrder ss_svm_get_visit_order(const SsSvm *self) { return self->visit_order; }

void ss_svm_fold_factor(SsSvm *self)
{
  if (self->factor == 1.0) return;
  for (int64_t k = 0; k < self->dimension; ++k) self->u[k] *= self->factor;
  self->factor = 1.0;
}

/* ---- the linear object's callbacks for the run driver (run.h) ---------- */

static SsStatus begin_epoch(void *object, int64_t epoch)
{
  SsEpochRun *run = object;
  const int64_t n = run->svm->source.num_data;
  switch (run->svm->visit_order) {
    case SS_VISIT_DATA_ORDER:
      for (int64_t k = 0; k < n; ++k) run->perm[k] = k;
      break;
    case SS_VISIT_PERMUTATION:
      ss_rng_permutation(run->perm, n, run->svm->seed, (uint64_t)epoch);
      break;
    case SS_VISIT_BLOCKS:
      ss_rng_block_permutation(run->perm, n, SS_SVM_VISIT_BLOCK, run->svm->seed, (uint64_t)epoch);
      break;
  }
  run->epoch_start = epoch * n;
  return SS_OK;
}

static SsStatus steps(void *object, int64_t t, int64_t t_end)
{
  SsEpochRun *run = object;
  return run->steps(run, t, t_end);
}

static void end_epoch(void *object)
{
  ss_svm_fold_factor(((SsEpochRun *)object)->svm);
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
  return ss_svm_measure(((SsEpochRun *)object)->svm, status, m);
}

static void set_status(void *object, SsSvmStatus status)
{
  SsSvm *self = ((SsEpochRun *)object)->svm;
  self->statistics.status = status;
  self->statistics.iteration = self->iteration;
  self->statistics.epoch = self->iteration / self->source.num_data;
}

static int notify(void *object)
{
  SsSvm *self = ((SsEpochRun *)object)->svm;
  return self->diagnostic_fn ? self->diagnostic_fn(self, self->diagnostic_user) : 0;
}

/* SDCA's diagnostic budget (run.c): the default stop costs at most 10% of
 * the run. The cost model counts an epoch's visits that compute a step (all
 * n, or with shrinking the examples active when the epoch began), each worth
 * a few rows of a diagnostic pass (one score and one loss per row, in data
 * order): measured on a9a, w8a and ijcnn1 (CSR), an unshrunk epoch costs
 * 1.8-3 passes for the hinge losses and 2.7-4.8 for the logistic loss. The
 * weights sit below that range, so the budget errs toward fewer diagnostics
 * (shrunk hinge epochs also pay the permutation for all n). */
#define SS_SDCA_DIAGNOSTIC_BUDGET 0.1
#define SS_SDCA_VISIT_COST_HINGE 1.5
#define SS_SDCA_VISIT_COST_SMOOTH 3.0

static double epoch_cost(const void *object)
{
  const SsSvm *self = ((const SsEpochRun *)object)->svm;
  const int64_t n = self->source.num_data;
  const bool hinge = self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_HINGE2;
  const double visits = ss_sdca_shrinks(self) ? (double)self->shrinking.num_candidates : (double)n;
  return (hinge ? SS_SDCA_VISIT_COST_HINGE : SS_SDCA_VISIT_COST_SMOOTH) * visits / (double)n;
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
  .dual_bound = dual_bound,
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
    /* A diagnostic function installed asks to watch: the epoch schedule. */
    .diagnostic_budget = self->alpha && !self->diagnostic_fn ? SS_SDCA_DIAGNOSTIC_BUDGET : 0,
    .epsilon = self->epsilon,
    .criterion = criterion,
    .zero_objective = ss_svm_zero_objective(self),
    .divergence_test = self->alpha == NULL,
    .interrupt_fn = self->interrupt_fn,
    .interrupt_user = self->interrupt_user,
    .interrupt_period = SS_SVM_INTERRUPT_PERIOD,
  };
  return (SsRun){.history = &self->history, .settings = settings, .ops = &linear_run_ops,
                 .object = epoch_run, .progress = &self->progress};
}

SsStatus ss_run_epochs(SsSvm *self, SsStepsFunction steps_function)
{
  const int64_t n = self->source.num_data;
  int64_t *perm = malloc((size_t)n * sizeof(int64_t));
  if (!perm) return SS_ERR_ALLOC;
  SsEpochRun epoch_run = {.svm = self, .perm = perm, .epoch_start = -1, .steps = steps_function};
  SsRun run = ss_svm_run(self, &epoch_run);
  SsStatus status = ss_run_train(&run);
  free(perm);
  ss_svm_realise_model(self);
  return status;
}

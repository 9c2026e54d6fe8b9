/* kernel_svm_budget.c -- BSCA and BSGD as solvers of the kernel SVM object:
 * the shared solver state (a budget trainer: kernel_svm_budget.h), its start,
 * evaluate and free operations, the budget setters and getters
 * (kernel_budget.h), and the ops tables of the two solvers. The steps live in
 * budget/bsca.c and budget/bsgd.c, which know nothing of the object.
 *
 * The object's threads (set_num_threads) reach the budget layer through the
 * expansion (SsBudget.threads), lent for every run of steps and every
 * diagnostic and taken back after it: a long expansion's scores, a merge's
 * partner search and the diagnostic pass split across them, with the same
 * bits as one thread.
 *
 * evaluate() runs the O(n B) diagnostic pass: the training scores of the
 * budgeted model (handed to the driver, which computes the primal from them),
 * ||w~||^2, and the dual of the tracked alpha through the model,
 * D~ = lambda (1^T alpha - 1/2 sum_i alpha_i y_i f~(x_i)) (budget_train.c).
 * D~ is BSCA's dual objective while it is D(alpha), until budget maintenance
 * first changes the model; after that it is no dual value (B = 500 on the
 * standardised breast cancer set and on the digits: 1.04 to 129 times the
 * optimum, at times above P(w~) itself), so the statistics report NaN and
 * the run driver gets it as an estimate only (SsRunMeasure.dual_estimate):
 * it may end the run, status budget_limited, never certify it. BSGD's the
 * same way, until maintenance (bsgd_dual_bound: within the box, a bound),
 * NaN after; its window rule never reads it (no estimate either). Then it
 * copies the expansion into the object's model (dense rows, the training
 * index of each point that was never merged or projected, else -1) and
 * alpha into the dual variables.
 */
#include "kernel_svm_budget.h"
#include "stochsvm/kernel_budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/** Default budget B. */
#define SS_DEFAULT_BUDGET 500

/* CPU seconds of the calling thread (wall clock where that clock is missing). */
double ss_budget_thread_seconds(void)
{
#if defined(CLOCK_THREAD_CPUTIME_ID)
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
  return ss_clock_seconds();
}

static bool is_budgeted(SsKernelSolver solver)
{
  return solver == SS_KSOLVER_BSCA || solver == SS_KSOLVER_BSGD;
}

bool ss_kernel_budget_solver_rejects(SsKernelSolver solver, const SsKernel *kernel)
{
  return is_budgeted(solver) && kernel && kernel->type == SS_KERNEL_PRECOMPUTED;
}

int64_t ss_kernel_svm_get_budget(const SsKernelSvm *self)
{
  if (!self) return 0;
  return self->budget > 0 ? self->budget : SS_DEFAULT_BUDGET;
}

SsBudgetMaintenance ss_kernel_svm_get_budget_maintenance(const SsKernelSvm *self)
{
  return self ? (SsBudgetMaintenance)self->budget_maintenance : SS_BUDGET_MAINTENANCE_AUTO;
}

/* The private strategy of a maintenance setting for a kernel. */
static SsBudgetStrategy strategy_of(SsBudgetMaintenance m, SsKernelType kernel)
{
  switch (m) {
    case SS_BUDGET_MAINTENANCE_MERGE: return SS_BUDGET_MERGE;
    case SS_BUDGET_MAINTENANCE_REMOVE: return SS_BUDGET_REMOVE;
    case SS_BUDGET_MAINTENANCE_PROJECT: return SS_BUDGET_PROJECT;
    case SS_BUDGET_MAINTENANCE_AUTO:
    default: return kernel == SS_KERNEL_RBF ? SS_BUDGET_MERGE : SS_BUDGET_REMOVE;
  }
}

/* Forget the budgeted solver's state (it restarts at the next train). */
void ss_kernel_budget_restart(SsKernelSvm *self)
{
  if (is_budgeted(self->solver) && self->ops && self->state) {
    self->ops->free_state(self);
    self->iteration = 0;
  }
}

/* A budget setter called on a solver that keeps every support vector. */
static SsStatus not_budgeted(SsKernelSvm *self, const char *setter)
{
  return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE,
                            "%s applies to the budgeted solvers bsca and bsgd, this object's solver is %s",
                            setter, ss_kernel_svm_solver_name(self->solver));
}

SsStatus ss_kernel_svm_set_budget(SsKernelSvm *self, int64_t budget)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_budget");
  if (!is_budgeted(self->solver)) return not_budgeted(self, "set_budget");
  if (budget < 1)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_budget: the budget must be >= 1, got %lld",
                              (long long)budget);
  if (budget != ss_kernel_svm_get_budget(self)) ss_kernel_budget_restart(self);
  self->budget = budget;
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_budget_maintenance(SsKernelSvm *self, SsBudgetMaintenance maintenance)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_budget_maintenance");
  if (!is_budgeted(self->solver)) return not_budgeted(self, "set_budget_maintenance");
  if (maintenance != SS_BUDGET_MAINTENANCE_AUTO && maintenance != SS_BUDGET_MAINTENANCE_MERGE &&
      maintenance != SS_BUDGET_MAINTENANCE_REMOVE && maintenance != SS_BUDGET_MAINTENANCE_PROJECT)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_budget_maintenance: unknown maintenance %d",
                              (int)maintenance);
  if (maintenance == SS_BUDGET_MAINTENANCE_MERGE && self->kernel.type != SS_KERNEL_RBF)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_budget_maintenance: merge needs the rbf kernel");
  if ((int)maintenance != self->budget_maintenance) ss_kernel_budget_restart(self);
  self->budget_maintenance = (int)maintenance;
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_get_budget_statistics(const SsKernelSvm *self, SsBudgetStatistics *out)
{
  if (!self || !out) return SS_ERR_BAD_ARG;
  memset(out, 0, sizeof(*out));
  out->budget = ss_kernel_svm_get_budget(self);
  if (!is_budgeted(self->solver) || !self->state) return SS_OK;
  const SsBudgetSolverState *s = self->state;
  out->num_points = s->trainer.model.size;
  out->num_updates = s->trainer.num_updates;
  out->num_maintenance = s->trainer.counts.num_maintenance;
  out->num_merges = s->trainer.counts.num_merges;
  out->num_removals = s->trainer.counts.num_removals;
  out->num_projections = s->trainer.counts.num_projections;
  out->weight_degradation = s->trainer.counts.weight_degradation;
  out->solver_seconds = s->solver_seconds;
  return SS_OK;
}

double ss_kernel_budget_dual_estimate(const SsKernelSvm *self)
{
  const SsBudgetSolverState *s = self->state;
  return is_budgeted(self->solver) && s ? s->dual_estimate : NAN;
}

bool ss_kernel_budget_full(const SsKernelSvm *self)
{
  const SsBudgetSolverState *s = self->state;
  /* Full now, and maintained at least once (the counts survive a reset of
   * the model, which then starts empty). B >= n never is. */
  return is_budgeted(self->solver) && s && s->trainer.counts.num_maintenance > 0 &&
         s->trainer.model.size >= s->trainer.model.budget;
}

/* ------------------------------------------------------------------------ */
/*                         Solver operations (shared)                        */
/* ------------------------------------------------------------------------ */

void ss_budget_solver_free_state(SsKernelSvm *self)
{
  SsBudgetSolverState *s = self->state;
  if (!s) return;
  ss_budget_trainer_free(&s->trainer);
  free(s->rows);
  free(s);
  self->state = NULL;
}

SsStatus ss_budget_solver_start(SsKernelSvm *self)
{
  if (self->state) {
    /* lambda may have changed since the last train: move alpha into the new box. */
    SsBudgetSolverState *s = self->state;
    const double C = ss_kernel_svm_box(self);
    if (C != s->trainer.C) {
      const bool smaller = C < s->trainer.C;
      s->trainer.C = C;
      if (self->solver == SS_KSOLVER_BSCA &&
          (s->trainer.row_scratch || (smaller && !ss_budget_dual_exact(&s->trainer)))) {
        /* With the bias, clipping would break sum_i y_i alpha_i = 0. After
         * budget maintenance w~ is no longer the expansion of alpha: the
         * clipped alphas' terms were merged or removed, and taking them out
         * adds terms that maintenance merges again (B = 100 of 300 rows,
         * C = 100 then 1: the cap at P = 25.9, cold 0.49). Start over. */
        ss_budget_trainer_reset(&s->trainer);
        self->iteration = 0;
      } else if (self->solver == SS_KSOLVER_BSCA) {
        ss_bsca_clip_to_box(&s->trainer); /* w~ follows alpha (bsca.c) */
      }
    }
    return SS_OK;
  }
  if (self->kernel.type == SS_KERNEL_PRECOMPUTED) return SS_ERR_BAD_STATE;
  const int64_t n = self->num_data, B = ss_kernel_svm_get_budget(self);
  SsBudgetSolverState *s = calloc(1, sizeof(SsBudgetSolverState));
  if (!s) return SS_ERR_ALLOC;
  const SsBudgetKernel kernel = {(SsBudgetKernelKind)self->kernel.type, self->kernel.gamma,
                                 self->kernel.coef0, (double)self->kernel.degree};
  SsStatus status = ss_budget_trainer_init(
      &s->trainer, &self->data, self->labels, self->norms2, kernel, ss_kernel_svm_box(self),
      strategy_of((SsBudgetMaintenance)self->budget_maintenance, self->kernel.type), B);
  /* capacity = min(B, n) + 1 rows, its size checked by ss_budget_init */
  const int64_t cap = status == SS_OK ? s->trainer.model.capacity : 0;
  s->rows = status == SS_OK ? malloc((size_t)cap * sizeof(int64_t)) : NULL;
  if (!self->dual) self->dual = malloc((size_t)n * sizeof(double));
  if (status == SS_OK && (!s->rows || !self->dual)) status = SS_ERR_ALLOC;
  if (status == SS_OK && self->solver == SS_KSOLVER_BSCA && self->bias_enabled)
    status = ss_budget_trainer_enable_bias(&s->trainer);
  if (status != SS_OK) {
    if (status != SS_ERR_ALLOC || s->trainer.alpha) ss_budget_trainer_free(&s->trainer);
    free(s->rows);
    free(s);
    return status;
  }
  s->trainer.weights = self->weights; /* set_weights and set_data restart the state */
  for (int64_t j = 0; j < cap; ++j) s->rows[j] = j;
  s->dual_estimate = NAN;
  memset(self->dual, 0, (size_t)n * sizeof(double));
  self->state = s;
  self->iteration = 0;
  return SS_OK;
}

SsStatus ss_budget_solver_run(SsKernelSvm *self, int64_t t, int64_t t_end,
                              void (*steps)(SsBudgetTrainer *, const int64_t *, int64_t, int64_t))
{
  SsBudgetSolverState *s = self->state;
  SsBudgetTrainer *tr = &s->trainer;
  const int64_t epoch_start = (t / self->num_data) * self->num_data;
  const int64_t evaluations = tr->kernel_evaluations;
  const double c0 = ss_budget_thread_seconds();
  tr->model.threads = self->threads; /* lent for the steps only: set_num_threads may replace it */
  tr->iteration = t;
  steps(tr, self->perm, t - epoch_start, t_end - epoch_start);
  tr->model.threads = (SsThreads){0};
  s->solver_seconds += ss_budget_thread_seconds() - c0;
  self->num_kernel_evaluations += tr->kernel_evaluations - evaluations;
  self->iteration = t_end;
  for (int64_t j = 0; j < tr->model.size; ++j)
    if (!isfinite(tr->model.beta[j])) return SS_ERR_NUMERIC;
  return SS_OK;
}

/* BSGD's dual while its model is the expansion of its alpha (no budget
 * maintenance yet): D(alpha) (@p dual, budget_train.c) where alpha lies in
 * the box 0 <= alpha_i <= c_i C, a lower bound on the optimum. Its alpha_i =
 * c_i C n v_i / t, v_i the steps that found i in violation by iteration t
 * (bsgd.c): in the box at the end of every epoch (v_i <= t / n), out of it
 * by up to a step within one (a diagnostic set mid-epoch). There
 * D(alpha / r), r = max_i alpha_i / (c_i C) > 1, is the bound:
 * lambda (1^T alpha / r - 1/2 ||w||^2 / r^2), with ||w||^2 = sum_i alpha_i
 * y_i f(x_i) from the training scores @p f (O(n)). */
static double bsgd_dual_bound(const SsKernelSvm *self, const SsBudgetTrainer *tr, const double *f, double dual)
{
  const int64_t n = self->num_data;
  const double C = tr->C;
  double r = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = tr->alpha_scale * tr->alpha[i];
    if (a > 0) r = fmax(r, a / (ss_kernel_svm_weight(self, i) * C));
  }
  if (!(r > 1)) return dual; /* in the box: D(alpha) itself, the same bits */
  double sum = 0, quad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = tr->alpha_scale * tr->alpha[i];
    sum += a;
    quad += a * self->labels[i] * f[i];
  }
  return self->lambda * (sum / r - 0.5 * quad / (r * r));
}

SsStatus ss_budget_solver_evaluate(SsKernelSvm *self, double *scores, double *norm2,
                                   bool *have_scores)
{
  SsBudgetSolverState *s = self->state;
  SsBudgetTrainer *tr = &s->trainer;
  const SsBudget *m = &tr->model;
  double primal, dual;
  tr->model.threads = self->threads;
  ss_budget_objectives(tr, &primal, &dual, scores, norm2);
  tr->model.threads = (SsThreads){0};
  *have_scores = true;
  const bool exact = ss_budget_dual_exact(tr);
  const bool estimate = self->solver == SS_KSOLVER_BSCA && !exact;
  self->statistics.dual_objective =
      !exact ? NAN : self->solver == SS_KSOLVER_BSGD ? bsgd_dual_bound(self, tr, scores, dual) : dual;
  s->dual_estimate = estimate ? dual : NAN;
  for (int64_t i = 0; i < self->num_data; ++i) self->dual[i] = tr->alpha_scale * tr->alpha[i];
  /* The model: the expansion's dense rows. */
  SsData view;
  SsStatus status = SS_OK;
  if (m->size > 0) {
    status = ss_data_init_dense(&view, SS_DTYPE_FLOAT64, m->points, m->size, m->dimension,
                                m->dimension);
    if (status != SS_OK) return SS_ERR_NUMERIC;
  } else {
    view = self->data; /* unused: no rows are copied */
  }
  /* BSCA with bias: b minimises the primal for the budgeted w~ (bsca_bias.c) */
  double bias = 0.0;
  if (tr->row_scratch) {
    double *work = malloc(2 * (size_t)self->num_data * sizeof(double));
    if (!work) return SS_ERR_ALLOC;
    bias = ss_budget_primal_bias(scores, self->labels, tr->weights, self->num_data, work);
    free(work);
  }
  status = ss_kernel_model_set_from_rows(&self->model, &self->kernel, &view, s->rows, m->beta,
                                         m->size, bias);
  if (status != SS_OK) return status;
  for (int64_t j = 0; j < m->size; ++j) self->model.source[j] = m->origin[j];
  return SS_OK;
}

/* ---- the ops tables of BSCA (budget/bsca.c) and BSGD (budget/bsgd.c) ----- */

static SsStatus bsca_object_steps(SsKernelSvm *self, int64_t t, int64_t t_end)
{
  return ss_budget_solver_run(self, t, t_end,
                              self->bias_enabled ? ss_bsca_pair_steps : ss_bsca_steps);
}

const SsKernelSolverOps ss_bsca_ops = {
  .uses_permutation = true,
  .criterion = SS_RUN_RELATIVE_GAP,
  .may_diverge = false,
  .start = ss_budget_solver_start,
  .steps = bsca_object_steps,
  .evaluate = ss_budget_solver_evaluate,
  .free_state = ss_budget_solver_free_state,
};

static SsStatus bsgd_object_steps(SsKernelSvm *self, int64_t t, int64_t t_end)
{
  return ss_budget_solver_run(self, t, t_end, ss_bsgd_steps);
}

/* BSGD's closing diagnostic takes the ray (kernel_ray.c), as Pegasos'. */
static SsStatus bsgd_object_evaluate(SsKernelSvm *self, double *scores, double *norm2, bool *have_scores)
{
  const SsStatus status = ss_budget_solver_evaluate(self, scores, norm2, have_scores);
  if (status == SS_OK && *have_scores) ss_kernel_close_on_ray(self, scores, norm2);
  return status;
}

const SsKernelSolverOps ss_bsgd_ops = {
  .uses_permutation = true,
  .criterion = SS_RUN_OBJECTIVE_WINDOW,
  .may_diverge = true,
  .start = ss_budget_solver_start,
  .steps = bsgd_object_steps,
  .evaluate = bsgd_object_evaluate,
  .free_state = ss_budget_solver_free_state,
};

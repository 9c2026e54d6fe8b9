/* budget_train.c -- the state of the budgeted solvers (budget_train.h), the
 * standalone trainer's epochs (through the run driver, run.c) and the O(n B)
 * diagnostic pass computing the primal of the budgeted model and the dual of
 * the tracked alpha.
 *
 * Epoch e = t / n visits the examples in the order of a permutation drawn
 * from (seed, e) only, so a run of E epochs equals E/2 and then E/2 more.
 */
#include "budget_train.h"
#include "../common/internal.h"
#include "../driver/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

SsStatus ss_budget_trainer_init(SsBudgetTrainer *tr, const SsData *data, const double *labels,
                                const double *norms2, SsBudgetKernel kernel, double C,
                                SsBudgetStrategy strategy, int64_t B)
{
  if (!tr || !data || !labels || !norms2 || !(C > 0) || B < 1) return SS_ERR_BAD_ARG;
  SsBudgetTrainer t = {0};
  t.data = data;
  t.labels = labels;
  t.norms2 = norms2;
  t.kernel = kernel;
  t.C = C;
  t.strategy = strategy;
  t.alpha_scale = 1.0;
  SsStatus s = ss_budget_init(&t.model, B, data->dimension, data->num_data);
  if (s != SS_OK) return s;
  t.alpha = calloc((size_t)data->num_data, sizeof(double));
  if (!t.alpha) {
    ss_budget_free(&t.model);
    return SS_ERR_ALLOC;
  }
  *tr = t;
  return SS_OK;
}

void ss_budget_trainer_free(SsBudgetTrainer *tr)
{
  if (!tr) return;
  ss_budget_free(&tr->model);
  free(tr->alpha);
  free(tr->row_scratch);
  free(tr->pool_index);
  free(tr->pool_value);
  tr->alpha = NULL;
  tr->row_scratch = NULL;
  tr->pool_index = NULL;
  tr->pool_value = NULL;
}

SsStatus ss_budget_trainer_enable_bias(SsBudgetTrainer *tr)
{
  if (!tr->row_scratch) tr->row_scratch = calloc((size_t)tr->data->dimension, sizeof(double));
  if (!tr->pool_index) {
    tr->pool_index = malloc(SS_BSCA_POOL * sizeof(int64_t));
    for (int q = 0; tr->pool_index && q < SS_BSCA_POOL; ++q) tr->pool_index[q] = -1;
  }
  if (!tr->pool_value) tr->pool_value = calloc(SS_BSCA_POOL, sizeof(double));
  return tr->row_scratch && tr->pool_index && tr->pool_value ? SS_OK : SS_ERR_ALLOC;
}

/* Pairs (t, w) by t. */
static int compare_pairs(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ss_budget_primal_bias(const double *scores, const double *labels, const double *weights,
                             int64_t n, double *work)
{
  /* H(b) = sum_i c_i max(0, 1 - y_i (f_i + b)) is convex, piecewise linear
   * with kinks at t_i = y_i - f_i. Its slope is -W+ (the positives' weight)
   * below every kink and rises by c_i at each, so H is smallest at the first
   * kink where the weight passed reaches W+; where it reaches W+ exactly, H
   * is flat up to the next kink of positive weight: take the middle. */
  if (n == 0) return 0.0;
  double W_pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double c = weights ? weights[i] : 1.0;
    work[2 * i] = labels[i] - scores[i];
    work[2 * i + 1] = c;
    if (labels[i] > 0) W_pos += c;
  }
  qsort(work, (size_t)n, 2 * sizeof(double), compare_pairs);
  double passed = 0, b = work[2 * (n - 1)];
  for (int64_t k = 0; k < n; ++k) {
    passed += work[2 * k + 1];
    if (passed < W_pos) continue;
    b = work[2 * k];
    if (passed == W_pos) {
      int64_t m = k + 1;
      while (m < n && work[2 * m + 1] == 0) ++m;
      if (m < n) b = 0.5 * (work[2 * k] + work[2 * m]);
    }
    break;
  }
  return isfinite(b) ? b : 0.0;
}

void ss_budget_trainer_reset(SsBudgetTrainer *tr)
{
  ss_budget_clear(&tr->model);
  memset(tr->alpha, 0, (size_t)tr->data->num_data * sizeof(double));
  tr->alpha_scale = 1.0;
  tr->iteration = 0;
  tr->maintenance_at_reset = tr->counts.num_maintenance;
  for (int q = 0; tr->pool_index && q < SS_BSCA_POOL; ++q) tr->pool_index[q] = -1;
}

/* ---- the standalone trainer's callbacks for the run driver (run.h) ----- */

typedef struct BudgetRun {
  SsBudgetTrainer *trainer;
  void (*steps)(SsBudgetTrainer *, const int64_t *, int64_t, int64_t);
  int64_t *perm;
  uint64_t seed;
} BudgetRun;

static SsStatus budget_begin_epoch(void *object, int64_t epoch)
{
  BudgetRun *run = object;
  ss_rng_permutation(run->perm, run->trainer->data->num_data, run->seed, (uint64_t)epoch);
  return SS_OK;
}

static SsStatus budget_steps(void *object, int64_t t, int64_t t_end)
{
  BudgetRun *run = object;
  const int64_t n = run->trainer->data->num_data, start = t / n * n;
  run->steps(run->trainer, run->perm, t - start, t_end - start);
  return SS_OK;
}

static int64_t budget_iteration(const void *object)
{
  return ((const BudgetRun *)object)->trainer->iteration;
}

/* The standalone trainer keeps no statistics: its one diagnostic, at the
 * end, checks that the model is finite (ss_budget_objectives measures it). */
static SsStatus budget_measure(void *object, SsSvmStatus status, SsRunMeasure *m)
{
  (void)status;
  const SsBudget *model = &((BudgetRun *)object)->trainer->model;
  m->primal = 0;
  for (int64_t j = 0; j < model->size; ++j) m->finite &= isfinite(model->beta[j]) != 0;
  return SS_OK;
}

static void budget_set_status(void *object, SsSvmStatus status)
{
  (void)object;
  (void)status;
}

static const SsRunOps budget_run_ops = {
  .begin_epoch = budget_begin_epoch,
  .steps = budget_steps,
  .iteration = budget_iteration,
  .measure = budget_measure,
  .set_status = budget_set_status,
};

SsStatus ss_budget_train_epochs(SsBudgetTrainer *tr, SsBudgetSolver solver, int64_t num_epochs,
                                uint64_t seed)
{
  const int64_t n = tr->data->num_data;
  if (num_epochs < 1) return SS_OK;
  if (solver == SS_BUDGET_SOLVER_BSCA_BIAS && ss_budget_trainer_enable_bias(tr) != SS_OK)
    return SS_ERR_ALLOC;
  BudgetRun object = {.trainer = tr, .seed = seed,
                      .steps = solver == SS_BUDGET_SOLVER_BSCA        ? ss_bsca_steps
                               : solver == SS_BUDGET_SOLVER_BSCA_BIAS ? ss_bsca_pair_steps
                                                                      : ss_bsgd_steps};
  object.perm = malloc((size_t)n * sizeof(int64_t));
  if (!object.perm) return SS_ERR_ALLOC;
  /* Whole epochs from the stored iteration (a run split at an epoch boundary
   * equals one run), no diagnostic before the end, no stopping rule. */
  const int64_t iterations = num_epochs * n;
  SsRunHistory history = {0};
  SsRun run = {.history = &history, .ops = &budget_run_ops, .object = &object,
               .settings = {.num_data = n, .max_num_iterations = iterations,
                            .diagnostic_frequency = INT64_MAX, .criterion = SS_RUN_NO_RULE,
                            .interrupt_period = INT64_MAX}};
  SsStatus status = ss_run_train(&run);
  ss_run_history_free(&history);
  free(object.perm);
  return status;
}

bool ss_budget_dual_exact(const SsBudgetTrainer *tr)
{
  return tr->counts.num_maintenance == tr->maintenance_at_reset;
}

void ss_budget_objectives(const SsBudgetTrainer *tr, double *primal, double *dual, double *scores,
                          double *norm2)
{
  const int64_t n = tr->data->num_data;
  const SsBudget *m = &tr->model;
  const double lambda = 1.0 / (tr->C * (double)n);
  /* with somewhere to put them, the rows are scored first, on the threads */
  if (scores) ss_budget_score_rows(m, &tr->kernel, tr->data, tr->norms2, scores);
  double hinge = 0, sum_alpha = 0, quad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double f = scores ? scores[i] : ss_budget_score_row(m, &tr->kernel, tr->data, i, tr->norms2[i]);
    const double y = tr->labels[i], a = tr->alpha_scale * tr->alpha[i];
    hinge += (tr->weights ? tr->weights[i] : 1.0) * fmax(0.0, 1.0 - y * f);
    sum_alpha += a;
    quad += a * y * f;
  }
  const double w2 = ss_budget_norm2(m, &tr->kernel);
  if (primal) *primal = 0.5 * lambda * w2 + hinge / (double)n;
  if (dual) *dual = lambda * (sum_alpha - 0.5 * quad);
  if (norm2) *norm2 = w2;
}

/* kernel_svm.c -- the SsKernelSvm object: life cycle, validating setters and
 * getters, the diagnostic measure, the dispatch to the solvers (one file
 * each: sbp.c, kernel_pegasos.c, kernel_sdca.c, perceptron.c; BSCA and BSGD
 * through kernel_svm_budget.c), and the SBP's nu warm-up, which trains a
 * second object (the math: sbp_nu.c).
 *
 * Training runs through the run driver shared with the linear object
 * (run.c): it cuts the run [t, t + max_num_iterations) at epoch boundaries,
 * diagnostics and interrupt polls, all functions of t only, and hands each
 * piece to the solver's steps(): N iterations equal N/2 and N/2 more, bit
 * for bit. The solver's ops table names its stopping rule.
 */
#include "kernel_cache.h"
#include "kernel_certificate.h"
#include "kernel_svm_budget.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/*                                Validation                                */
/* ------------------------------------------------------------------------ */

const SsKernelSolverOps *ss_kernel_solver_ops(SsKernelSolver solver)
{
  switch (solver) {
  case SS_KSOLVER_SBP: return &ss_sbp_ops;
  case SS_KSOLVER_PEGASOS: return &ss_kernel_pegasos_ops;
  case SS_KSOLVER_SDCA: return &ss_kernel_sdca_ops;
  case SS_KSOLVER_PERCEPTRON: return &ss_perceptron_ops;
  case SS_KSOLVER_BSCA: return &ss_bsca_ops;
  case SS_KSOLVER_BSGD: return &ss_bsgd_ops;
  default: return NULL;
  }
}

static bool valid_solver(int solver)
{
  return solver == SS_KSOLVER_NONE || ss_kernel_solver_ops((SsKernelSolver)solver) != NULL;
}

static bool valid_positive(double v)
{
  return isfinite(v) && v > 0;
}

static bool valid_lambda(double lambda)
{
  return lambda >= SS_LAMBDA_MIN && lambda <= SS_LAMBDA_MAX; /* NaN fails both */
}

static bool valid_descriptor(const SsData *data)
{
  if (!data || data->num_data < 1 || data->dimension < 1 || data->homkermap) return false;
  if (data->dtype != SS_DTYPE_FLOAT32 && data->dtype != SS_DTYPE_FLOAT64) return false;
  switch (data->layout) {
  case SS_LAYOUT_DENSE: return data->values && data->row_stride >= data->dimension;
  case SS_LAYOUT_CSR:
    return data->indptr && (data->indptr[data->num_data] == 0 || (data->values && data->indices));
  }
  return false;
}

static SsStatus check_labels(const double *labels, int64_t n)
{
  if (!labels) return SS_ERR_BAD_ARG;
  for (int64_t i = 0; i < n; ++i) {
    if (labels[i] != 1.0 && labels[i] != -1.0) return SS_ERR_BAD_DATA;
  }
  return SS_OK;
}

SsStatus ss_kernel_svm_check_new(SsKernelSolver solver, const SsKernel *kernel,
                                 const SsData *data, const double *labels, double lambda)
{
  if (!valid_solver(solver) || ss_kernel_check(kernel) != SS_OK || !valid_lambda(lambda) ||
      ss_kernel_budget_solver_rejects(solver, kernel) || !valid_descriptor(data))
    return SS_ERR_BAD_ARG;
  if (kernel->type == SS_KERNEL_PRECOMPUTED && data->dimension != data->num_data)
    return SS_ERR_BAD_ARG;
  return check_labels(labels, data->num_data);
}

/* ------------------------------------------------------------------------ */
/*                             Create and destroy                           */
/* ------------------------------------------------------------------------ */

SsKernelSvm *ss_kernel_svm_new_without_data(SsKernelSolver solver, const SsKernel *kernel,
                                            int64_t dimension, double lambda)
{
  if (!valid_solver(solver) || ss_kernel_check(kernel) != SS_OK || !valid_lambda(lambda) ||
      ss_kernel_budget_solver_rejects(solver, kernel) || dimension < 1 || (uint64_t)dimension > SIZE_MAX / sizeof(double))
    return NULL;
  SsKernelSvm *self = calloc(1, sizeof(SsKernelSvm));
  if (!self) return NULL;
  self->solver = solver;
  self->ops = ss_kernel_solver_ops(solver);
  self->kernel = *kernel;
  self->dimension = dimension;
  self->lambda = lambda;
  self->nu = 0; /* derived from lambda at train time (sbp_nu.c) */
  self->overflow_row = self->kernel_overflow_row = self->nonfinite_score_row = -1;
  self->score_bound = NAN;
  self->nu_warmup = ss_kernel_svm_nu_warmup;
  self->bias_enabled = solver == SS_KSOLVER_BSCA; /* BSCA: LIBSVM's problem by default */
  self->epsilon = 1e-3;
  self->finish_mode = SS_KERNEL_SDCA_FINISH_AUTO;
  self->perm_epoch = -1;
  self->model.dimension = dimension;
  self->statistics.status = SS_SVM_STATUS_UNTRAINED;
  return self;
}

static void free_data_state(SsKernelSvm *self)
{
  if (self->ops && self->ops->free_state) self->ops->free_state(self);
  ss_kernel_row_store_release(self->row_store); /* its rows belong to the old data */
  self->row_store = NULL;
  ss_kernel_finish_forget(self);                /* the last finish solved the old data's problem */
  free(self->labels);
  free(self->weights);
  free(self->norms2);
  free(self->diagonal);
  free(self->dual);
  free(self->scores);
  free(self->zd);
  free(self->krow);
  free(self->perm);
  self->labels = self->weights = self->norms2 = self->diagonal = self->dual = self->zd = self->krow = NULL;
  self->scores = NULL;
  self->perm = NULL;
  self->state = NULL;
}

/* ||x_i||^2 (0 for a precomputed kernel) and K(x_i, x_i) of row i of X. */
static void row_caches(const SsKernelSvm *self, int64_t i, double *norm2, double *diagonal)
{
  *norm2 = self->kernel.type == SS_KERNEL_PRECOMPUTED ? 0.0 : ss_data_row_squared_norm(&self->data, i);
  *diagonal = ss_kernel_diagonal(&self->kernel, &self->data, i, *norm2);
}

/* Whether row i's squared norm or K(x_i, x_i) differs from set_data's (or
 * the row holds a value that is not finite: set_data's checks exclude one). */
static bool row_changed(const SsKernelSvm *self, int64_t i)
{
  double norm2, diagonal;
  row_caches(self, i, &norm2, &diagonal);
  const bool same_norm = norm2 == self->norms2[i] || (isinf(norm2) && isinf(self->norms2[i]));
  /* (an rbf diagonal of an infinite norm is NaN: train refuses that row
   * next, with the reason) */
  const bool same_diagonal =
      diagonal == self->diagonal[i] || (isnan(diagonal) && isnan(self->diagonal[i]));
  return !same_norm || !same_diagonal;
}

/* Rows per chunk of the norms' pass on the threads. */
#define CHANGED_ROWS_CHUNK 1024

typedef struct ChangedJob {
  const SsKernelSvm *self;
  int64_t *first; /* per chunk: its first changed row, -1: none */
} ChangedJob;

static void changed_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* one output per chunk */
  const ChangedJob *job = context;
  const int64_t n = job->self->num_data;
  for (int64_t c = begin; c < end; ++c) {
    const int64_t lo = c * CHANGED_ROWS_CHUNK;
    const int64_t hi = n - lo > CHANGED_ROWS_CHUNK ? lo + CHANGED_ROWS_CHUNK : n;
    int64_t first = -1;
    for (int64_t i = lo; i < hi && first < 0; ++i) {
      if (row_changed(job->self, i)) first = i;
    }
    job->first[c] = first;
  }
}

/* The first row whose norm or diagonal changed, else -1: on the object's
 * threads, fixed chunks of rows each find their own first, and the first
 * chunk in order that has one names the row a serial pass finds. */
static int64_t first_changed_norm(const SsKernelSvm *self)
{
  const int64_t n = self->num_data, chunks = (n + CHANGED_ROWS_CHUNK - 1) / CHANGED_ROWS_CHUNK;
  SsThreadPool *pool = ss_threads_pool(self->threads, n);
  int64_t *first = pool && chunks > 1 ? malloc((size_t)chunks * sizeof(int64_t)) : NULL;
  if (!first) { /* one thread (or no memory for the chunks' answers) */
    for (int64_t i = 0; i < n; ++i) {
      if (row_changed(self, i)) return i;
    }
    return -1;
  }
  ChangedJob job = {self, first};
  ss_parallel_for(pool, chunks, changed_chunks, &job);
  int64_t row = -1;
  for (int64_t c = 0; c < chunks && row < 0; ++c) row = first[c];
  free(first);
  return row;
}

/* The object borrows X's values, and its norms, kernel cache and solver
 * state were made from the values set_data saw. The first row whose squared
 * norm or K(x_i, x_i) differs now (or that holds a value that is not finite:
 * set_data's checks exclude one), else -1. Bitwise equal to set_data's for
 * unchanged data; one kernel row's work (a precomputed matrix is read whole),
 * on the object's threads. */
static int64_t first_changed_row(const SsKernelSvm *self)
{
  const int64_t changed = first_changed_norm(self);
  if (changed >= 0) return changed;
  /* The 0/1 path of the kernel rows never reads the values (kernel.c): a
   * sign flipped since set_data keeps every norm and would go unseen. */
  if (self->row_flags & SS_ROWS_UNIT_VALUES) {
    const int64_t row = ss_data_first_non_unit_row(&self->data);
    if (row >= 0) return row;
  }
  return self->kernel.type == SS_KERNEL_PRECOMPUTED ? ss_data_first_nonfinite_row(&self->data) : -1;
}

SsStatus ss_kernel_svm_set_data(SsKernelSvm *self, const SsData *data, const double *labels)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_data");
  if (!valid_descriptor(data))
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG,
                              "set_data: the data descriptor is NULL or malformed (a kernel map is not allowed)");
  if (data->dimension != self->dimension)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_data: the data has dimension %lld, the object %lld",
                              (long long)data->dimension, (long long)self->dimension);
  if (self->kernel.type == SS_KERNEL_PRECOMPUTED && data->num_data != data->dimension)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG,
                              "set_data: a precomputed kernel matrix must be square, got %lld x %lld",
                              (long long)data->num_data, (long long)data->dimension);
  if (!labels) return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_data: labels is NULL");
  if (self->kernel_precision == SS_KERNEL_ROWS_FLOAT32 && data->dtype != SS_DTYPE_FLOAT32)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_DATA,
                              "set_data: kernel_precision float32 needs float32 data, got float64 "
                              "(convert X to float32, or set the precision to float64 first)");
  for (int64_t i = 0; i < data->num_data; ++i) {
    if (labels[i] != 1.0 && labels[i] != -1.0)
      return ss_kernel_svm_fail(self, SS_ERR_BAD_DATA, "set_data: labels must be -1 or +1, got labels[%lld] = %g",
                                (long long)i, labels[i]);
  }
  const int64_t n = data->num_data;
  if ((uint64_t)n > SIZE_MAX / sizeof(double) / 2)
    return ss_kernel_svm_fail(self, SS_ERR_ALLOC, "set_data: %lld examples do not fit in memory", (long long)n);

  double *y = malloc((size_t)n * sizeof(double));
  double *norms2 = malloc((size_t)n * sizeof(double));
  double *diagonal = malloc((size_t)n * sizeof(double));
  double *zd = calloc((size_t)self->dimension, sizeof(double));
  double *krow = malloc((size_t)n * sizeof(double));
  int64_t *perm = malloc((size_t)n * sizeof(int64_t));
  if (!y || !norms2 || !diagonal || !zd || !krow || !perm) {
    free(y); free(norms2); free(diagonal); free(zd); free(krow); free(perm);
    return ss_kernel_svm_fail(self, SS_ERR_ALLOC, "set_data: out of memory for the per-example arrays of %lld "
                              "examples", (long long)n);
  }
  free_data_state(self);
  memcpy(y, labels, (size_t)n * sizeof(double));
  self->data = *data;
  self->row_flags = (ss_data_unit_values(data) ? SS_ROWS_UNIT_VALUES : 0u) |
                    (self->kernel_precision == SS_KERNEL_ROWS_FLOAT32 ? SS_ROWS_FLOAT32 : 0u);
  self->has_data = true;
  self->num_data = n;
  self->labels = y;
  self->norms2 = norms2;
  self->diagonal = diagonal;
  self->overflow_row = self->kernel_overflow_row = -1;
  for (int64_t i = 0; i < n; ++i) {
    row_caches(self, i, &norms2[i], &diagonal[i]);
    if (self->overflow_row < 0 && !isfinite(norms2[i])) self->overflow_row = i;
    if (self->kernel_overflow_row < 0 && isfinite(norms2[i]) && !isfinite(diagonal[i]))
      self->kernel_overflow_row = i;
  }
  self->zd = zd;
  self->krow = krow;
  self->perm = perm;
  self->perm_epoch = -1;
  self->iteration = 0;
  self->last_train_iterations = 0;
  self->num_kernel_evaluations = 0;
  memset(&self->statistics, 0, sizeof self->statistics);
  self->statistics.status = SS_SVM_STATUS_UNTRAINED;
  ss_run_history_clear(&self->history);
  return ss_kernel_svm_succeed(self);
}

SsKernelSvm *ss_kernel_svm_new(SsKernelSolver solver, const SsKernel *kernel, const SsData *data,
                               const double *labels, double lambda)
{
  if (ss_kernel_svm_check_new(solver, kernel, data, labels, lambda) != SS_OK) return NULL;
  SsKernelSvm *self = ss_kernel_svm_new_without_data(solver, kernel, data->dimension, lambda);
  if (!self) return NULL;
  if (ss_kernel_svm_set_data(self, data, labels) != SS_OK) {
    ss_kernel_svm_delete(self);
    return NULL;
  }
  return self;
}

void ss_kernel_svm_delete(SsKernelSvm *self)
{
  /* From the object's own callback: the run still uses it (kernel_svm.h). */
  if (!self || self->training) return;
  free_data_state(self);
  ss_run_history_free(&self->history);
  ss_kernel_model_free(&self->model);
  ss_threads_free(&self->threads);
  free(self);
}

/* ------------------------------------------------------------------------ */
/*                                Diagnostics                                */
/* ------------------------------------------------------------------------ */

/* ||w||^2 of the model: sum_jk beta_j beta_k K(z_j, z_k) (m^2 evaluations). */
static SsStatus model_squared_norm(const SsKernelSvm *self, double *norm2)
{
  const SsKernelModel *model = &self->model;
  const int64_t m = model->num_support_vectors;
  if (m == 0) {
    *norm2 = 0;
    return SS_OK;
  }
  double *f = malloc((size_t)m * sizeof(double));
  if (!f) return SS_ERR_ALLOC;
  SsStatus status;
  if (self->kernel.type == SS_KERNEL_PRECOMPUTED) {
    /* f(z_j) = sum_k beta_k G[source_j][source_k], the rows of the Gram matrix. */
    double *zd = calloc((size_t)self->dimension, sizeof(double));
    double *k_row = malloc((size_t)m * sizeof(double));
    status = (zd && k_row && self->has_data) ? SS_OK : (self->has_data ? SS_ERR_ALLOC : SS_ERR_BAD_STATE);
    for (int64_t j = 0; status == SS_OK && j < m; ++j) {
      ss_data_scatter_row(&self->data, model->source[j], zd);
      ss_kernel_row_from_scattered(&self->kernel, &self->data, NULL, model->source, m, zd, 0,
                                   k_row);
      ss_data_clear_row(&self->data, model->source[j], zd);
      double s = 0;
      for (int64_t k = 0; k < m; ++k) s += model->coefficients[k] * k_row[k];
      f[j] = s;
    }
    free(zd);
    free(k_row);
  } else {
    SsKernelModel unbiased = *model;
    unbiased.bias = 0;
    status = ss_kernel_model_scores(&unbiased, &self->kernel, &model->view, f, self->threads);
  }
  double s = 0;
  for (int64_t j = 0; j < m; ++j) s += model->coefficients[j] * f[j];
  free(f);
  *norm2 = ss_kernel_norm2_floor(s);
  return status;
}

/* The largest |K(x_i, z)| the kernel can take on the training rows x_i and
 * the model's points z (training rows, or merged points no longer than
 * them), R2 = max_i ||x_i||^2: polynomial (gamma R2 + |coef0|)^degree,
 * linear R2 (Cauchy-Schwarz); a precomputed kernel's rows are the values,
 * |G_ij| <= ||G_i||; the others are bounded (rbf by 1, sigmoid by 1).
 * Infinite where the kernel's values can overflow. O(n) (precomputed:
 * O(stored values)). */
static double kernel_bound(const SsKernelSvm *self)
{
  const SsKernel *k = &self->kernel;
  double R2 = 0;
  if (k->type == SS_KERNEL_PRECOMPUTED) {
    for (int64_t i = 0; i < self->num_data; ++i) R2 = fmax(R2, ss_data_row_squared_norm(&self->data, i));
    return sqrt(R2);
  }
  if (k->type != SS_KERNEL_POLYNOMIAL && k->type != SS_KERNEL_LINEAR) return 1.0;
  for (int64_t i = 0; i < self->num_data; ++i) R2 = fmax(R2, self->norms2[i]);
  if (k->type == SS_KERNEL_LINEAR) return R2;
  return pow(k->gamma * R2 + fabs(k->coef0), (double)k->degree);
}

/* A solver that passed its training scores from its own state (a gradient
 * cache: kernel SDCA with the bias, whose cached sums of pairs' updates
 * cancel) can report finite scores of a model whose own scores overflow:
 * its terms coef_j K(x_i, z_j) are finite, their running sum is not (the
 * polynomial kernel of degree 3, coef0 3e102 on standardized rows: every
 * K = 2.7e307). When sum_j |coef_j| max|K| + |b| is finite no sum can
 * overflow (one comparison); otherwise the model's own scores of the
 * training rows are computed (such data only) and the first that is not
 * finite is recorded (nonfinite_score_row: the run fails, explain_overflow
 * says why). */
static SsStatus check_model_scores(SsKernelSvm *self)
{
  const SsKernelModel *model = &self->model;
  const int64_t m = model->num_support_vectors, n = self->num_data;
  if (m == 0 || self->nonfinite_score_row >= 0) return SS_OK;
  if (isnan(self->score_bound)) self->score_bound = kernel_bound(self);
  double sum = 0;
  for (int64_t j = 0; j < m; ++j) sum += fabs(model->coefficients[j]);
  if (isfinite(sum * self->score_bound + fabs(model->bias))) return SS_OK;
  double *f = malloc((size_t)n * sizeof(double));
  if (!f) return SS_ERR_ALLOC;
  SsStatus status = ss_kernel_model_scores(model, &self->kernel, &self->data, f, self->threads);
  for (int64_t i = 0; status == SS_OK && i < n && self->nonfinite_score_row < 0; ++i)
    if (!isfinite(f[i])) self->nonfinite_score_row = i;
  free(f);
  return status;
}

/* Primal, loss, training error of the model from training scores f (no bias). */
static void hinge_statistics(SsKernelSvm *self, const double *f, double norm2)
{
  const int64_t n = self->num_data;
  const double b = self->model.bias;
  double loss = 0;
  int64_t errors = 0;
  for (int64_t i = 0; i < n; ++i) {
    double z = self->labels[i] * (f[i] + b);
    if (z < 1) loss += ss_kernel_svm_weight(self, i) * (1 - z);
    if (z <= 0) ++errors;
  }
  SsKernelSvmStatistics *st = &self->statistics;
  st->regularizer = 0.5 * self->lambda * norm2;
  st->loss = loss / (double)n;
  st->primal_objective = st->regularizer + st->loss;
  st->training_error = (double)errors / (double)n;
}

/* Refresh the model and the statistics with status @p status_in, and fill
 * what the run driver judges them by. */
static SsStatus measure(SsKernelSvm *self, SsSvmStatus status_in, SsRunMeasure *m)
{
  SsKernelSvmStatistics *st = &self->statistics;
  const int64_t n = self->num_data;
  st->status = status_in;
  st->iteration = self->iteration;
  st->epoch = self->iteration / n;
  st->objective = st->dual_objective = st->duality_gap = st->margin = NAN;
  st->num_kernel_evaluations = self->num_kernel_evaluations;
  st->exact_cost = self->solver == SS_KSOLVER_SBP ? ss_sbp_exact_cost(self) : self->finish_cost;

  /* The scores stay for a dual bound (run_dual_bound) of this model. */
  if (!self->scores) self->scores = malloc((size_t)n * sizeof(double));
  double *f = self->scores;
  if (!f) return SS_ERR_ALLOC;
  bool have_scores = false;
  double norm2 = 0;
  SsStatus status = SS_OK;
  /* A run's diagnostic polls the interrupt function in its pass (run.c:
   * an interrupted one is the run's end, described without it). */
  self->pass_polls = status_in == SS_SVM_STATUS_TRAINING && self->ops && self->ops->write_model;
  if (self->ops) status = self->ops->evaluate(self, f, &norm2, &have_scores);
  self->pass_polls = false;
  if (status == SS_OK && !have_scores) {
    SsKernelModel unbiased = self->model;
    unbiased.bias = 0;
    status = ss_kernel_model_scores(&unbiased, &self->kernel, &self->data, f, self->threads);
    if (status == SS_OK) status = model_squared_norm(self, &norm2);
  } else if (status == SS_OK) {
    status = check_model_scores(self);
  }
  if (status != SS_OK) return status;
  /* A training score that is not finite for finite data: the kernel's
   * values (or their sum over the expansion) overflow. The hinge would skip
   * a NaN score and report a finite primal of a model that cannot score:
   * the run fails instead (run.c), and explain_train names the cause. */
  for (int64_t i = 0; i < n && self->nonfinite_score_row < 0; ++i)
    if (!isfinite(f[i])) self->nonfinite_score_row = i;
  hinge_statistics(self, f, norm2);
  if (isnan(st->objective)) st->objective = st->primal_objective;
  if (!isnan(st->dual_objective)) st->duality_gap = st->primal_objective - st->dual_objective;
  st->num_support_vectors = self->model.num_support_vectors;
  st->elapsed_time = ss_clock_seconds() - self->train_start_time;
  /* A non-finite coefficient or bias is divergence even when the primal
   * looks finite (fuzz_kernel_train: Pegasos with a subnormal lambda gave
   * infinite coefficients on support vectors whose kernel values are 0). */
  bool finite_model = isfinite(self->model.bias) && self->nonfinite_score_row < 0 && isfinite(norm2);
  for (int64_t j = 0; j < self->model.num_support_vectors && finite_model; ++j)
    finite_model = isfinite(self->model.coefficients[j]);
  m->finite = finite_model;
  m->primal = st->primal_objective;
  m->dual = st->dual_objective;
  m->dual_estimate = ss_kernel_budget_dual_estimate(self);
  return SS_OK;
}

/* ------------------------------------------------------------------------ */
/*                  Train: the callbacks of the run driver                  */
/* ------------------------------------------------------------------------ */

static SsStatus run_begin_epoch(void *object, int64_t epoch)
{
  SsKernelSvm *self = object;
  if (self->ops->uses_permutation && self->perm_epoch != epoch) {
    ss_rng_permutation(self->perm, self->num_data, self->seed, (uint64_t)epoch);
    self->perm_epoch = epoch;
  }
  return SS_OK;
}

static SsStatus run_steps(void *object, int64_t t, int64_t t_end)
{
  SsKernelSvm *self = object;
  return self->ops->steps(self, t, t_end);
}

static int64_t run_iteration(const void *object)
{
  return ((const SsKernelSvm *)object)->iteration;
}

static SsStatus run_measure(void *object, SsSvmStatus status, SsRunMeasure *m)
{
  return measure(object, status, m);
}

static void run_set_status(void *object, SsSvmStatus status)
{
  SsKernelSvm *self = object;
  self->statistics.status = status;
  self->statistics.iteration = self->iteration;
  self->statistics.epoch = self->iteration / self->num_data;
}

static int run_notify(void *object)
{
  SsKernelSvm *self = object;
  if (!self->diagnostic_fn) return 0;
  const SsKernelSvmStatistics *st = &self->statistics;
  self->notified = (SsRunSeen){st->status, st->iteration, st->objective};
  return self->diagnostic_fn(self, self->diagnostic_user);
}

/* The diagnostic function sees how a run ended: a finish after the run's
 * last diagnostic (the exact solver's, kernel_finish.c) or a status set
 * after it changed the statistics, so it is called once more, its answer
 * ignored (the run is over). */
static void notify_the_end(SsKernelSvm *self, SsStatus status)
{
  const SsKernelSvmStatistics *st = &self->statistics;
  if (status == SS_OK && self->diagnostic_fn &&
      ss_run_seen_differs(&self->notified, st->status, st->iteration, st->objective))
    (void)self->diagnostic_fn(self, self->diagnostic_user);
}

/* The window rule's certificate (run.c): for a solver whose stop needs one,
 * a dual bound D <= P* of the model just measured (kernel_certificate.c),
 * reported in the statistics as the dual objective and the gap. Its kernel
 * rows (n evaluations each: one per margin error of the model, then at most
 * max(m, SS_KERNEL_CERTIFICATE_MIN_ROWS) for the ascent, m the model's
 * support vectors) are paid only when the window fires, and at most once
 * per SS_KERNEL_CERTIFICATE_SPACING times their cost of the solver's own
 * work: a fire sooner after the last bound gets NaN, no stop. */
static double run_dual_bound(void *object, SsRunBound *kind)
{
  SsKernelSvm *self = object;
  *kind = SS_RUN_BOUND_NONE;
  if (!self->ops || !self->ops->certified || !self->scores) return NAN;
  /* The SBP's averaged margin (its own objective) not positive: its
   * averaged iterate is worse in the SBP's own objective than the zero
   * model it started from (whose margin is nu > 0), and the model is that
   * iterate unscaled (sbp.c), not the SBP's predictor. Its primal then
   * stays flat just below the best constant's while the margin rises, and
   * the window took that for the end (6,000 noisy generated rows, C = 30:
   * "converged" at 0.125 epoch, 5-11x the optimum, its margin -0.006;
   * docs/stopping.rst). No stop, whatever the nu: *kind is a bound, NaN none. */
  if (self->solver == SS_KSOLVER_SBP && !(self->statistics.margin > 0)) {
    *kind = SS_RUN_BOUND_TIGHT;
    return NAN;
  }
  /* The SBP on a nu set by the caller solves the SVM of some other lambda:
   * no bound on this one's can judge it (the window alone decides). On a
   * derived nu that its model shows to be off, the stop stands too, and
   * run_solver refines nu and trains on. */
  if (self->nu > 0 || ss_sbp_nu_is_off(self)) return NAN;
  /* A model within tol of the best constant's objective (computed once per
   * run: best_constant_objective) has learnt nothing yet: the SBP's averaged iterate
   * starts near 0, where its objective is flat for a while, and the window
   * took that for the end (20 % flipped labels, 8000 rows, C = 10: "converged"
   * after a fraction of an epoch, 5-8 pp below SVC, sbp_nu.c). No stop:
   * *kind is a bound, and NaN is none. */
  if (self->statistics.primal_objective >= (1 - self->epsilon) * self->constant_objective) {
    *kind = SS_RUN_BOUND_TIGHT;
    return NAN;
  }
  const int64_t before = self->num_kernel_evaluations;
  const int64_t n = self->num_data, m = self->model.num_support_vectors;
  const int64_t wanted = m > SS_KERNEL_CERTIFICATE_MIN_ROWS ? m : SS_KERNEL_CERTIFICATE_MIN_ROWS;
  const int64_t rows = wanted < n ? wanted : n;
  /* The first bound of a run only if it is cheap or the work so far pays
   * for it SS_KERNEL_CERTIFICATE_SPACING times over; until then the window
   * alone decides (on a9a a bound costs about an epoch of SBP steps:
   * docs/stopping.rst). */
  const double cost = ss_kernel_dual_bound_cost(self, self->scores, rows);
  if (self->certificate_at == 0 && cost > SS_KERNEL_CERTIFICATE_FREE_COST &&
      (double)before < SS_KERNEL_CERTIFICATE_SPACING * cost)
    return NAN;
  /* After a bound that did not certify the stop, only a bound stops the run. */
  *kind = SS_RUN_BOUND_TIGHT;
  if (self->certificate_at > 0 &&
      (double)(before - self->certificate_at) < SS_KERNEL_CERTIFICATE_SPACING * (double)self->certificate_cost)
    return NAN;
  const double bound = ss_kernel_dual_bound(self, self->scores, rows);
  self->certificate_cost = self->num_kernel_evaluations - before;
  self->certificate_at = self->num_kernel_evaluations;
  SsKernelSvmStatistics *st = &self->statistics;
  st->num_kernel_evaluations = self->num_kernel_evaluations;
  if (!isnan(bound)) {
    st->dual_objective = bound;
    st->duality_gap = st->primal_objective - bound;
  }
  return bound;
}

static bool run_budget_full(const void *object)
{
  return ss_kernel_budget_full(object);
}

/* The SBP's race against the exact finish (sbp_race.c), and the other
 * solvers whose model the finish replaces: bias-free coordinate SDCA at its
 * first training diagnostic short of the gap, Pegasos, BSGD and BSCA once
 * their work reached n^2 (kernel_finish.c, "When"). The run ends here, as
 * on its cap, and the finish takes over. */
static bool run_stalled(void *object, const SsRunMeasure *m)
{
  SsKernelSvm *self = object;
  self->race_lost = ss_sbp_race_lost(self, m->next_check) || ss_kernel_finish_early(self, m->next_check);
  return self->race_lost;
}

static const SsRunOps kernel_run_ops = {
  .begin_epoch = run_begin_epoch,
  .steps = run_steps,
  .iteration = run_iteration,
  .measure = run_measure,
  .set_status = run_set_status,
  .notify = run_notify,
  .dual_bound = run_dual_bound,
  .budget_full = run_budget_full,
  .stalled = run_stalled,
};

/* P(w = 0, b = 0) = 1/n sum_i c_i (the hinge loss at 0 is 1). */
static double zero_objective(const SsKernelSvm *self)
{
  double sum = 0;
  for (int64_t i = 0; i < self->num_data; ++i) sum += ss_kernel_svm_weight(self, i);
  return sum / (double)self->num_data;
}

/* P of the best constant model f = b: without the bias b = 0, the zero
 * model's; with it, sum_i c_i max(0, 1 - y_i b) is linear in b on [-1, 1]
 * and grows outside, so b = +-1 is best: 2/n min(W+, W-), W+- the weight of
 * each class (1 - |mean y| without weights). */
static double best_constant_objective(const SsKernelSvm *self)
{
  if (!self->bias_enabled) return zero_objective(self);
  double positive = 0, negative = 0;
  for (int64_t i = 0; i < self->num_data; ++i) {
    if (self->labels[i] > 0) positive += ss_kernel_svm_weight(self, i);
    else negative += ss_kernel_svm_weight(self, i);
  }
  return 2 * (positive < negative ? positive : negative) / (double)self->num_data;
}

/* The SDCA object of the certified finish (kernel_finish.c's header says what
 * it inherits) on @p rows (the object's data, or the sample of
 * predict_finish_cost) with @p labels, @p weights (NULL: none) and
 * @p lambda; NULL on failure (*status says why). It is built here, as the
 * nu warm-up's solver is, so that kernel_finish.c calls none of the object's
 * functions. */
static SsKernelSvm *finish_solver(SsKernelSvm *self, const SsData *rows, const double *labels,
                                  const double *weights, double lambda, SsStatus *status)
{
  /* rows' own dimension: a precomputed kernel's sample is an m x m block */
  SsKernelSvm *sdca = ss_kernel_svm_new_without_data(SS_KSOLVER_SDCA, &self->kernel, rows->dimension, lambda);
  *status = sdca ? SS_OK : SS_ERR_ALLOC;
  const int64_t iterations = ss_kernel_finish_cap(rows->num_data);
  if (*status == SS_OK) *status = ss_kernel_svm_set_kernel_precision(sdca, self->kernel_precision);
  if (*status == SS_OK) *status = ss_kernel_svm_set_data(sdca, rows, labels);
  if (*status == SS_OK) *status = ss_kernel_svm_set_seed(sdca, self->seed);
  if (*status == SS_OK)
    *status = ss_kernel_svm_set_epsilon(sdca, ss_kernel_finish_epsilon(self));
  if (*status == SS_OK) *status = ss_kernel_svm_set_max_num_iterations(sdca, iterations);
  if (*status == SS_OK) *status = ss_kernel_svm_set_num_threads(sdca, ss_kernel_svm_get_num_threads(self));
  if (*status == SS_OK && weights) *status = ss_kernel_svm_set_weights(sdca, weights);
  if (*status == SS_OK) *status = ss_kernel_svm_set_unregularized_bias(sdca, self->bias_enabled);
  if (*status == SS_OK && !self->bias_enabled) *status = ss_kernel_sdca_bias_free_pairs(sdca);
  if (*status == SS_OK && self->cache_size > 0) *status = ss_kernel_svm_set_cache_size(sdca, self->cache_size);
  if (*status == SS_OK) *status = ss_kernel_svm_set_shrinking(sdca, !self->no_shrinking);
  if (*status == SS_OK) *status = ss_kernel_svm_set_row_copy(sdca, !self->no_row_copy);
  if (*status == SS_OK && self->row_store && rows == &self->data)
    *status = ss_kernel_svm_share_kernel_rows(sdca, self);
  if (*status == SS_OK && self->interrupt_fn)
    *status = ss_kernel_svm_set_interrupt_function(sdca, self->interrupt_fn, self->interrupt_user);
  if (*status != SS_OK) {
    ss_kernel_svm_delete(sdca);
    return NULL;
  }
  return sdca;
}

static SsStatus predict_finish_cost(SsKernelSvm *self);

/* A run on the default cap hands over to exact kernel SDCA (kernel_finish.c). */
static SsStatus finish(SsKernelSvm *self)
{
  self->statistics.finish_epochs = 0;
  if (!ss_kernel_finish_wanted(self)) return SS_OK;
  SsStatus status;
  SsKernelSvm *sdca = finish_solver(self, &self->data, self->labels, self->weights, self->lambda, &status);
  if (sdca) ss_kernel_finish_warm_start(self, sdca);
  if (sdca) status = ss_kernel_svm_train(sdca);
  if (status == SS_OK) status = ss_kernel_finish_write_back(self, sdca);
  if (status == SS_ERR_INTERRUPTED) self->statistics.status = SS_SVM_STATUS_INTERRUPTED;
  else if (status != SS_OK) self->statistics.status = SS_SVM_STATUS_ERROR; /* (a kernel that overflows) */
  ss_kernel_svm_delete(sdca);
  return status;
}

/* The unit of the default diagnostic schedule (0: an epoch). */
static int64_t schedule_unit(const SsKernelSvm *self)
{
  const int64_t n = self->num_data, divisor = self->ops ? self->ops->schedule_divisor : 0;
  if (divisor <= 1 || n < SS_KERNEL_SCHEDULE_MIN_N) return 0;
  const int64_t least = n < SS_KERNEL_SCHEDULE_MIN_UNIT ? n : SS_KERNEL_SCHEDULE_MIN_UNIT;
  return n / divisor > least ? n / divisor : least;
}

/* Does the call go straight to the finish, which kept this very problem's
 * optimum (kernel_finish.c, "When"; the SBP: sbp_race.c, "A warm start")? */
static bool finish_at_start(const SsKernelSvm *self)
{
  if (self->solver == SS_KSOLVER_SBP) return ss_sbp_race_lost_at_start(self);
  return ss_kernel_finish_allowed(self) && ss_kernel_finish_kept_for_this_C(self);
}

static SsRun kernel_run(SsKernelSvm *self)
{
  SsRunSettings settings = {
    .num_data = self->num_data,
    .max_num_iterations = ss_kernel_svm_get_max_num_iterations(self),
    .diagnostic_frequency = self->diagnostic_frequency,
    .schedule_unit = schedule_unit(self),
    .epsilon = self->epsilon,
    .criterion = self->ops ? self->ops->criterion : SS_RUN_NO_RULE,
    .zero_objective = zero_objective(self),
    .divergence_test = self->ops && self->ops->may_diverge,
    .interrupt_fn = self->interrupt_fn,
    .interrupt_user = self->interrupt_user,
    .interrupt_period = SS_KERNEL_SVM_INTERRUPT_PERIOD,
    .defer_interrupted = self->ops && self->ops->write_model,
  };
  return (SsRun){.history = &self->history, .settings = settings, .ops = &kernel_run_ops,
                 .object = self, .progress = &self->progress};
}

/* The interrupt poll stopped the run (Ctrl+C) of a solver whose diagnostic
 * is a pass of the n rows against the support vectors (Pegasos, SDCA, the
 * Perceptron: seconds to minutes on large data, and nothing interrupts it):
 * no pass. The model is written from the solver's state (O(m d)); the
 * statistics say where the run stopped (iteration, epoch, kernel
 * evaluations, support vectors, time) and the figures of the model that
 * only the pass gives (objectives, loss, gap, margin, error) are NaN. */
static SsStatus describe_interrupted(SsKernelSvm *self)
{
  SsStatus status = self->ops->write_model(self);
  SsKernelSvmStatistics *st = &self->statistics;
  st->status = SS_SVM_STATUS_INTERRUPTED;
  st->iteration = self->iteration;
  st->epoch = self->iteration / self->num_data;
  st->objective = st->primal_objective = st->regularizer = st->loss = NAN;
  st->dual_objective = st->duality_gap = st->margin = st->training_error = NAN;
  st->num_kernel_evaluations = self->num_kernel_evaluations;
  st->num_support_vectors = self->model.num_support_vectors;
  st->elapsed_time = ss_clock_seconds() - self->train_start_time;
  if (status != SS_OK) st->status = SS_SVM_STATUS_ERROR;
  return status == SS_OK ? SS_ERR_INTERRUPTED : status;
}

static SsStatus run_solver(SsKernelSvm *self)
{
  SsRun run = kernel_run(self);
  if (!self->ops) {
    /* SS_KSOLVER_NONE: the statistics of the present model. */
    SsStatus status = ss_run_diagnose(&run, SS_SVM_STATUS_MAX_ITERATIONS, true);
    if (status == SS_OK) self->statistics.status = SS_SVM_STATUS_MAX_ITERATIONS;
    return status;
  }
  /* Room for the whole cap: a saturated counter would end the run short. */
  if (self->iteration > INT64_MAX - run.settings.max_num_iterations)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE,
                              "the iteration number %lld leaves no room for max_num_iterations = %lld more "
                              "iterations (the counter is a 64-bit integer): lower set_max_num_iterations",
                              (long long)self->iteration, (long long)run.settings.max_num_iterations);
  self->certificate_at = self->certificate_cost = 0;
  self->constant_objective = best_constant_objective(self);
  self->race_lost = false;
  self->finish_cost = 0;
  /* The diagnostics' scores (measure), held before the solver's state and
   * row cache take the memory there is: under an address-space limit the
   * cache grows to what is left (kernel_cache.c, take_slot), and the
   * closing diagnostic then found none. */
  if (!self->scores) self->scores = malloc((size_t)self->num_data * sizeof(double));
  if (!self->scores) {
    self->statistics.status = SS_SVM_STATUS_ERROR;
    return SS_ERR_ALLOC;
  }
  SsStatus status = self->ops->start(self);
  self->train_start_iteration = self->iteration; /* (start may have restarted the count) */
  if (status != SS_OK) {
    self->statistics.status = SS_SVM_STATUS_ERROR;
    return status;
  }
  /* The finish kept the optimum of this very problem: no step of a solver
   * whose model it replaces would pay (sbp_race.c, "A warm start";
   * kernel_finish.c, "When"); the finish continues from it. Not through
   * the driver's stall path (run.c), where a race hand-over ends: that path
   * is a training diagnostic, which comes only after steps, costs a pass
   * of the n rows against the support vectors that the finish's write-back
   * replaces, and would call the caller's diagnostic function for a run of
   * no step. The status is the one that path sets (the cap's, which
   * ss_kernel_finish_wanted reads as a run ended short), and the finish
   * writes the statistics (model, certificate, elapsed time) either way. */
  if (finish_at_start(self)) {
    self->race_lost = true;
    self->statistics.status = SS_SVM_STATUS_MAX_ITERATIONS;
    return finish(self);
  }
  status = predict_finish_cost(self);
  if (status != SS_OK) {
    self->statistics.status = status == SS_ERR_INTERRUPTED ? SS_SVM_STATUS_INTERRUPTED : SS_SVM_STATUS_ERROR;
    return status;
  }
  self->race_start = self->num_kernel_evaluations; /* after the warm-ups (sbp_race.c) */
  self->race_start_iteration = self->iteration;
  const int64_t t_end = self->iteration + run.settings.max_num_iterations;
  status = ss_run_train(&run);
  /* The SBP with a nu derived from lambda: a run that ends on a model whose
   * own nu (at its best scale for lambda) is far from the nu in force solved
   * another C's problem; it goes on with the refined nu for the rest of the
   * cap, its history restarted (sbp_nu.c, "Refinement"). */
  /* A run that lost the race (sbp_race.c) hands over instead: the exact
   * finish solves lambda's problem whatever the nu. */
  for (int round = 0; status == SS_OK && round < SS_SBP_NU_MAX_REFINEMENTS && !self->race_lost &&
                      self->iteration < t_end && ss_sbp_refine_nu(self);
       ++round) {
    ss_run_history_clear(run.history);
    run.settings.max_num_iterations = t_end - self->iteration;
    status = ss_run_train(&run);
  }
  if (status == SS_ERR_INTERRUPTED && run.interrupted_deferred) return describe_interrupted(self);
  /* The rule fired with no room (or no round) left to refine: the model is
   * of another C, not converged (run_dual_bound let the stop stand). */
  if (status == SS_OK && self->statistics.status == SS_SVM_STATUS_CONVERGED && ss_sbp_nu_is_off(self))
    self->statistics.status = SS_SVM_STATUS_MAX_ITERATIONS;
  /* A run on the default cap hands over to exact kernel SDCA (kernel_finish.c). */
  return status == SS_OK ? finish(self) : status;
}

/* "polynomial kernel (degree 37, gamma 1, coef0 -1.8e+308)" and the like. */
static void describe_kernel(const SsKernel *k, char *out, size_t size)
{
  switch (k->type) {
    case SS_KERNEL_POLYNOMIAL:
      snprintf(out, size, "polynomial kernel (degree %d, gamma %g, coef0 %g)", k->degree, k->gamma, k->coef0);
      break;
    case SS_KERNEL_SIGMOID: snprintf(out, size, "sigmoid kernel (gamma %g, coef0 %g)", k->gamma, k->coef0); break;
    case SS_KERNEL_RBF: snprintf(out, size, "rbf kernel (gamma %g)", k->gamma); break;
    case SS_KERNEL_PRECOMPUTED: snprintf(out, size, "precomputed kernel"); break;
    default: snprintf(out, size, "linear kernel"); break;
  }
}

static const char *overflow_advice(const SsKernel *k)
{
  return k->type == SS_KERNEL_POLYNOMIAL
             ? "lower the degree, gamma or |coef0|, or scale X"
             : "scale X";
}

/* A run that failed on a value that is not finite (SS_ERR_NUMERIC): when
 * the kernel's values overflow, say so (and return true). A diagnostic
 * that found training row i's score not finite names the kernel value
 * K(x_i, z_j) against a support vector that is not (m evaluations, on this
 * failure only), or, every K(x_i, z_j) finite, the sum of m of them that
 * overflows; a step that failed first is explained by the bound of
 * kernel_bound where n times it overflows. */
static bool explain_overflow(SsKernelSvm *self)
{
  char kernel[160];
  describe_kernel(&self->kernel, kernel, sizeof kernel);
  const SsKernelModel *model = &self->model;
  const int64_t i = self->nonfinite_score_row, m = model->num_support_vectors;
  if (i >= 0 && m > 0 && self->kernel.type != SS_KERNEL_PRECOMPUTED) {
    double *row = malloc((size_t)m * sizeof(double));
    SsStatus s = row ? ss_kernel_row(&self->kernel, &self->data, i, &model->view, model->norms2, row, NULL)
                     : SS_ERR_ALLOC;
    int64_t j = 0;
    while (s == SS_OK && j < m && isfinite(row[j])) ++j;
    const double value = s == SS_OK && j < m ? row[j] : 0.0;
    double largest = 0;
    for (int64_t k = 0; s == SS_OK && k < m; ++k) largest = fmax(largest, fabs(row[k]));
    free(row);
    if (s == SS_OK && j < m) {
      ss_kernel_svm_fail(self, SS_ERR_NUMERIC,
                         "train: the kernel's values overflow: K(x_%lld, z_%lld) = %g for finite row %lld of "
                         "X and support vector %lld with the %s; %s",
                         (long long)i, (long long)j, value, (long long)i, (long long)j, kernel,
                         overflow_advice(&self->kernel));
      return true;
    }
    if (s == SS_OK && !isfinite(largest * (double)m)) {
      /* every K(x_i, z_j) finite, but so large that m of them overflow: the
       * sum over the expansion does (not coefficients that diverged) */
      ss_kernel_svm_fail(self, SS_ERR_NUMERIC,
                         "train: the kernel's values overflow: finite row %lld of X has no finite score: its %lld kernel "
                         "values reach %g with the %s; %s",
                         (long long)i, (long long)m, largest, kernel, overflow_advice(&self->kernel));
      return true;
    }
  }
  /* a step that failed first: the kernel's values overflow, or are so large
   * that a sum of n of them (a score, a gradient) does */
  const double bound = kernel_bound(self);
  if (isfinite(bound * (double)self->num_data)) return false;
  ss_kernel_svm_fail(self, SS_ERR_NUMERIC,
                     "train: the kernel's values overflow: a value not finite by iteration %lld (solver %s), "
                     "|K| can reach %g on X with the %s; %s",
                     (long long)self->iteration, ss_kernel_svm_solver_name(self->solver), bound, kernel,
                     overflow_advice(&self->kernel));
  return true;
}

/* Say why a run ended with @p status (the solvers return a bare status). */
static SsStatus explain_train(SsKernelSvm *self, SsStatus status)
{
  const char *solver = ss_kernel_svm_solver_name(self->solver);
  const long long t = (long long)self->iteration;
  if (status == SS_ERR_BAD_STATE && self->last_error.text[0]) return status;   /* said by run_solver */
  switch (status) {
    case SS_OK: return ss_kernel_svm_succeed(self);
    case SS_ERR_INTERRUPTED:
      return ss_kernel_svm_fail(self, status, "training interrupted by a callback at iteration %lld (solver %s)",
                                t, solver);
    case SS_ERR_DIVERGED:
      return ss_kernel_svm_fail(self, status,
                                "training diverged: the primal objective rose to %.3g, over 1e4 times its "
                                "value at w = 0, by iteration %lld (solver %s): the steps are too large",
                                self->statistics.primal_objective, t, solver);
    case SS_ERR_NUMERIC:
      if (explain_overflow(self)) return status;
      return ss_kernel_svm_fail(self, status,
                                "training diverged: a non-finite value by iteration %lld (solver %s)", t, solver);
    case SS_ERR_ALLOC:
      return ss_kernel_svm_fail(self, status, "training ran out of memory (solver %s, %lld examples)", solver,
                                (long long)self->num_data);
    case SS_ERR_BAD_DATA:
      if (self->solver == SS_KSOLVER_SBP && self->bias_enabled)
        return ss_kernel_svm_fail(self, status, "the SBP with an unregularized bias needs both classes in y");
      break;
    default: break;
  }
  return ss_kernel_svm_fail(self, status, "training failed (solver %s): %s", solver, ss_status_string(status));
}

SsStatus ss_kernel_svm_train(SsKernelSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "train");
  self->train_start_iteration = self->iteration;
  self->last_train_iterations = 0; /* a refused call makes no step */
  if (!self->has_data)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE, "training needs data: this object has none (set_data)");
  const int64_t changed = first_changed_row(self);
  if (changed >= 0) {
    const int64_t nonfinite = ss_data_first_nonfinite_row(&self->data);
    return ss_kernel_svm_fail(self, SS_ERR_BAD_DATA,
                              "row %lld of the data X %s: X changed after set_data (the object reads the "
                              "caller's arrays, it does not copy them, and its norms and state were made from "
                              "the values it saw); give the data again (set_data)",
                              (long long)(nonfinite >= 0 ? nonfinite : changed),
                              nonfinite >= 0 ? "holds a value that is not finite" : "has other values");
  }
  /* Finite values whose squares overflow (|x_ij| above about 1e154) give
   * NaN distances and kernel values: refused, not trained on (set_data found
   * the row; refused here, so that new and check_new keep agreeing). */
  if (self->overflow_row >= 0)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_DATA,
                              "row %lld of the data X has a squared norm that is not finite (%g): its values "
                              "overflow when squared; scale the features (e.g. to unit variance)",
                              (long long)self->overflow_row, self->norms2[self->overflow_row]);
  /* Finite rows whose K(x_i, x_i) is not (a polynomial kernel of high
   * degree, large gamma or |coef0|): the kernel's values overflow, and no
   * model of them scores the training data (the fuzzer's degree 37, coef0
   * -1.8e308 trained "successfully" into one). Refused, not trained on. */
  if (self->kernel_overflow_row >= 0) {
    char kernel[160];
    describe_kernel(&self->kernel, kernel, sizeof kernel);
    const int64_t i = self->kernel_overflow_row;
    return ss_kernel_svm_fail(self, SS_ERR_NUMERIC,
                              "train: the kernel's values overflow: K(x_%lld, x_%lld) = %g for finite row %lld of "
                              "X with the %s; %s",
                              (long long)i, (long long)i, self->diagonal[i], (long long)i, kernel,
                              overflow_advice(&self->kernel));
  }
  /* a fork() of the process that made the pool: new workers of this one's */
  if (ss_threads_after_fork(&self->threads) != SS_OK)
    return ss_kernel_svm_fail(self, SS_ERR_ALLOC, "train: cannot start the threads of this process (a "
                              "fork of the one that set num_threads); the object is now serial");
  ss_kernel_svm_succeed(self);   /* no message left over from an earlier call */
  self->train_start_time = ss_clock_seconds();
  self->training = true;
  self->notified = (SsRunSeen){.status = SS_SVM_STATUS_UNTRAINED};
  self->nonfinite_score_row = -1;
  self->score_bound = NAN;
  const SsStatus status = run_solver(self);
  self->last_train_iterations = self->iteration - self->train_start_iteration;
  notify_the_end(self, status);
  self->training = false;
  /* The arrays may also change while the run reads them (a diagnostic
   * callback, another thread of the caller): the model then answers
   * neither the old data nor the new one, so the run fails rather than
   * reporting the statistics it computed. */
  const int64_t changed_during = first_changed_row(self);
  if (changed_during >= 0)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_DATA,
                              "row %lld of the data X changed during training (the object reads the caller's "
                              "arrays, it does not copy them): the model is not reliable; give the data "
                              "again (set_data) and train again", (long long)changed_during);
  return explain_train(self, status);
}

SsStatus ss_kernel_svm_decision_function(const SsKernelSvm *self, const SsData *data,
                                         double *scores)
{
  if (!self || !valid_descriptor(data) || !scores) return SS_ERR_BAD_ARG;
  if (data->dimension != self->dimension) return SS_ERR_BAD_ARG;
  SsStatus status = ss_kernel_model_scores(&self->model, &self->kernel, data, scores, self->threads);
  return status == SS_OK ? ss_scores_status(data, scores, data->num_data) : status;
}

SsStatus ss_kernel_svm_nu_from_model(const SsKernelSvm *self, double *nu)
{
  if (!self || !nu) return SS_ERR_BAD_ARG;
  if (!self->has_data || self->model.num_support_vectors == 0) return SS_ERR_BAD_STATE;
  const int64_t n = self->num_data;
  double *f = malloc((size_t)n * sizeof(double));
  if (!f) return SS_ERR_ALLOC;
  SsStatus status =
      ss_kernel_model_scores(&self->model, &self->kernel, &self->data, f, self->threads);
  double norm2 = 0;
  if (status == SS_OK) status = model_squared_norm(self, &norm2);
  if (status == SS_OK) {
    double loss = 0;
    for (int64_t i = 0; i < n; ++i) {
      double z = self->labels[i] * f[i];
      if (z < 1) loss += 1 - z;
    }
    if (!(norm2 > 0)) status = SS_ERR_BAD_STATE;
    else *nu = loss / (double)n / sqrt(norm2);
  }
  free(f);
  return status;
}


/* ------------------------------------------------------------------------ */
/*                                  Setters                                 */
/* ------------------------------------------------------------------------ */

SsStatus ss_kernel_svm_set_lambda(SsKernelSvm *self, double lambda)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_lambda");
  if (!valid_lambda(lambda))
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_lambda: lambda must be in [%g, %g], got %g",
                              SS_LAMBDA_MIN, SS_LAMBDA_MAX, lambda);
  self->lambda = lambda;
  /* Pegasos's counts and SDCA's box depend on lambda: their state restarts. */
  if ((self->solver == SS_KSOLVER_PEGASOS || self->solver == SS_KSOLVER_SDCA) && self->ops &&
      self->state) {
    self->ops->free_state(self);
    self->iteration = 0;
  }
  ss_run_history_clear(&self->history);
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_weights(SsKernelSvm *self, const double *weights)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_weights");
  if (weights) {
    /* SBP has no weighted formulation here (sbp.c): refused, never ignored. */
    if (!self->has_data)
      return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE, "set_weights: the object has no data");
    if (self->solver == SS_KSOLVER_SBP)
      return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE, "set_weights: solver sbp has no weighted formulation");
    const int64_t n = self->num_data;
    for (int64_t i = 0; i < n; ++i)
      if (!(weights[i] >= 0) || !isfinite(weights[i]))
        return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_weights: weights[%lld] must be finite and >= 0, "
                                  "got %g", (long long)i, weights[i]);
    double *copy = self->weights ? self->weights : malloc((size_t)n * sizeof(double));
    if (!copy) return ss_kernel_svm_fail(self, SS_ERR_ALLOC, "set_weights: out of memory");
    memcpy(copy, weights, (size_t)n * sizeof(double));
    self->weights = copy;
  } else {
    free(self->weights);
    self->weights = NULL;
  }
  /* The solvers' state (boxes, counts) and the finish's belong to the old
   * weights: restart. */
  ss_kernel_finish_forget(self);
  if (self->ops && self->state) {
    self->ops->free_state(self);
    self->iteration = 0;
  }
  ss_run_history_clear(&self->history);
  return ss_kernel_svm_succeed(self);
}

const double *ss_kernel_svm_get_weights(const SsKernelSvm *self)
{
  return self ? self->weights : NULL;
}

/* An SBP setter called on another solver (which would ignore it). */
static SsStatus not_sbp(SsKernelSvm *self, const char *setter)
{
  return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE, "%s applies to solver sbp, this object's solver is %s",
                            setter, ss_kernel_svm_solver_name(self->solver));
}

SsStatus ss_kernel_svm_set_nu(SsKernelSvm *self, double nu)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_nu");
  if (self->solver != SS_KSOLVER_SBP) return not_sbp(self, "set_nu");
  if (!valid_positive(nu))
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_nu: nu must be finite and > 0, got %g", nu);
  self->nu = nu;
  ss_run_history_clear(&self->history);
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_unregularized_bias(SsKernelSvm *self, int enabled)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_unregularized_bias");
  if (enabled && self->solver != SS_KSOLVER_SBP && self->solver != SS_KSOLVER_BSCA &&
      self->solver != SS_KSOLVER_SDCA)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE,
                              "set_unregularized_bias applies to solvers sbp, bsca and sdca, this object's solver is %s",
                              ss_kernel_svm_solver_name(self->solver));
  if ((enabled != 0) != self->bias_enabled) {
    ss_kernel_budget_restart(self);
    ss_kernel_finish_forget(self); /* the other problem's dual */
    if (self->solver == SS_KSOLVER_SDCA) {
      /* SDCA with a bias is the exact pairwise solver (kernel_sdca_pair.c). */
      self->ops->free_state(self);
      self->iteration = 0;
      self->ops = enabled ? &ss_kernel_sdca_pair_ops : &ss_kernel_sdca_ops;
    }
  }
  self->bias_enabled = enabled != 0;
  ss_run_history_clear(&self->history);
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_eta0(SsKernelSvm *self, double eta0)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_eta0");
  if (self->solver != SS_KSOLVER_SBP) return not_sbp(self, "set_eta0");
  if (!valid_positive(eta0))
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_eta0: eta0 must be finite and > 0, got %g", eta0);
  self->eta0 = eta0;
  ss_run_history_clear(&self->history);
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_epsilon(SsKernelSvm *self, double epsilon)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_epsilon");
  if (!isfinite(epsilon) || epsilon < 0)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_epsilon: epsilon must be finite and >= 0, got %g",
                              epsilon);
  self->epsilon = epsilon;
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_max_num_iterations(SsKernelSvm *self, int64_t n)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_max_num_iterations");
  if (n < 1)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_max_num_iterations: the cap must be >= 1, got %lld",
                              (long long)n);
  self->max_num_iterations = n;
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_diagnostic_frequency(SsKernelSvm *self, int64_t f)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_diagnostic_frequency");
  if (f < 0)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG,
                              "set_diagnostic_frequency: the frequency must be >= 1 (or 0: the default schedule), got %lld",
                              (long long)f);
  self->diagnostic_frequency = f; /* 0: back to the default schedule */
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_seed(SsKernelSvm *self, uint64_t seed)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_seed");
  self->seed = seed;
  self->perm_epoch = -1;
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_kernel_precision(SsKernelSvm *self, SsKernelPrecision precision)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_kernel_precision");
  if (precision != SS_KERNEL_ROWS_FLOAT64 && precision != SS_KERNEL_ROWS_FLOAT32)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG,
                              "set_kernel_precision: precision must be SS_KERNEL_ROWS_FLOAT64 or "
                              "SS_KERNEL_ROWS_FLOAT32, got %d", (int)precision);
  if (precision == SS_KERNEL_ROWS_FLOAT32) {
    if (self->kernel.type != SS_KERNEL_RBF)
      return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG,
                                "set_kernel_precision: float32 kernel rows exist for the rbf kernel only");
    if (self->solver == SS_KSOLVER_BSCA || self->solver == SS_KSOLVER_BSGD)
      return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG,
                                "set_kernel_precision: float32 kernel rows are not available for solver %s "
                                "(its budget computes its own kernel values)",
                                ss_kernel_svm_solver_name(self->solver));
    if (self->has_data && self->data.dtype != SS_DTYPE_FLOAT32)
      return ss_kernel_svm_fail(self, SS_ERR_BAD_DATA,
                                "set_kernel_precision: float32 kernel rows need float32 data, this object's "
                                "data is float64");
  }
  if (precision != self->kernel_precision) ss_kernel_finish_forget(self); /* v, gbar: the other rows */
  if (precision != self->kernel_precision && self->ops && self->ops->free_state) {
    /* The state (responses, cached rows) was made from the other rows. */
    self->ops->free_state(self);
    self->iteration = 0;
    ss_run_history_clear(&self->history);
  }
  self->kernel_precision = precision;
  self->row_flags = (self->row_flags & ~(unsigned)SS_ROWS_FLOAT32) |
                    (precision == SS_KERNEL_ROWS_FLOAT32 ? SS_ROWS_FLOAT32 : 0u);
  return ss_kernel_svm_succeed(self);
}

SsKernelPrecision ss_kernel_svm_get_kernel_precision(const SsKernelSvm *self)
{
  if (!self) return SS_KERNEL_ROWS_FLOAT64;
  return self->kernel_precision;
}

SsStatus ss_kernel_svm_set_num_threads(SsKernelSvm *self, int num_threads)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_num_threads");
  if (num_threads < 1)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_num_threads: num_threads must be >= 1, got %d",
                              num_threads);
  if (ss_threads_set_count(&self->threads, num_threads) != SS_OK)
    return ss_kernel_svm_fail(self, SS_ERR_ALLOC, "set_num_threads: cannot allocate a pool of %d threads",
                              num_threads);
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_row_copy(SsKernelSvm *self, int enabled)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_row_copy");
  if (enabled != 0 && enabled != 1)
    return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG, "set_row_copy: enabled must be 0 or 1, got %d",
                              enabled);
  self->no_row_copy = enabled == 0;
  return ss_kernel_svm_succeed(self);
}

int ss_kernel_svm_get_row_copy(const SsKernelSvm *self) { return self ? !self->no_row_copy : 0; }

SsStatus ss_kernel_svm_set_diagnostic_function(SsKernelSvm *self, SsKernelSvmDiagnosticFunction f,
                                               void *user)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_diagnostic_function");
  self->diagnostic_fn = f;
  self->diagnostic_user = f ? user : NULL;
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_interrupt_function(SsKernelSvm *self, SsSvmInterruptFunction f,
                                              void *user)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_interrupt_function");
  self->interrupt_fn = f;
  self->interrupt_user = f ? user : NULL;
  return ss_kernel_svm_succeed(self);
}

SsStatus ss_kernel_svm_set_model(SsKernelSvm *self, const SsData *support_vectors,
                                 const int64_t *indices, const double *coefficients, int64_t m,
                                 double bias)
{
  const SsStatus bad = SS_ERR_BAD_ARG;
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_model");
  if (m < 0) return ss_kernel_svm_fail(self, bad, "set_model: m must be >= 0, got %lld", (long long)m);
  if (!isfinite(bias)) return ss_kernel_svm_fail(self, bad, "set_model: the bias must be finite, got %g", bias);
  if (m > 0 && !coefficients) return ss_kernel_svm_fail(self, bad, "set_model: coefficients is NULL");
  for (int64_t k = 0; k < m; ++k) {
    if (!isfinite(coefficients[k]))
      return ss_kernel_svm_fail(self, bad, "set_model: coefficients[%lld] must be finite, got %g", (long long)k,
                                coefficients[k]);
  }
  const bool precomputed = self->kernel.type == SS_KERNEL_PRECOMPUTED;
  if (precomputed) {
    if (m > 0 && !indices)
      return ss_kernel_svm_fail(self, bad, "set_model: a precomputed kernel needs the support indices");
    for (int64_t k = 0; k < m; ++k) {
      if (indices[k] < 0 || indices[k] >= self->dimension)
        return ss_kernel_svm_fail(self, bad, "set_model: indices[%lld] must be in [0, %lld), got %lld",
                                  (long long)k, (long long)self->dimension, (long long)indices[k]);
    }
  } else if (m > 0) {
    if (!valid_descriptor(support_vectors) || support_vectors->num_data != m ||
        support_vectors->dimension != self->dimension)
      return ss_kernel_svm_fail(self, bad, "set_model: the support vectors must be %lld rows of dimension %lld",
                                (long long)m, (long long)self->dimension);
    /* Optional provenance: -1 (not a training row) or a row of the data. */
    const int64_t n = self->has_data ? self->num_data : INT64_MAX;
    for (int64_t k = 0; indices && k < m; ++k) {
      if (indices[k] < -1 || indices[k] >= n)
        return ss_kernel_svm_fail(self, bad, "set_model: indices[%lld] must be -1 (not a training row) "
                                  "or a row of the data, got %lld", (long long)k, (long long)indices[k]);
    }
  }
  int64_t *rows = malloc((size_t)(m > 0 ? m : 1) * sizeof(int64_t));
  if (!rows) return ss_kernel_svm_fail(self, SS_ERR_ALLOC, "set_model: out of memory");
  for (int64_t k = 0; k < m; ++k) rows[k] = precomputed ? indices[k] : k;
  SsData empty = {.layout = SS_LAYOUT_DENSE};
  const SsData *source = precomputed || m == 0 ? &empty : support_vectors;
  SsKernelModel fresh = {.dimension = self->dimension};
  SsStatus status = ss_kernel_model_set_from_rows(&fresh, &self->kernel, source, rows,
                                                  coefficients, m, bias);
  free(rows);
  if (status != SS_OK) {
    ss_kernel_model_free(&fresh);
    return ss_kernel_svm_fail(self, status, "set_model: %s", ss_status_string(status));
  }
  if (!precomputed) {
    for (int64_t k = 0; k < m; ++k) fresh.source[k] = indices ? indices[k] : -1;
  }
  ss_kernel_model_free(&self->model);
  self->model = fresh;
  ss_run_history_clear(&self->history);
  return ss_kernel_svm_succeed(self);
}

/* ------------------------------------------------------------------------ */
/*                                  Getters                                 */
/* ------------------------------------------------------------------------ */

SsKernelSolver ss_kernel_svm_get_solver(const SsKernelSvm *self) { return self ? self->solver : SS_KSOLVER_NONE; }
const SsKernel *ss_kernel_svm_get_kernel(const SsKernelSvm *self) { return self ? &self->kernel : NULL; }
double ss_kernel_svm_get_lambda(const SsKernelSvm *self) { return self ? self->lambda : NAN; }
double ss_kernel_svm_get_nu(const SsKernelSvm *self) { return self ? ss_sbp_nu_in_force(self) : NAN; }
int ss_kernel_svm_get_unregularized_bias(const SsKernelSvm *self) { return self ? self->bias_enabled : 0; }
double ss_kernel_svm_get_eta0(const SsKernelSvm *self) { return self ? ss_kernel_svm_effective_eta0(self) : NAN; }
double ss_kernel_svm_get_epsilon(const SsKernelSvm *self) { return self ? self->epsilon : NAN; }

int64_t ss_kernel_svm_get_max_num_iterations(const SsKernelSvm *self)
{
  if (!self) return 0;
  if (self->max_num_iterations > 0) return self->max_num_iterations;
  const int64_t epochs = SS_KERNEL_SVM_DEFAULT_EPOCHS;
  return self->num_data > INT64_MAX / epochs ? INT64_MAX : epochs * self->num_data;
}

int64_t ss_kernel_svm_get_diagnostic_frequency(const SsKernelSvm *self)
{
  if (!self) return 0;
  return self->diagnostic_frequency > 0 ? self->diagnostic_frequency : self->num_data;
}

uint64_t ss_kernel_svm_get_seed(const SsKernelSvm *self) { return self ? self->seed : 0; }
int ss_kernel_svm_get_num_threads(const SsKernelSvm *self)
{
  if (!self) return 0;
  return self->threads.count > 1 ? self->threads.count : 1;
}
int64_t ss_kernel_svm_get_iteration_number(const SsKernelSvm *self) { return self ? self->iteration : 0; }
int64_t ss_kernel_svm_get_last_train_iterations(const SsKernelSvm *self)
{
  return self ? self->last_train_iterations : 0;
}
int64_t ss_kernel_svm_poll_iteration_number(const SsKernelSvm *self)
{
  if (!self) return 0;
  return ss_run_read_progress(&self->progress);
}
int64_t ss_kernel_svm_get_dimension(const SsKernelSvm *self) { return self ? self->dimension : 0; }
int64_t ss_kernel_svm_get_num_data(const SsKernelSvm *self) { return self ? self->num_data : 0; }

int64_t ss_kernel_svm_get_num_kernel_evaluations(const SsKernelSvm *self)
{
  if (!self) return 0;
  return self->num_kernel_evaluations;
}

int64_t ss_kernel_svm_get_num_support_vectors(const SsKernelSvm *self)
{
  if (!self) return 0;
  return self->model.num_support_vectors;
}

const SsData *ss_kernel_svm_get_support_vectors(const SsKernelSvm *self)
{
  if (!self) return NULL;
  if (self->model.num_support_vectors == 0 || self->kernel.type == SS_KERNEL_PRECOMPUTED)
    return NULL;
  return &self->model.view;
}

const int64_t *ss_kernel_svm_get_support_indices(const SsKernelSvm *self)
{
  if (!self) return NULL;
  return self->model.num_support_vectors > 0 ? self->model.source : NULL;
}

const double *ss_kernel_svm_get_coefficients(const SsKernelSvm *self)
{
  if (!self) return NULL;
  return self->model.num_support_vectors > 0 ? self->model.coefficients : NULL;
}

double ss_kernel_svm_get_bias(const SsKernelSvm *self) { return self ? self->model.bias : NAN; }

const double *ss_kernel_svm_get_dual_variables(const SsKernelSvm *self)
{
  if (!self) return NULL;
  return self->has_data ? self->dual : NULL;
}

const SsKernelSvmStatistics *ss_kernel_svm_get_statistics(const SsKernelSvm *self)
{
  if (!self) return NULL;
  return &self->statistics;
}

/* ------------------------------------------------------------------------ */
/*            The SBP's nu warm-up (the math and the figures: sbp_nu.c)      */
/* ------------------------------------------------------------------------ */

/** The warm-up's epoch cap when the caller passes 0 (the SBP's default). */
#define SS_SBP_NU_WARMUP_EPOCHS 100
/** The warm-up's stop: relative duality gap. */
#define SS_SBP_NU_WARMUP_GAP 1e-3
/** The extrapolation's factor per doubling of the rows, at least this. */
#define SS_SBP_NU_MIN_FACTOR 0.5

/** Above this many rows the warm-up trains on a sample of this many. */
#define SS_SBP_NU_WARMUP_ROWS 4096

/* Reorder the first @p m rows of @p perm, a seeded permutation of the n
 * rows, so that each half of them holds the two classes in their proportion
 * in the data (rounded), with at least one row of a class wherever enough
 * of its rows remain, each class's rows taken in perm's order. A plain
 * prefix of perm missed a class of a few rows in n, and the warm-up then
 * solved the whole data. @p scratch holds n entries. */
static void stratify(const SsKernelSvm *self, int64_t *perm, int64_t m, int64_t *scratch)
{
  const int64_t n = self->num_data;
  int64_t positives = 0;
  for (int64_t k = 0; k < n; ++k) positives += self->labels[perm[k]] > 0;
  /* scratch: the positive rows, then the negative ones, both in perm's order */
  int64_t p = 0, q = positives;
  for (int64_t k = 0; k < n; ++k) scratch[self->labels[perm[k]] > 0 ? p++ : q++] = perm[k];
  int64_t used_pos = 0, used_neg = 0, at = 0;
  for (int half = 0; half < 2; ++half) {
    const int64_t length = half == 0 ? m / 2 : m - m / 2;
    const int64_t left_pos = positives - used_pos, left_neg = (n - positives) - used_neg;
    int64_t want = (int64_t)llround((double)length * (double)positives / (double)n);
    if (want < 1 && left_pos > 0) want = 1;
    if (want > length - 1 && left_neg > 0) want = length - 1;
    if (want > left_pos) want = left_pos;
    if (length - want > left_neg) want = length - left_neg;
    for (int64_t k = 0; k < want; ++k) perm[at++] = scratch[used_pos++];
    for (int64_t k = 0; k < length - want; ++k) perm[at++] = scratch[positives + used_neg++];
  }
}

/* Rows first .. first + m - 1 of a seeded permutation of the object's rows,
 * its first @p rows stratified by class (stratify; copies of their values,
 * labels and weights), for the warm-up on large n. The sample is rows
 * 0 .. rows - 1 and its halves rows 0 .. rows/2 - 1 and rows/2 .. rows - 1.
 * A precomputed kernel's sample is the m x m block of its (dense) Gram
 * matrix at those rows and columns. */
typedef struct RowSample {
  SsData data;
  double *labels, *weights;
  unsigned char *values;
  int64_t *indptr;
  int32_t *indices;
} RowSample;

static void row_sample_free(RowSample *r)
{
  free(r->labels);
  free(r->weights);
  free(r->values);
  free(r->indptr);
  free(r->indices);
  *r = (RowSample){0};
}

static SsStatus row_sample(const SsKernelSvm *self, int64_t first, int64_t m, int64_t rows, RowSample *r)
{
  const SsData *x = &self->data;
  const size_t size = x->dtype == SS_DTYPE_FLOAT32 ? sizeof(float) : sizeof(double);
  const bool csr = x->layout == SS_LAYOUT_CSR;
  const bool gram = self->kernel.type == SS_KERNEL_PRECOMPUTED; /* dense (the caller's test) */
  const int64_t n = self->num_data, d = gram ? m : x->dimension;
  *r = (RowSample){0};
  int64_t *perm = malloc((size_t)n * sizeof(int64_t));
  int64_t *scratch = malloc((size_t)n * sizeof(int64_t));
  r->labels = malloc((size_t)m * sizeof(double));
  r->weights = self->weights ? malloc((size_t)m * sizeof(double)) : NULL;
  r->indptr = csr ? malloc((size_t)(m + 1) * sizeof(int64_t)) : NULL;
  if (!perm || !scratch || !r->labels || (self->weights && !r->weights) || (csr && !r->indptr)) {
    free(perm);
    free(scratch);
    row_sample_free(r);
    return SS_ERR_ALLOC;
  }
  ss_rng_permutation(perm, n, self->seed, UINT64_C(0x5b9));
  stratify(self, perm, rows, scratch); /* (n > the sample: the caller's test) */
  free(scratch);
  if (csr) r->indptr[0] = 0;
  int64_t nnz = 0;
  for (int64_t k = 0; k < m; ++k) {
    const int64_t i = perm[first + k];
    r->labels[k] = self->labels[i];
    if (r->weights) r->weights[k] = self->weights[i];
    nnz += csr ? x->indptr[i + 1] - x->indptr[i] : d;
    if (csr) r->indptr[k + 1] = nnz;
  }
  r->values = malloc((size_t)(nnz > 0 ? nnz : 1) * size);
  r->indices = csr ? malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t)) : NULL;
  SsStatus status = r->values && (!csr || r->indices) ? SS_OK : SS_ERR_ALLOC;
  for (int64_t k = 0; k < m && status == SS_OK; ++k) {
    const int64_t i = perm[first + k];
    if (csr) {
      const int64_t a = x->indptr[i], len = x->indptr[i + 1] - a;
      const int64_t at = r->indptr[k];
      memcpy(r->values + (size_t)at * size, (const unsigned char *)x->values + (size_t)a * size,
             (size_t)len * size);
      memcpy(r->indices + at, x->indices + a, (size_t)len * sizeof(int32_t));
    } else if (gram) {
      const unsigned char *row = (const unsigned char *)x->values + (size_t)(i * x->row_stride) * size;
      for (int64_t l = 0; l < m; ++l)
        memcpy(r->values + (size_t)(k * m + l) * size, row + (size_t)perm[first + l] * size, size);
    } else {
      memcpy(r->values + (size_t)(k * d) * size,
             (const unsigned char *)x->values + (size_t)(i * x->row_stride) * size, (size_t)d * size);
    }
  }
  free(perm);
  if (status == SS_OK && csr) {
    status = ss_data_init_csr(&r->data, x->dtype, r->values, r->indptr, r->indices, m, d);
  } else if (status == SS_OK) {
    status = ss_data_init_dense(&r->data, x->dtype, r->values, m, d, d);
  }
  if (status != SS_OK) row_sample_free(r);
  return status;
}

/* nu of a warm-up's model (0 for one that is the zero function: no support
 * vectors, or coefficients whose expansion has norm 0, e.g. a kernel that
 * vanishes on the data). */
static SsStatus model_nu(const SsKernelSvm *warm, double *nu)
{
  if (ss_kernel_svm_get_num_support_vectors(warm) == 0) {
    *nu = 0;
    return SS_OK;
  }
  SsStatus status = ss_kernel_svm_nu_from_model(warm, nu);
  if (status == SS_ERR_BAD_STATE) { /* the norm of the expansion is not positive */
    *nu = 0;
    status = SS_OK;
  }
  return status;
}

/* Both classes among the first m labels. */
static bool has_both_classes(const double *labels, int64_t m)
{
  bool positive = false, negative = false;
  for (int64_t i = 0; i < m && !(positive && negative); ++i) {
    positive |= labels[i] > 0;
    negative |= labels[i] < 0;
  }
  return positive && negative;
}

/* One solve of a sample's rows (the object's C): @p which is 0 or 1 for
 * the halves, -1 for the whole sample; adds its kernel evaluations to
 * *evaluations and may set *go_on false to end the protocol there. */
typedef SsStatus (*SampleSolve)(void *context, const RowSample *r, int64_t rows, int which,
                                int64_t *evaluations, bool *go_on);

/* The protocol of the SBP's nu warm-up and of the finish's predicted cost
 * on a stratified sample of m rows: its two halves first (each copied,
 * solved and freed in turn; a half without both classes ends them, and
 * *halved says so), then the sample, while the solves go on. *exact_cost
 * is the solve of all n rows predicted from their kernel evaluations
 * (ss_sbp_race_exact_cost: the sample's, and the halves' mean when both
 * ran), 0 where the protocol ended short. */
static SsStatus solve_halves_and_sample(const SsKernelSvm *self, const RowSample *sample, int64_t m,
                                        SampleSolve solve, void *context, int64_t *evaluations,
                                        bool *halved, double *exact_cost)
{
  SsStatus status = SS_OK;
  bool go_on = true;
  *halved = true;
  *exact_cost = 0;
  for (int k = 0; *halved && go_on && k < 2 && status == SS_OK; ++k) {
    RowSample half = {0};
    status = row_sample(self, k * (m / 2), m / 2, m, &half);
    *halved = status == SS_OK && has_both_classes(half.labels, m / 2);
    if (*halved) status = solve(context, &half, m / 2, k, evaluations, &go_on);
    row_sample_free(&half);
  }
  const int64_t evaluations_h = *evaluations;
  if (status == SS_OK && go_on) status = solve(context, sample, m, -1, evaluations, &go_on);
  if (status == SS_OK && go_on)
    *exact_cost = ss_sbp_race_exact_cost(self->num_data, m, (double)(*evaluations - evaluations_h),
                                         *halved ? 0.5 * (double)evaluations_h : 0);
  return status;
}

/* An exact kernel SDCA object for the warm-up on @p rows: with or without
 * the bias, the object's kernel, seed, threads, weights and interruption, at
 * @p lambda, to a relative gap of SS_SBP_NU_WARMUP_GAP or @p epochs epochs.
 * NULL on failure (*status says why). */
static SsKernelSvm *warmup_solver(const SsKernelSvm *self, const SsData *rows, const double *labels,
                                  const double *weights, double lambda, int64_t epochs, bool bias,
                                  SsStatus *status)
{
  SsKernelSvm *warm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &self->kernel, rows, labels, lambda);
  *status = warm ? SS_OK : SS_ERR_ALLOC; /* the arguments are those of a valid object */
  if (*status == SS_OK) *status = ss_kernel_svm_set_seed(warm, self->seed);
  if (*status == SS_OK) *status = ss_kernel_svm_set_epsilon(warm, SS_SBP_NU_WARMUP_GAP);
  if (*status == SS_OK) *status = ss_kernel_svm_set_max_num_iterations(warm, epochs * rows->num_data);
  if (*status == SS_OK) *status = ss_kernel_svm_set_num_threads(warm, ss_kernel_svm_get_num_threads(self));
  if (*status == SS_OK && weights) *status = ss_kernel_svm_set_weights(warm, weights);
  if (*status == SS_OK) *status = ss_kernel_svm_set_unregularized_bias(warm, bias);
  if (*status == SS_OK) *status = ss_kernel_svm_set_row_copy(warm, !self->no_row_copy);
  if (*status == SS_OK && self->interrupt_fn)
    *status = ss_kernel_svm_set_interrupt_function(warm, self->interrupt_fn, self->interrupt_user);
  if (*status != SS_OK) {
    ss_kernel_svm_delete(warm);
    return NULL;
  }
  return warm;
}

/* The lambda of the SVM with the object's C = 1/(lambda n) on m rows. */
static double sample_lambda(const SsKernelSvm *self, int64_t m)
{
  return fmin(self->lambda * ((double)self->num_data / (double)m), SS_LAMBDA_MAX);
}

/* The nu of the SVM with C = 1/(lambda n) on the m rows of @p rows:
 * exact kernel SDCA (the object's bias setting) at lambda n / m, by the
 * pair solver (kernel_sdca_pair.c), without the bias in its bias-free mode
 * (two examples a step, the solver of the bias-free finish, so that the
 * race's prediction is that solver's cost). Until stop 50 the bias-free
 * dual was solved by random coordinate steps (no row cache, no shrinking)
 * from the solution with the bias: 2.31 s on ijcnn1's sample (C = 32),
 * against 0.08 s with the bias (bench/results/kernel_speed.md, "Stop 50"). */
static SsStatus sample_nu(const SsKernelSvm *self, const SsData *rows, const double *labels,
                          const double *weights, int64_t epochs, double *nu,
                          int64_t *kernel_evaluations)
{
  const double lambda = sample_lambda(self, rows->num_data);
  SsStatus status = SS_OK;
  SsKernelSvm *warm = warmup_solver(self, rows, labels, weights, lambda, epochs, self->bias_enabled, &status);
  if (warm && !self->bias_enabled) status = ss_kernel_sdca_bias_free_pairs(warm);
  if (status == SS_OK) status = ss_kernel_svm_train(warm);
  if (status == SS_OK) status = model_nu(warm, nu);
  if (warm) *kernel_evaluations += ss_kernel_svm_get_num_kernel_evaluations(warm);
  ss_kernel_svm_delete(warm);
  return status;
}

/* The warm-up's solves of the sample and its halves: their nu. */
typedef struct NuSolves {
  const SsKernelSvm *self;
  int64_t epochs;
  double half[2], estimate;
} NuSolves;

static SsStatus nu_solve(void *context, const RowSample *r, int64_t rows, int which,
                         int64_t *evaluations, bool *go_on)
{
  (void)rows;
  (void)go_on;
  NuSolves *c = context;
  return sample_nu(c->self, &r->data, r->labels, r->weights, c->epochs,
                   which < 0 ? &c->estimate : &c->half[which], evaluations);
}

SsStatus ss_kernel_svm_nu_warmup(const SsKernelSvm *self, int64_t epochs, double *nu,
                                 int64_t *kernel_evaluations, double *exact_cost)
{
  if (!self || !nu || epochs < 0) return SS_ERR_BAD_ARG;
  if (!self->has_data) return SS_ERR_BAD_STATE;
  const int64_t n = self->num_data;
  if (epochs == 0) epochs = SS_SBP_NU_WARMUP_EPOCHS;
  if (epochs > INT64_MAX / n) return SS_ERR_BAD_ARG;
  int64_t evaluations = 0;
  /* On large n, a sample of m rows and its two halves, solved at the same
   * C (solve_halves_and_sample); nu extrapolated from them to n (sbp_nu.c,
   * "Large n"). The sample is stratified by class (stratify), so it misses
   * a class only when the data has a single one (then the whole data is
   * solved), and a half only when its class has a single row (then the
   * sample's nu stays as it is). A precomputed kernel is sampled as blocks
   * of its Gram matrix (m x m doubles: 128 MB, then m/2 x m/2) where it is
   * dense; a sparse one is solved whole. */
  const int64_t m = SS_SBP_NU_WARMUP_ROWS;
  RowSample sample = {0};
  bool sampled = n > m && !(self->kernel.type == SS_KERNEL_PRECOMPUTED && self->data.layout == SS_LAYOUT_CSR);
  SsStatus status = sampled ? row_sample(self, 0, m, m, &sample) : SS_OK;
  sampled = sampled && status == SS_OK && has_both_classes(sample.labels, m);
  NuSolves solves = {.self = self, .epochs = epochs};
  double cost = 0;
  if (status == SS_OK && sampled) {
    bool halved;
    status = solve_halves_and_sample(self, &sample, m, nu_solve, &solves, &evaluations, &halved, &cost);
    const double halfway = 0.5 * (solves.half[0] + solves.half[1]);
    if (status == SS_OK && halved && halfway > 0 && solves.estimate > 0) {
      const double factor = fmin(1, fmax(solves.estimate / halfway, SS_SBP_NU_MIN_FACTOR));
      solves.estimate *= pow(factor, log2((double)n / (double)m));
    }
  } else if (status == SS_OK) {
    status = sample_nu(self, &self->data, self->labels, self->weights, epochs, &solves.estimate,
                       &evaluations);
  }
  if (status == SS_OK) *nu = solves.estimate > SS_SBP_NU_FLOOR ? solves.estimate : SS_SBP_NU_FLOOR;
  if (kernel_evaluations) *kernel_evaluations = evaluations;
  if (exact_cost) *exact_cost = status == SS_OK ? cost : 0;
  row_sample_free(&sample);
  return status;
}

/* ------------------------------------------------------------------------ */
/*     The finish's predicted cost for Pegasos, BSGD and BSCA (B >= n)       */
/* ------------------------------------------------------------------------ */

/** The prediction's sample is at most 1/this of the rows... */
#define SS_FINISH_PREDICTION_SAMPLES 4
/** ...and at least this many rows (else no prediction: the n^2 rule). */
#define SS_FINISH_PREDICTION_MIN_ROWS 512

/* The kernel evaluations of the finish's solver (finish_solver) on a
 * sample's rows, added to *evaluations; the protocol goes on while it
 * reaches the gap (a SampleSolve; the context is the object). */
static SsStatus finish_solve(void *context, const RowSample *r, int64_t rows, int which,
                             int64_t *evaluations, bool *converged)
{
  (void)which;
  SsKernelSvm *self = context;
  SsStatus status;
  SsKernelSvm *sdca = finish_solver(self, &r->data, r->labels, r->weights, sample_lambda(self, rows), &status);
  if (sdca) status = ss_kernel_svm_train(sdca);
  if (sdca) *evaluations += ss_kernel_svm_get_num_kernel_evaluations(sdca);
  *converged = status == SS_OK && ss_kernel_svm_get_statistics(sdca)->status == SS_SVM_STATUS_CONVERGED;
  ss_kernel_svm_delete(sdca);
  return status;
}

/* The finish's cost on all n rows predicted as the SBP's race predicts it
 * (sbp_race.c): the finish's own solver, at the same C, on a stratified
 * sample of m = min(SS_SBP_NU_WARMUP_ROWS, n / SS_FINISH_PREDICTION_SAMPLES)
 * rows and on its two halves, their kernel evaluations extrapolated by
 * ss_sbp_race_exact_cost. For Pegasos, BSGD and BSCA (B >= n) whose run
 * may hand over (ss_kernel_finish_allowed), on rows enough for a sample of
 * SS_FINISH_PREDICTION_MIN_ROWS (2,048): the three solves cost about
 * 1.5 (m / n)^2 of the prediction, at most a tenth of it. The evaluations
 * count in the run's (before its race starts). Into self->finish_cost, 0
 * where no prediction is made or a sample's solve ends short of its gap
 * (the run then hands over at n^2, as without). */
static SsStatus predict_finish_cost(SsKernelSvm *self)
{
  self->finish_cost = 0;
  const int64_t n = self->num_data, share = n / SS_FINISH_PREDICTION_SAMPLES;
  const int64_t m = self->finish_sample_rows ? self->finish_sample_rows
                                             : (share < SS_SBP_NU_WARMUP_ROWS ? share : SS_SBP_NU_WARMUP_ROWS);
  if (self->solver == SS_KSOLVER_SBP || self->solver == SS_KSOLVER_SDCA || m < 2 ||
      (!self->finish_sample_rows && m < SS_FINISH_PREDICTION_MIN_ROWS) ||
      n < SS_FINISH_PREDICTION_SAMPLES * m || !ss_kernel_finish_allowed(self) ||
      (self->kernel.type == SS_KERNEL_PRECOMPUTED && self->data.layout == SS_LAYOUT_CSR))
    return SS_OK;
  RowSample sample = {0};
  SsStatus status = row_sample(self, 0, m, m, &sample);
  if (status != SS_OK || !has_both_classes(sample.labels, m)) {
    row_sample_free(&sample);
    return status;
  }
  int64_t evaluations = 0;
  bool halved;
  status = solve_halves_and_sample(self, &sample, m, finish_solve, self, &evaluations, &halved,
                                   &self->finish_cost);
  row_sample_free(&sample);
  self->num_kernel_evaluations += evaluations;
  return status;
}

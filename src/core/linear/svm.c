/* svm.c -- the SsSvm object: life cycle, validating setters and getters,
 * diagnostics, and dispatch to the solvers (one file each: sgd.c, ...).
 *
 * Defects of VLFeat's vl_svm fixed here: every setter validates in every
 * build and returns a status instead of asserting; every buffer is freed and
 * every allocation checked; the iteration number is used and written back;
 * randomness and time belong to the object (seed, monotonic clock); the bias
 * does not depend on the order of set_bias and set_bias_multiplier.
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/*                                Validation                                */
/* ------------------------------------------------------------------------ */

static bool valid_solver(int solver)
{
  return solver == SS_SOLVER_NONE || solver == SS_SOLVER_SGD || solver == SS_SOLVER_SDCA ||
         solver == SS_SOLVER_SVMSGD2 || solver == SS_SOLVER_SGDQN ||
         solver == SS_SOLVER_RES || solver == SS_SOLVER_LRES;
}

static bool valid_lambda(double lambda)
{
  return lambda >= SS_LAMBDA_MIN && lambda <= SS_LAMBDA_MAX; /* NaN fails both */
}

/* The structure of a descriptor (its values were checked by ss_data_init_*). */
static bool valid_descriptor(const SsData *data)
{
  if (!data || data->num_data < 1 || data->dimension < 1) return false;
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
    if (!isfinite(labels[i])) return SS_ERR_BAD_DATA;
  }
  return SS_OK;
}

SsStatus ss_svm_check_new(SsSolver solver, const SsData *data, const double *labels, double lambda)
{
  if (!valid_solver(solver) || !valid_lambda(lambda) || !valid_descriptor(data)) return SS_ERR_BAD_ARG;
  return check_labels(labels, data->num_data);
}

/* ------------------------------------------------------------------------ */
/*                             Create and destroy                           */
/* ------------------------------------------------------------------------ */

/* Nothing measured yet: every figure NaN, so that none can be mistaken for
 * the objective of a model. */
static SsSvmStatistics untrained_statistics(void)
{
  return (SsSvmStatistics){.status = SS_SVM_STATUS_UNTRAINED, .objective = NAN, .regularizer = NAN,
                           .loss = NAN, .dual_objective = NAN, .duality_gap = NAN,
                           .scores_variation = NAN};
}

SsSvm *ss_svm_new_without_data(SsSolver solver, int64_t dimension, double lambda)
{
  if (!valid_solver(solver) || !valid_lambda(lambda) || dimension < 1) return NULL;
  if ((uint64_t)dimension > SIZE_MAX / sizeof(double)) return NULL;
  SsSvm *self = calloc(1, sizeof(SsSvm));
  if (!self) return NULL;
  self->solver = solver;
  self->dimension = dimension;
  self->lambda = lambda;
  self->epsilon = 1e-2;
  self->max_num_iterations = 0;   /* default, resolved at train time */
  self->diagnostic_frequency = 0; /* default: n */
  self->bias_multiplier = 1.0;
  self->bias_learning_rate = 1.0;
  self->t0 = 0;                   /* default, resolved at train time */
  self->loss = SS_LOSS_HINGE;
  if (solver == SS_SOLVER_RES || solver == SS_SOLVER_LRES) self->loss = SS_LOSS_HINGE2; /* differentiable */
  ss_res_init(&self->res);
  self->seed = 0;
  self->visit_order = SS_VISIT_PERMUTATION;
  self->shrinking.enabled = true;
  self->factor = 1.0;
  self->bias = 0.0;
  self->iteration = 0;
  self->statistics = untrained_statistics();
  self->density = 1.0;
  self->model = calloc((size_t)dimension, sizeof(double));
  self->u = calloc((size_t)dimension, sizeof(double));
  if (solver == SS_SOLVER_SGDQN) {
    self->scaling = malloc(((size_t)dimension + 1) * sizeof(double));
    self->scratch = calloc((size_t)dimension, sizeof(double));
    if (self->scaling && self->scratch) ss_sgdqn_reset_scaling(self);
  }
  if (!self->model || !self->u || (solver == SS_SOLVER_SGDQN && (!self->scaling || !self->scratch))) {
    ss_svm_delete(self);
    return NULL;
  }
  return self;
}

/* norms2[i] = ||x_i||^2. Abstract data is seen only through its two
 * callbacks: accumulate x_i into a zero vector, take <x_i, x_i>, subtract. */
static SsStatus squared_norms(const SsDataSource *source, int64_t dimension, double *norms2)
{
  double *scratch = calloc((size_t)dimension, sizeof(double));
  if (!scratch) return SS_ERR_ALLOC;
  for (int64_t i = 0; i < source->num_data; ++i) {
    ss_source_accumulate(source, i, scratch, 1.0);
    norms2[i] = ss_source_inner_product(source, i, scratch);
    ss_source_accumulate(source, i, scratch, -1.0);
  }
  free(scratch);
  return SS_OK;
}

/* The problem changed: the recorded objectives are forgotten, and SDCA's
 * dual variables restart at 0, and with them w~ (a fixed offset b, B = 0,
 * stays). */
static void reset_dual(SsSvm *self)
{
  ss_svm_forget_history(self);
  if (!self->alpha) return;
  memset(self->alpha, 0, (size_t)self->source.num_data * sizeof(double));
  memset(self->u, 0, (size_t)self->dimension * sizeof(double));
  memset(self->model, 0, (size_t)self->dimension * sizeof(double));
  self->factor = 1.0;
  if (self->bias_multiplier > 0) self->bias = 0;
  self->model_stale = false;
  ss_sdca_reset_shrinking(self);
}

/* Install a data source and its labels; on failure nothing changes. */
static SsStatus install_source(SsSvm *self, const SsDataSource *source, const double *labels)
{
  int64_t n = source->num_data;
  if ((uint64_t)n > SIZE_MAX / sizeof(double)) return SS_ERR_ALLOC;
  SsStatus status = check_labels(labels, n);
  if (status != SS_OK) return status;
  double *new_labels = malloc((size_t)n * sizeof(double));
  double *scores = calloc((size_t)n, sizeof(double));
  double *previous = calloc((size_t)n, sizeof(double));
  double *norms2 = malloc((size_t)n * sizeof(double));
  const bool sdca = self->solver == SS_SOLVER_SDCA;
  double *alpha = sdca ? calloc((size_t)n, sizeof(double)) : NULL;
  uint8_t *shrunk = sdca ? calloc((size_t)n, 1) : NULL;
  int64_t *candidates = sdca ? malloc((size_t)n * sizeof(int64_t)) : NULL;
  if (!new_labels || !scores || !previous || !norms2 || (sdca && (!alpha || !shrunk || !candidates)) ||
      squared_norms(source, self->dimension, norms2) != SS_OK) {
    free(new_labels);
    free(scores);
    free(previous);
    free(norms2);
    free(alpha);
    free(shrunk);
    free(candidates);
    return SS_ERR_ALLOC;
  }
  double r2 = 0;
  for (int64_t i = 0; i < n; ++i) r2 = norms2[i] > r2 ? norms2[i] : r2;
  memcpy(new_labels, labels, (size_t)n * sizeof(double));
  free(self->labels);
  free(self->weights);
  free(self->scores);
  free(self->previous_scores);
  free(self->row_norms2);
  free(self->alpha);
  free(self->shrinking.shrunk);
  free(self->shrinking.candidates);
  self->row_norms2 = norms2;
  self->alpha = alpha;
  self->shrinking.shrunk = shrunk;
  self->shrinking.candidates = candidates;
  self->source = *source;
  self->labels = new_labels;
  self->weights = NULL;
  self->scores = scores;
  self->previous_scores = previous;
  self->has_scores = false;
  self->has_previous_scores = false;
  self->max_squared_norm = r2;
  self->density = ss_solver_uses_skip(self->solver) ? ss_source_density(source) : 1.0;
  reset_dual(self);
  self->statistics = untrained_statistics();
  return SS_OK;
}

SsStatus ss_svm_set_data(SsSvm *self, const SsData *data, const double *labels)
{
  if (!self || !valid_descriptor(data) || ss_data_get_dimension(data) != self->dimension)
    return SS_ERR_BAD_ARG;
  SsDataSource source = {.kind = SS_DATA_DESCRIPTOR, .descriptor = *data, .num_data = data->num_data};
  return install_source(self, &source, labels);
}

SsSvm *ss_svm_new(SsSolver solver, const SsData *data, const double *labels, double lambda)
{
  if (ss_svm_check_new(solver, data, labels, lambda) != SS_OK) return NULL;
  SsSvm *self = ss_svm_new_without_data(solver, ss_data_get_dimension(data), lambda);
  if (self && ss_svm_set_data(self, data, labels) != SS_OK) {
    ss_svm_delete(self);
    return NULL;
  }
  return self;
}

SsSvm *ss_svm_new_with_abstract_data(SsSolver solver, const void *data, int64_t dimension,
                                     int64_t num_data, const double *labels, double lambda,
                                     SsInnerProductFunction inner_product,
                                     SsAccumulateFunction accumulate)
{
  if (!inner_product || !accumulate || num_data < 1 || !labels) return NULL;
  SsSvm *self = ss_svm_new_without_data(solver, dimension, lambda);
  if (!self) return NULL;
  SsDataSource source = {.kind = SS_DATA_ABSTRACT, .user = data, .inner_product = inner_product,
                         .accumulate = accumulate, .num_data = num_data};
  if (install_source(self, &source, labels) != SS_OK) {
    ss_svm_delete(self);
    return NULL;
  }
  return self;
}

void ss_svm_delete(SsSvm *self)
{
  if (!self) return;
  free(self->labels);
  free(self->weights);
  free(self->model);
  free(self->u);
  free(self->scores);
  free(self->previous_scores);
  free(self->row_norms2);
  free(self->alpha);
  free(self->shrinking.shrunk);
  free(self->shrinking.candidates);
  ss_res_free(&self->res);
  ss_run_history_free(&self->history);
  free(self->scaling);
  free(self->scratch);
  free(self);
}

/* ------------------------------------------------------------------------ */
/*                                  Setters                                 */
/* ------------------------------------------------------------------------ */

SsStatus ss_svm_set_lambda(SsSvm *self, double lambda)
{
  if (!self || !valid_lambda(lambda)) return SS_ERR_BAD_ARG;
  self->lambda = lambda;
  self->model_stale = self->alpha != NULL;
  ss_sgdqn_reset_scaling(self);
  ss_svm_forget_history(self);
  return SS_OK;
}

SsStatus ss_svm_set_epsilon(SsSvm *self, double epsilon)
{
  if (!self || !(epsilon >= 0) || !isfinite(epsilon)) return SS_ERR_BAD_ARG;
  self->epsilon = epsilon;
  return SS_OK;
}

SsStatus ss_svm_set_stopping_rule(SsSvm *self, SsSvmStoppingRule rule)
{
  if (!self || (rule != SS_SVM_STOP_DEFAULT && rule != SS_SVM_STOP_SCORES_VARIATION))
    return SS_ERR_BAD_ARG;
  self->stopping_rule = rule;
  return SS_OK;
}

SsSvmStoppingRule ss_svm_get_stopping_rule(const SsSvm *self) { return self->stopping_rule; }

SsStatus ss_svm_set_max_num_iterations(SsSvm *self, int64_t n)
{
  if (!self || n < 1) return SS_ERR_BAD_ARG;
  self->max_num_iterations = n;
  return SS_OK;
}

SsStatus ss_svm_set_diagnostic_frequency(SsSvm *self, int64_t f)
{
  if (!self || f < 1) return SS_ERR_BAD_ARG;
  self->diagnostic_frequency = f;
  return SS_OK;
}

SsStatus ss_svm_set_bias_multiplier(SsSvm *self, double B)
{
  if (!self || !(B >= 0) || !isfinite(B)) return SS_ERR_BAD_ARG;
  self->bias_multiplier = B;
  self->model_stale = self->alpha != NULL;
  ss_svm_forget_history(self);
  return SS_OK;
}

SsStatus ss_svm_set_bias_learning_rate(SsSvm *self, double rate)
{
  if (!self || !(rate > 0) || !isfinite(rate)) return SS_ERR_BAD_ARG;
  self->bias_learning_rate = rate;
  return SS_OK;
}

SsStatus ss_svm_set_t0(SsSvm *self, double t0)
{
  if (!self || !(t0 > 1) || !isfinite(t0)) return SS_ERR_BAD_ARG;
  self->t0 = t0;
  return SS_OK;
}

SsStatus ss_svm_unset_t0(SsSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->t0 = 0;
  return SS_OK;
}

SsStatus ss_svm_set_loss(SsSvm *self, SsLoss loss)
{
  if (!self || !ss_loss_is_valid((int)loss)) return SS_ERR_BAD_ARG;
  if ((self->solver == SS_SOLVER_RES || self->solver == SS_SOLVER_LRES) &&
      (loss == SS_LOSS_HINGE || loss == SS_LOSS_L1))
    return SS_ERR_BAD_ARG; /* RES needs a differentiable loss */
  if (loss != self->loss) reset_dual(self);
  self->loss = loss;
  return SS_OK;
}

SsStatus ss_svm_set_loss_functions(SsSvm *self, const SsLossFunctions *functions)
{
  if (!self || !functions || !functions->value || !functions->derivative || !functions->conjugate)
    return SS_ERR_BAD_ARG;
  if (self->solver == SS_SOLVER_SDCA && !functions->dual_update) return SS_ERR_BAD_ARG;
  reset_dual(self);
  self->custom_loss = *functions;
  self->loss = SS_LOSS_CUSTOM;
  return SS_OK;
}

SsStatus ss_svm_set_dual_variables(SsSvm *self, const double *alpha)
{
  if (!self || !alpha) return SS_ERR_BAD_ARG;
  if (!self->alpha) return SS_ERR_BAD_STATE;
  for (int64_t i = 0; i < self->source.num_data; ++i) {
    double c = self->weights ? self->weights[i] : 1.0;
    if (!isfinite(alpha[i])) return SS_ERR_BAD_ARG;
    if (c == 0 ? alpha[i] != 0
               : !isfinite(ss_loss_conjugate(self->loss, &self->custom_loss, -alpha[i] / c, self->labels[i])))
      return SS_ERR_BAD_ARG;
  }
  memcpy(self->alpha, alpha, (size_t)self->source.num_data * sizeof(double));
  ss_sdca_rebuild_model(self);
  ss_svm_forget_history(self);
  return SS_OK;
}

SsStatus ss_svm_set_shrinking(SsSvm *self, int enabled)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->shrinking.enabled = enabled != 0;
  ss_sdca_reset_shrinking(self);
  return SS_OK;
}

SsStatus ss_svm_set_weights(SsSvm *self, const double *weights)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (!weights) {
    free(self->weights);
    self->weights = NULL;
    reset_dual(self);
    return SS_OK;
  }
  int64_t n = self->source.num_data;
  if (n < 1) return SS_ERR_BAD_STATE;
  for (int64_t i = 0; i < n; ++i) {
    if (!(weights[i] >= 0) || !isfinite(weights[i])) return SS_ERR_BAD_ARG;
  }
  double *copy = self->weights ? self->weights : malloc((size_t)n * sizeof(double));
  if (!copy) return SS_ERR_ALLOC;
  memcpy(copy, weights, (size_t)n * sizeof(double));
  self->weights = copy;
  reset_dual(self);
  return SS_OK;
}

SsStatus ss_svm_set_model(SsSvm *self, const double *model)
{
  if (!self || !model) return SS_ERR_BAD_ARG;
  if (self->alpha) return SS_ERR_BAD_STATE; /* SDCA with data: w follows alpha */
  for (int64_t k = 0; k < self->dimension; ++k) {
    if (!isfinite(model[k])) return SS_ERR_BAD_ARG;
  }
  memcpy(self->model, model, (size_t)self->dimension * sizeof(double));
  memcpy(self->u, model, (size_t)self->dimension * sizeof(double));
  self->factor = 1.0;
  ss_svm_forget_history(self);
  return SS_OK;
}

SsStatus ss_svm_set_bias(SsSvm *self, double bias)
{
  if (!self || !isfinite(bias)) return SS_ERR_BAD_ARG;
  if (self->alpha && self->bias_multiplier > 0) return SS_ERR_BAD_STATE;
  self->bias = bias;
  ss_svm_forget_history(self);
  return SS_OK;
}

SsStatus ss_svm_set_iteration_number(SsSvm *self, int64_t t)
{
  if (!self || t < 0) return SS_ERR_BAD_ARG;
  self->iteration = t;
  ss_svm_forget_history(self);
  return SS_OK;
}

SsStatus ss_svm_set_seed(SsSvm *self, uint64_t seed)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->seed = seed;
  return SS_OK;
}

SsStatus ss_svm_set_diagnostic_function(SsSvm *self, SsSvmDiagnosticFunction f, void *user)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->diagnostic_fn = f;
  self->diagnostic_user = f ? user : NULL;
  return SS_OK;
}

SsStatus ss_svm_set_interrupt_function(SsSvm *self, SsSvmInterruptFunction f, void *user)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->interrupt_fn = f;
  self->interrupt_user = f ? user : NULL;
  return SS_OK;
}

/* ------------------------------------------------------------------------ */
/*                                  Getters                                 */
/* ------------------------------------------------------------------------ */

SsSolver ss_svm_get_solver(const SsSvm *self) { return self->solver; }
double ss_svm_get_lambda(const SsSvm *self) { return self->lambda; }
double ss_svm_get_epsilon(const SsSvm *self) { return self->epsilon; }
int64_t ss_svm_get_max_num_iterations(const SsSvm *self) { return ss_svm_effective_max_num_iterations(self); }
int64_t ss_svm_get_diagnostic_frequency(const SsSvm *self) { return ss_svm_effective_diagnostic_frequency(self); }
double ss_svm_get_bias_multiplier(const SsSvm *self) { return self->bias_multiplier; }
double ss_svm_get_bias_learning_rate(const SsSvm *self) { return self->bias_learning_rate; }
double ss_svm_get_t0(const SsSvm *self) { return ss_svm_effective_t0(self); }
SsLoss ss_svm_get_loss(const SsSvm *self) { return self->loss; }
const double *ss_svm_get_weights(const SsSvm *self) { return self->weights; }
const double *ss_svm_get_model(const SsSvm *self) { return self->model; }
double ss_svm_get_bias(const SsSvm *self) { return self->bias; }
int64_t ss_svm_get_iteration_number(const SsSvm *self) { return self->iteration; }
int64_t ss_svm_poll_iteration_number(const SsSvm *self)
{
  return ss_run_read_progress(&self->progress);
}
uint64_t ss_svm_get_seed(const SsSvm *self) { return self->seed; }
int64_t ss_svm_get_dimension(const SsSvm *self) { return self->dimension; }
int64_t ss_svm_get_num_data(const SsSvm *self) { return self->source.num_data; }
const double *ss_svm_get_dual_variables(const SsSvm *self) { return self->alpha; }
int ss_svm_get_shrinking(const SsSvm *self) { return self->shrinking.enabled; }
int64_t ss_svm_get_num_shrunk(const SsSvm *self) { return self->shrinking.shrunk ? self->shrinking.num_shrunk : 0; }
const double *ss_svm_get_scores(const SsSvm *self) { return self->has_scores ? self->scores : NULL; }
const SsSvmStatistics *ss_svm_get_statistics(const SsSvm *self) { return &self->statistics; }

/* ------------------------------------------------------------------------ */
/*                                Diagnostics                               */
/* ------------------------------------------------------------------------ */

void ss_svm_forget_history(SsSvm *self)
{
  ss_run_history_clear(&self->history);
}

/* ------------------------------------------------------------------------ */
/*                                 Dispatcher                               */
/* ------------------------------------------------------------------------ */

SsStatus ss_svm_train(SsSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->source.kind == SS_DATA_NONE) return SS_ERR_BAD_STATE;
  SsStatus labels_status = ss_svm_check_labels_for_loss(self);
  if (labels_status != SS_OK) return labels_status;
  /* Room for the whole cap: a saturated counter would end the run short. */
  if (self->solver != SS_SOLVER_NONE &&
      self->iteration > INT64_MAX - ss_svm_effective_max_num_iterations(self))
    return SS_ERR_BAD_STATE;
  self->train_start_time = ss_clock_seconds();
  switch (self->solver) {
    case SS_SOLVER_NONE: {
      SsEpochRun evaluation = {.svm = self};
      SsRun run = ss_svm_run(self, &evaluation);
      return ss_run_diagnose(&run, SS_SVM_STATUS_CONVERGED, true);
    }
    case SS_SOLVER_SGD: return ss_sgd_train(self);
    case SS_SOLVER_SDCA: return ss_sdca_train(self);
    case SS_SOLVER_RES: return ss_res_train(self);
    case SS_SOLVER_LRES: return ss_lres_train(self);
    case SS_SOLVER_SVMSGD2: return ss_svmsgd2_train(self);
    case SS_SOLVER_SGDQN: return ss_sgdqn_train(self);
  }
  return SS_ERR_BAD_ARG;
}

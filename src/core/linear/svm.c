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
#include "res_steps.h"

#include <stdarg.h>
#include <stdio.h>
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
  self->max_num_iterations = 0;   /* default, resolved at train time */
  self->diagnostic_frequency = 0; /* default: n */
  self->bias_multiplier = 1.0;
  self->bias_learning_rate = 1.0;
  self->t0 = 0;                   /* default, resolved at train time */
  self->loss = SS_LOSS_HINGE;
  if (solver == SS_SOLVER_RES || solver == SS_SOLVER_LRES) self->loss = SS_LOSS_HINGE2; /* differentiable */
  self->epsilon = ss_svm_default_epsilon(solver, self->loss);
  ss_res_init(&self->res);
  self->seed = 0;
  self->visit_order = SS_VISIT_PERMUTATION;
  self->shrinking.enabled = true;
  self->factor = 1.0;
  self->overflow_row = -1;
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
  ss_sdca_undo_best(self);
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
  if ((uint64_t)n > SIZE_MAX / sizeof(double))
    return ss_svm_fail(self, SS_ERR_ALLOC, "set_data: %lld examples do not fit in memory", (long long)n);
  if (!labels) return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_data: labels is NULL");
  for (int64_t i = 0; i < n; ++i) {
    if (!isfinite(labels[i]))
      return ss_svm_fail(self, SS_ERR_BAD_DATA, "set_data: labels[%lld] must be finite, got %g", (long long)i,
                         labels[i]);
  }
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
    return ss_svm_fail(self, SS_ERR_ALLOC, "set_data: out of memory for the per-example arrays of %lld examples",
                       (long long)n);
  }
  double r2 = 0;
  int64_t overflow_row = -1;
  for (int64_t i = 0; i < n; ++i) {
    r2 = norms2[i] > r2 ? norms2[i] : r2;
    if (overflow_row < 0 && !isfinite(norms2[i])) overflow_row = i;
  }
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
  self->overflow_row = overflow_row;
  ss_svm_drop_final(self);
  ss_svm_free_order(self);
  self->density = ss_solver_uses_skip(self->solver) ? ss_source_density(source) : 1.0;
  reset_dual(self);
  self->statistics = untrained_statistics();
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_data(SsSvm *self, const SsData *data, const double *labels)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_data");
  if (!valid_descriptor(data))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_data: the data descriptor is NULL or malformed");
  if (ss_data_get_dimension(data) != self->dimension)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_data: the data has dimension %lld, the object %lld",
                       (long long)ss_data_get_dimension(data), (long long)self->dimension);
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
  /* From the object's own callback: the run still uses it (svm.h). */
  if (!self || self->training) return;
  free(self->labels);
  free(self->weights);
  free(self->model);
  free(self->u);
  free(self->best.u);
  free(self->best.mean);
  free(self->best.mean_scores);
  free(self->scores);
  free(self->previous_scores);
  free(self->row_norms2);
  free(self->alpha);
  free(self->shrinking.shrunk);
  free(self->shrinking.candidates);
  free(self->order);
  ss_res_free(&self->res);
  ss_run_history_free(&self->history);
  free(self->scaling);
  free(self->scratch);
  ss_threads_free(&self->threads);
  free(self);
}



/* ------------------------------------------------------------------------ */
/*                                  Setters                                 */
/* ------------------------------------------------------------------------ */

SsStatus ss_svm_set_lambda(SsSvm *self, double lambda)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_lambda");
  if (!valid_lambda(lambda))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_lambda: lambda must be in [%g, %g], got %g",
                       SS_LAMBDA_MIN, SS_LAMBDA_MAX, lambda);
  ss_svm_settle_final(self);
  self->lambda = lambda;
  self->model_stale = self->alpha != NULL;
  ss_sgdqn_reset_scaling(self);
  ss_svm_forget_history(self);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_epsilon(SsSvm *self, double epsilon)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_epsilon");
  if (!(epsilon >= 0) || !isfinite(epsilon))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_epsilon: epsilon must be finite and >= 0, got %g", epsilon);
  self->epsilon = epsilon;
  self->epsilon_set = true;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_stopping_rule(SsSvm *self, SsSvmStoppingRule rule)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_stopping_rule");
  if (rule != SS_SVM_STOP_DEFAULT && rule != SS_SVM_STOP_SCORES_VARIATION)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_stopping_rule: unknown rule %d", (int)rule);
  self->stopping_rule = rule;
  return ss_svm_succeed(self);
}

SsSvmStoppingRule ss_svm_get_stopping_rule(const SsSvm *self)
{
  return self ? self->stopping_rule : SS_SVM_STOP_DEFAULT;
}

SsStatus ss_svm_set_max_num_iterations(SsSvm *self, int64_t n)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_max_num_iterations");
  if (n < 1)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_max_num_iterations: the cap must be >= 1, got %lld",
                       (long long)n);
  self->max_num_iterations = n;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_diagnostic_frequency(SsSvm *self, int64_t f)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_diagnostic_frequency");
  if (f < 0)
    return ss_svm_fail(self, SS_ERR_BAD_ARG,
                       "set_diagnostic_frequency: the frequency must be >= 1 (or 0: the default schedule), got %lld",
                       (long long)f);
  self->diagnostic_frequency = f; /* 0: back to the default schedule */
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_bias_multiplier(SsSvm *self, double B)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_bias_multiplier");
  if (!(B >= 0) || !isfinite(B))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_bias_multiplier: B must be finite and >= 0, got %g", B);
  ss_svm_settle_final(self);
  self->bias_multiplier = B;
  self->model_stale = self->alpha != NULL;
  ss_svm_forget_history(self);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_bias_learning_rate(SsSvm *self, double rate)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_bias_learning_rate");
  if (!(rate > 0) || !isfinite(rate))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_bias_learning_rate: the rate must be finite and > 0, got %g",
                       rate);
  self->bias_learning_rate = rate;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_t0(SsSvm *self, double t0)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_t0");
  if (ss_svm_require_solver(self, "set_t0", SS_SOLVERS_T0) != SS_OK) return SS_ERR_BAD_STATE;
  if (!(t0 > 1) || !isfinite(t0))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_t0: t0 must be finite and > 1, got %g", t0);
  self->t0 = t0;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_unset_t0(SsSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (ss_svm_require_solver(self, "unset_t0", SS_SOLVERS_T0) != SS_OK) return SS_ERR_BAD_STATE;
  self->t0 = 0;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_loss(SsSvm *self, SsLoss loss)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_loss");
  if (!ss_loss_is_valid((int)loss))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_loss: unknown loss %d", (int)loss);
  if ((self->solver == SS_SOLVER_RES || self->solver == SS_SOLVER_LRES) &&
      (loss == SS_LOSS_HINGE || loss == SS_LOSS_L1))
    return ss_svm_fail(self, SS_ERR_BAD_ARG,
                       "set_loss: solver %s needs a differentiable loss (hinge2, logistic, l2), got %s",
                       ss_svm_solver_name(self->solver), ss_svm_loss_name(loss));
  ss_svm_settle_final(self);
  if (loss != self->loss) reset_dual(self);
  self->loss = loss;
  if (!self->epsilon_set) self->epsilon = ss_svm_default_epsilon(self->solver, loss);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_loss_functions(SsSvm *self, const SsLossFunctions *functions)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_loss_functions");
  if (!functions || !functions->value || !functions->derivative || !functions->conjugate)
    return ss_svm_fail(self, SS_ERR_BAD_ARG,
                       "set_loss_functions: value, derivative and conjugate must not be NULL");
  if (self->solver == SS_SOLVER_SDCA && !functions->dual_update)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_loss_functions: solver sdca needs dual_update");
  ss_svm_settle_final(self);
  reset_dual(self);
  self->custom_loss = *functions;
  self->loss = SS_LOSS_CUSTOM;
  if (!self->epsilon_set) self->epsilon = ss_svm_default_epsilon(self->solver, SS_LOSS_CUSTOM);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_dual_variables(SsSvm *self, const double *alpha)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_dual_variables");
  if (!alpha) return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_dual_variables: alpha is NULL");
  if (!self->alpha)
    return ss_svm_fail(self, SS_ERR_BAD_STATE,
                       "set_dual_variables: needs solver sdca and data, this object's solver is %s%s",
                       ss_svm_solver_name(self->solver), self->source.num_data > 0 ? "" : " (no data)");
  for (int64_t i = 0; i < self->source.num_data; ++i) {
    double c = self->weights ? self->weights[i] : 1.0;
    if (!isfinite(alpha[i]))
      return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_dual_variables: alpha[%lld] must be finite, got %g",
                         (long long)i, alpha[i]);
    if (c == 0 ? alpha[i] != 0
               : !isfinite(ss_loss_conjugate(self->loss, &self->custom_loss, -alpha[i] / c, self->labels[i])))
      return ss_svm_fail(self, SS_ERR_BAD_ARG,
                         "set_dual_variables: alpha[%lld] = %g is outside the domain of the %s loss "
                         "(label %g, weight %g)",
                         (long long)i, alpha[i], ss_svm_loss_name(self->loss), self->labels[i], c);
  }
  ss_svm_settle_final(self);
  memcpy(self->alpha, alpha, (size_t)self->source.num_data * sizeof(double));
  ss_sdca_rebuild_model(self);
  ss_svm_forget_history(self);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_shrinking(SsSvm *self, int enabled)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_shrinking");
  if (ss_svm_require_solver(self, "set_shrinking", SS_SOLVER_BIT(SS_SOLVER_SDCA)) != SS_OK)
    return SS_ERR_BAD_STATE;
  self->shrinking.enabled = enabled != 0;
  ss_sdca_reset_shrinking(self);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_weights(SsSvm *self, const double *weights)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_weights");
  if (!weights) {
    ss_svm_settle_final(self);
    free(self->weights);
    self->weights = NULL;
    reset_dual(self);
    return ss_svm_succeed(self);
  }
  int64_t n = self->source.num_data;
  if (n < 1) return ss_svm_fail(self, SS_ERR_BAD_STATE, "set_weights: the object has no data");
  for (int64_t i = 0; i < n; ++i) {
    if (!(weights[i] >= 0) || !isfinite(weights[i]))
      return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_weights: weights[%lld] must be finite and >= 0, got %g",
                         (long long)i, weights[i]);
  }
  double *copy = self->weights ? self->weights : malloc((size_t)n * sizeof(double));
  if (!copy)
    return ss_svm_fail(self, SS_ERR_ALLOC, "set_weights: out of memory for %lld weights", (long long)n);
  ss_svm_settle_final(self);
  memcpy(copy, weights, (size_t)n * sizeof(double));
  self->weights = copy;
  reset_dual(self);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_model(SsSvm *self, const double *model)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_model");
  if (!model) return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_model: model is NULL");
  if (self->alpha) /* SDCA with data: w follows alpha */
    return ss_svm_fail(self, SS_ERR_BAD_STATE,
                       "set_model: solver sdca with data derives its model from the dual variables "
                       "(set_dual_variables)");
  for (int64_t k = 0; k < self->dimension; ++k) {
    if (!isfinite(model[k]))
      return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_model: model[%lld] must be finite, got %g", (long long)k,
                         model[k]);
  }
  ss_svm_settle_final(self);
  memcpy(self->model, model, (size_t)self->dimension * sizeof(double));
  memcpy(self->u, model, (size_t)self->dimension * sizeof(double));
  self->factor = 1.0;
  ss_svm_forget_history(self);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_bias(SsSvm *self, double bias)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_bias");
  if (!isfinite(bias)) return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_bias: the bias must be finite, got %g", bias);
  if (self->alpha && self->bias_multiplier > 0)
    return ss_svm_fail(self, SS_ERR_BAD_STATE,
                       "set_bias: solver sdca with data and bias multiplier %g > 0 learns the bias from "
                       "the dual variables",
                       self->bias_multiplier);
  ss_svm_settle_final(self);
  self->bias = bias;
  ss_svm_forget_history(self);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_iteration_number(SsSvm *self, int64_t t)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_iteration_number");
  if (t < 0)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_iteration_number: t must be >= 0, got %lld", (long long)t);
  ss_svm_settle_final(self);
  self->iteration = t;
  ss_svm_forget_history(self);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_seed(SsSvm *self, uint64_t seed)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_seed");
  self->seed = seed;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_num_threads(SsSvm *self, int num_threads)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_num_threads");
  if (num_threads < 1)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_num_threads: num_threads must be >= 1, got %d", num_threads);
  if (ss_threads_set_count(&self->threads, num_threads) != SS_OK)
    return ss_svm_fail(self, SS_ERR_ALLOC, "set_num_threads: cannot allocate a pool of %d threads", num_threads);
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_diagnostic_function(SsSvm *self, SsSvmDiagnosticFunction f, void *user)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_diagnostic_function");
  self->diagnostic_fn = f;
  self->diagnostic_user = f ? user : NULL;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_interrupt_function(SsSvm *self, SsSvmInterruptFunction f, void *user)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_interrupt_function");
  self->interrupt_fn = f;
  self->interrupt_user = f ? user : NULL;
  return ss_svm_succeed(self);
}

/* ------------------------------------------------------------------------ */
/*                                  Getters                                 */
/* ------------------------------------------------------------------------ */

SsSolver ss_svm_get_solver(const SsSvm *self) { return self ? self->solver : SS_SOLVER_NONE; }
double ss_svm_get_lambda(const SsSvm *self) { return self ? self->lambda : NAN; }
double ss_svm_get_epsilon(const SsSvm *self) { return self ? self->epsilon : NAN; }
int64_t ss_svm_get_max_num_iterations(const SsSvm *self)
{
  return self ? ss_svm_effective_max_num_iterations(self) : 0;
}
int64_t ss_svm_get_diagnostic_frequency(const SsSvm *self)
{
  return self ? ss_svm_effective_diagnostic_frequency(self) : 0;
}
double ss_svm_get_bias_multiplier(const SsSvm *self) { return self ? self->bias_multiplier : NAN; }
double ss_svm_get_bias_learning_rate(const SsSvm *self) { return self ? self->bias_learning_rate : NAN; }
double ss_svm_get_t0(const SsSvm *self) { return self ? ss_svm_effective_t0(self) : NAN; }
SsLoss ss_svm_get_loss(const SsSvm *self) { return self ? self->loss : SS_LOSS_HINGE; }
const double *ss_svm_get_weights(const SsSvm *self) { return self ? self->weights : NULL; }
int64_t ss_svm_get_iteration_number(const SsSvm *self) { return self ? self->iteration : 0; }
int64_t ss_svm_poll_iteration_number(const SsSvm *self)
{
  if (!self) return 0;
  return ss_run_read_progress(&self->progress);
}
uint64_t ss_svm_get_seed(const SsSvm *self) { return self ? self->seed : 0; }
int ss_svm_get_num_threads(const SsSvm *self)
{
  return self ? (self->threads.count > 1 ? self->threads.count : 1) : 0;
}
int64_t ss_svm_get_dimension(const SsSvm *self) { return self ? self->dimension : 0; }
int64_t ss_svm_get_num_data(const SsSvm *self) { return self ? self->source.num_data : 0; }
const double *ss_svm_get_dual_variables(const SsSvm *self) { return self ? self->alpha : NULL; }
int ss_svm_get_shrinking(const SsSvm *self) { return self ? self->shrinking.enabled : 0; }
int64_t ss_svm_get_num_shrunk(const SsSvm *self)
{
  return self && self->shrinking.shrunk ? self->shrinking.num_shrunk : 0;
}

/* The getters make the closing diagnostic the last train left pending
 * (epochs.c): the object is logically unchanged (they return what train
 * would have left), so they keep their const signature. The statistics and
 * scores readers always settle it; the model readers (@p model_reader) only
 * for SDCA, whose closing ray (sdca_ray.c) comes with that diagnostic and
 * can change the model: they return the model train left whether or not
 * the statistics were read first, and other solvers' readers pay no pass. */
static void settle_for_reader(const SsSvm *self, bool model_reader)
{
  if (model_reader && !self->alpha) return;
  if (self->final_pending) (void)ss_svm_settle_final((SsSvm *)self);
}

const double *ss_svm_get_model(const SsSvm *self)
{
  if (!self) return NULL;
  settle_for_reader(self, true);
  return self->model;
}

double ss_svm_get_bias(const SsSvm *self)
{
  if (!self) return NAN;
  settle_for_reader(self, true);
  return self->bias;
}

SsStatus ss_svm_decision_function(const SsSvm *self, const SsData *data, double *scores)
{
  if (!self || !data || (data->num_data > 0 && !scores)) return SS_ERR_BAD_ARG;
  const int64_t d = data->homkermap ? data->dimension * ss_homkermap_dimension(data->homkermap)
                                    : data->dimension;
  if (d != self->dimension) return SS_ERR_BAD_ARG;
  settle_for_reader(self, true);
  ss_data_scores(data, self->model, self->bias, scores, self->threads);
  return ss_scores_status(data, scores, data->num_data);
}

const double *ss_svm_get_scores(const SsSvm *self)
{
  if (!self) return NULL;
  settle_for_reader(self, false);
  return self->has_scores ? self->scores : NULL;
}

const SsSvmStatistics *ss_svm_get_statistics(const SsSvm *self)
{
  if (!self) return NULL;
  settle_for_reader(self, false);
  return &self->statistics;
}

SsSdcaModel ss_svm_get_sdca_model(const SsSvm *self)
{
  if (!self) return SS_SDCA_MODEL_NONE;
  settle_for_reader(self, false); /* (its closing ray) */
  return ss_sdca_best_model(self);
}

/* ------------------------------------------------------------------------ */
/*                                Diagnostics                               */
/* ------------------------------------------------------------------------ */

void ss_svm_forget_history(SsSvm *self)
{
  ss_run_history_clear(&self->history);
  self->step_backoffs = 0;
}

/* ------------------------------------------------------------------------ */
/*                                 Dispatcher                               */
/* ------------------------------------------------------------------------ */

/* The diagnostic function sees how a run ended: a finish after the run's
 * last diagnostic (Newton's, primal_finish.c) or a status set after it
 * changed the statistics, so it is called once more, its answer ignored
 * (the run is over). */
static void notify_the_end(SsSvm *self, SsStatus status)
{
  const SsSvmStatistics *st = &self->statistics;
  if (status == SS_OK && self->diagnostic_fn &&
      ss_run_seen_differs(&self->notified, st->status, st->iteration, st->objective))
    (void)self->diagnostic_fn(self, self->diagnostic_user);
}

static SsStatus run_solver(SsSvm *self)
{
  switch (self->solver) {
    case SS_SOLVER_NONE: {
      SsEpochRun evaluation = {.svm = self};
      SsRun run = ss_svm_run(self, &evaluation);
      return ss_run_diagnose(&run, SS_SVM_STATUS_CONVERGED, true);
    }
    case SS_SOLVER_SGD: return ss_primal_train(self, ss_sgd_train);
    case SS_SOLVER_SDCA: return ss_sdca_train(self);
    case SS_SOLVER_RES: return ss_primal_train(self, ss_res_train);
    case SS_SOLVER_LRES: return ss_primal_train(self, ss_lres_train);
    case SS_SOLVER_SVMSGD2: return ss_primal_train(self, ss_svmsgd2_train);
    case SS_SOLVER_SGDQN: return ss_primal_train(self, ss_sgdqn_train);
  }
  return SS_ERR_BAD_ARG;
}

/* Say why a run ended with @p status: the solvers return a bare status and
 * leave the statistics describing the model as it stands. */
static SsStatus explain_train(SsSvm *self, SsStatus status)
{
  const char *solver = ss_svm_solver_name(self->solver);
  const long long t = (long long)self->iteration;
  const double objective = self->statistics.objective;
  if (status == SS_ERR_NUMERIC || status == SS_ERR_DIVERGED) {
    /* set_data checked X; a value that is not finite now was written into
     * the borrowed arrays since: that, not the steps, is the cause. */
    const int64_t row = self->source.kind == SS_DATA_DESCRIPTOR
                            ? ss_data_first_nonfinite_row(&self->source.descriptor) : -1;
    if (row >= 0)
      return ss_svm_fail(self, SS_ERR_BAD_DATA,
                         "row %lld of the data X holds a value that is not finite: X changed after set_data "
                         "(the object reads the caller's arrays, it does not copy them); the model is not "
                         "reliable: give the data again (set_data) and reset the model", (long long)row);
  }
  switch (status) {
    case SS_OK: return ss_svm_succeed(self);
    case SS_ERR_INTERRUPTED:
      return ss_svm_fail(self, status, "training interrupted by a callback at iteration %lld (solver %s)", t,
                         solver);
    case SS_ERR_DIVERGED:
      return ss_svm_fail(self, status,
                         "training diverged: the objective rose to %.3g, over 1e4 times its value at "
                         "w = 0 (%.3g), by iteration %lld (solver %s): the steps are too large for the "
                         "scale of the data",
                         objective, ss_svm_zero_objective(self), t, solver);
    case SS_ERR_NUMERIC:
      return ss_svm_fail(self, status,
                         "training diverged: the model or a score became non-finite by iteration %lld "
                         "(solver %s): the steps are too long or the data values too large",
                         t, solver);
    case SS_ERR_ALLOC:
      if (self->solver == SS_SOLVER_RES && self->dimension > SS_RES_MAX_DIMENSION)
        return ss_svm_fail(self, status, "training: the res solver keeps a d x d curvature matrix and trains "
                           "on at most %d features, these data have %lld", SS_RES_MAX_DIMENSION,
                           (long long)self->dimension);
      if (self->solver == SS_SOLVER_LRES && ss_res_curvature_buffer_size(self) == 0)
        return ss_svm_fail(self, status, "training: the lres memory %lld times %lld features exceeds its "
                           "curvature storage cap", (long long)self->res.memory, (long long)self->dimension);
      return ss_svm_fail(self, status, "training ran out of memory (solver %s, %lld features, %lld examples)",
                         solver, (long long)self->dimension, (long long)self->source.num_data);
    case SS_ERR_BAD_ARG:
      if ((self->solver == SS_SOLVER_RES || self->solver == SS_SOLVER_LRES) &&
          (self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_L1))
        return ss_svm_fail(self, status, "training: the %s solver needs a differentiable loss, got %s", solver,
                           ss_svm_loss_name(self->loss));
      if (self->solver == SS_SOLVER_RES)
        return ss_svm_fail(self, status, "the %s solver cannot start: the initial curvature b0 = %.17g "
                           "must exceed delta = %.17g", solver, ss_svm_get_res_initial_curvature(self),
                           ss_svm_get_res_delta(self));
      break;
    default: break;
  }
  return ss_svm_fail(self, status, "training failed (solver %s): %s", solver, ss_status_string(status));
}

SsStatus ss_svm_settle(SsSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  return explain_train(self, ss_svm_settle_final(self));
}

SsStatus ss_svm_train(SsSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "train");
  if (self->source.kind == SS_DATA_NONE)
    return ss_svm_fail(self, SS_ERR_BAD_STATE, "training needs data: this object has none (set_data)");
  int64_t bad = ss_svm_first_bad_label(self);
  if (bad >= 0)
    return ss_svm_fail(self, SS_ERR_BAD_DATA,
                       "the labels are not valid for the %s loss: they must be -1 or +1, got labels[%lld] = %g",
                       ss_svm_loss_name(self->loss), (long long)bad, self->labels[bad]);
  /* Finite values whose squares overflow (|x_ij| above about 1e154) make
   * every inner product and step meaningless: refused, not trained on. */
  if (self->overflow_row >= 0)
    return ss_svm_fail(self, SS_ERR_BAD_DATA,
                       "row %lld of the data X has a squared norm that is not finite (%g): its values overflow "
                       "when squared; scale the features (e.g. to unit variance)",
                       (long long)self->overflow_row, self->row_norms2[self->overflow_row]);
  /* Room for the whole cap: a saturated counter would end the run short. */
  const int64_t cap = ss_svm_effective_max_num_iterations(self);
  if (self->solver != SS_SOLVER_NONE && self->iteration > INT64_MAX - cap)
    return ss_svm_fail(self, SS_ERR_BAD_STATE,
                       "the iteration number %lld leaves no room for max_num_iterations = %lld more "
                       "iterations (the counter is a 64-bit integer): lower set_iteration_number or "
                       "set_max_num_iterations",
                       (long long)self->iteration, (long long)cap);
  /* a fork() of the process that made the pool: new workers of this one's */
  if (ss_threads_after_fork(&self->threads) != SS_OK)
    return ss_svm_fail(self, SS_ERR_ALLOC, "train: cannot start the threads of this process (a fork of "
                       "the one that set num_threads); the object is now serial");
  /* The last run's closing diagnostic, if still pending: made where the
   * schedule has one (its record belongs to this run's stopping rule and
   * divergence test), else dropped, as by a single longer run. */
  ss_svm_resume_final(self);
  ss_svm_find_unit_values(self);
  self->train_start_time = ss_clock_seconds();
  self->training = true;
  self->notified = (SsRunSeen){.status = SS_SVM_STATUS_UNTRAINED};
  const SsStatus status = run_solver(self);
  notify_the_end(self, status);
  self->training = false;
  return explain_train(self, status);
}

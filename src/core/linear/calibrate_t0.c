/* calibrate_t0.c -- choose the schedule offset t0 of SGD, SVMSGD2 and
 * SGD-QN the way Bordes, Bottou and Gallinari (2009, section 5.3) and
 * Bottou's programs do: try each candidate for one pass over a 10 % sample
 * of the training set and keep the one with the lowest primal objective.
 *
 * For a candidate t0 the trial starts from the object's present state
 * (model w = f u, bias b, iteration number t, SGD-QN's scaling B and its
 * update count), runs the solver's own typed inner loop (the same code
 * ss_svm_train runs) over the first m = max(1, ceil(n / 10)) examples of a
 * permutation drawn from (seed, SS_CALIBRATION_STREAM) -- a stream no epoch
 * uses -- and evaluates on those m examples
 *
 *     E_m(w, b) = lambda/2 (||w||^2 + w_b^2) + 1/m sum_{i in sample} c_i loss(y_i, s_i).
 *
 * The state is put back after every trial, so the only effect of a
 * calibration is the t0 it sets. A trial that diverges (a non-finite score
 * or objective) scores +infinity.
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <stdlib.h>
#include <string.h>

/** The permutation stream of the calibration sample (epochs use 0, 1, ...). */
#define SS_CALIBRATION_STREAM UINT64_MAX

/* The object's trainable state, saved and restored around each trial. */
typedef struct SsSavedState {
  double *u;
  double *scaling;
  double factor, bias, t0;
  int64_t iteration, scaling_updates;
} SsSavedState;

static void save_state(const SsSvm *self, SsSavedState *saved)
{
  memcpy(saved->u, self->u, (size_t)self->dimension * sizeof(double));
  if (self->scaling) memcpy(saved->scaling, self->scaling, ((size_t)self->dimension + 1) * sizeof(double));
  saved->factor = self->factor;
  saved->bias = self->bias;
  saved->t0 = self->t0;
  saved->iteration = self->iteration;
  saved->scaling_updates = self->scaling_updates;
}

static void restore_state(SsSvm *self, const SsSavedState *saved)
{
  memcpy(self->u, saved->u, (size_t)self->dimension * sizeof(double));
  if (self->scaling) memcpy(self->scaling, saved->scaling, ((size_t)self->dimension + 1) * sizeof(double));
  self->factor = saved->factor;
  self->bias = saved->bias;
  self->t0 = saved->t0;
  self->iteration = saved->iteration;
  self->scaling_updates = saved->scaling_updates;
}

/* E_m of the present state over the examples sample[0 .. m). */
static double sample_objective(SsSvm *self, const int64_t *sample, int64_t m)
{
  ss_svm_realise_model(self);
  const double B = self->bias_multiplier;
  double norm2 = 0;
  for (int64_t k = 0; k < self->dimension; ++k) norm2 += self->model[k] * self->model[k];
  const double wb = B > 0 ? self->bias / B : 0;
  double loss = 0;
  for (int64_t k = 0; k < m; ++k) {
    const int64_t i = sample[k];
    const double c = self->weights ? self->weights[i] : 1.0;
    if (c == 0) continue;
    const double s = ss_source_inner_product(&self->source, i, self->model) + self->bias;
    loss += c * ss_loss_value(self->loss, &self->custom_loss, s, self->labels[i]);
  }
  const double objective = 0.5 * self->lambda * (norm2 + wb * wb) + loss / (double)m;
  return isfinite(objective) ? objective : INFINITY;
}

SsStatus ss_svm_calibrate_t0(SsSvm *self, const double *candidates, int64_t num_candidates,
                             double *objectives)
{
  static const double grid[SS_SVM_CALIBRATION_GRID] = {1e1, 1e2, 1e3, 1e4, 1e5,
                                                       1e6, 1e7, 1e8, 1e9, 1e10};
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "calibrate_t0");
  if (!candidates) {
    candidates = grid;
    num_candidates = SS_SVM_CALIBRATION_GRID;
  }
  if (num_candidates < 1)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "calibrate_t0: num_candidates must be >= 1, got %lld",
                       (long long)num_candidates);
  for (int64_t k = 0; k < num_candidates; ++k) {
    if (!(candidates[k] > 1) || !isfinite(candidates[k]))
      return ss_svm_fail(self, SS_ERR_BAD_ARG, "calibrate_t0: candidates[%lld] must be finite and > 1, got %g",
                         (long long)k, candidates[k]);
  }
  ss_svm_find_unit_values(self);
  SsStepsFunction steps;
  switch (self->solver) {
    case SS_SOLVER_SGD: steps = ss_sgd_steps(&self->source); break;
    case SS_SOLVER_SVMSGD2: steps = ss_svmsgd2_steps(&self->source); break;
    case SS_SOLVER_SGDQN: steps = ss_sgdqn_steps(&self->source); break;
    default:
      return ss_svm_fail(self, SS_ERR_BAD_STATE,
                         "calibrate_t0 applies to solvers sgd, svmsgd2 and sgdqn, this object's solver is %s",
                         ss_svm_solver_name(self->solver));
  }
  if (self->source.kind == SS_DATA_NONE)
    return ss_svm_fail(self, SS_ERR_BAD_STATE, "calibrate_t0: the object has no data (set_data)");
  SsStatus status = ss_svm_check_labels_for_loss(self);
  if (status != SS_OK)
    return ss_svm_fail(self, status, "calibrate_t0: the %s loss needs labels -1 or +1",
                       ss_svm_loss_name(self->loss));

  const int64_t n = self->source.num_data;
  const int64_t m = n / 10 + (n % 10 != 0); /* ceil(n / 10) >= 1 */
  int64_t *perm = malloc((size_t)n * sizeof(int64_t));
  SsSavedState saved = {.u = malloc((size_t)self->dimension * sizeof(double)),
                        .scaling = self->scaling ? malloc(((size_t)self->dimension + 1) * sizeof(double)) : NULL};
  if (!perm || !saved.u || (self->scaling && !saved.scaling)) {
    free(perm);
    free(saved.u);
    free(saved.scaling);
    return ss_svm_fail(self, SS_ERR_ALLOC, "calibrate_t0: out of memory");
  }
  ss_rng_permutation(perm, n, self->seed, SS_CALIBRATION_STREAM);
  save_state(self, &saved);

  double best_objective = INFINITY, best_t0 = 0;
  for (int64_t k = 0; k < num_candidates; ++k) {
    self->t0 = candidates[k];
    /* The trial's steps are iterations [t, t + m) of a pseudo-epoch that
     * starts at t and visits perm in order. */
    SsEpochRun run = {.svm = self, .perm = perm, .epoch_start = saved.iteration};
    const int64_t t_end = saved.iteration > INT64_MAX - m ? INT64_MAX : saved.iteration + m;
    double objective = steps(&run, saved.iteration, t_end) == SS_OK ? sample_objective(self, perm, m)
                                                                   : INFINITY;
    if (objectives) objectives[k] = objective;
    if (objective < best_objective) {
      best_objective = objective;
      best_t0 = candidates[k];
    }
    restore_state(self, &saved);
  }
  ss_svm_realise_model(self);
  free(perm);
  free(saved.u);
  free(saved.scaling);
  if (!(best_objective < INFINITY))
    return ss_svm_fail(self, SS_ERR_NUMERIC, "calibrate_t0: every one of the %lld candidates diverged; t0 is unchanged",
                       (long long)num_candidates);
  self->t0 = best_t0;
  return ss_svm_succeed(self);
}

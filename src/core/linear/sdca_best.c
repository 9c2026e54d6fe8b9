/* sdca_best.c -- SDCA's best model: a run that converges returns the model
 * of least primal objective among its diagnostics (with the hinge and l1
 * losses, also among the tail averages of its epochs' models), certified
 * by the dual value of the last.
 *
 * Weak duality bounds the optimum from both sides with any pair of points:
 * for every model w~ and every feasible alpha,
 *
 *     D(alpha) <= P* <= P(w~).
 *
 * Coordinate ascent raises D(alpha_t) at every step, but the primal value
 * of its model, P(w~(alpha_t)), is not monotone: with the hinge loss it
 * rises and falls from epoch to epoch (shrinking puts every example back at
 * once, and the epoch's last steps move w~ along a few rows; on covtype,
 * lambda = 1/n, with a diagnostic every epoch the relative gap 5e-4 held at
 * epoch 86 below LIBLINEAR's objective, and the default run's budgeted
 * checks, fewer, stopped at epoch 92 on an epoch 1.3e-4 above it:
 * docs/stopping.rst). So the run keeps, at each diagnostic k of a train
 * call, the model w~_best of least P among the candidates of the
 * diagnostics so far (below), and its stopping rule reads the gap between
 * that model and the present dual point:
 *
 *     G_k = P(w~_best) - D(alpha_k),   P(w~_best) = min over j <= k of the candidates' P.
 *
 * The candidates at diagnostic k are the present model w~(alpha_k) and,
 * with the hinge and l1 losses, the tail average of the models at the ends
 * of the call's epochs e = 1, 2, ...,
 *
 *     m_e = m_{e-1} + (w~(alpha_e) - m_{e-1}) / min(e, 8),   m_1 = w~(alpha_1),
 *
 * (the uniform mean of the first 8, then an exponential one whose memory is
 * about 8 epochs): P is convex, so the mean of models that swing about the
 * optimum lies below most of them, and the swings do not reach it. On
 * covtype (lambda = 1/n) at the checks of the default run (epochs 45 and
 * 92) the present models were 6.1e-4 and 1.3e-4 above LIBLINEAR's default
 * objective, the average 4.4e-5 above and 6.4e-5 below it. Any model
 * certifies against any dual point, so the average needs no dual of its
 * own (it is w~ of the same mean of the alphas, a feasible point, but
 * nothing uses that).
 *
 * G_k >= P(w~_best) - P* >= 0 is a certificate of w~_best as the gap
 * P - D is of w~(alpha_k), and it only gets tighter: G_k <= P(w~(alpha_k))
 * - D(alpha_k) (the best includes the present model) and G_k <= P(w~_best)
 * - D(alpha_j) for the diagnostic j that measured the best (D rises). The
 * relative-gap rule (run.c) stops on G_k <= epsilon max(D, 0), and the
 * guarantee P <= (1 + epsilon) P* holds for the model returned, w~_best.
 *
 * What the caller sees after a converged run: the model and bias w~_best,
 * its scores (one pass over the data, made only when w~_best is not the
 * present model), statistics whose objective, regularizer and loss are
 * w~_best's and whose dual objective is D(alpha_k), with the gap G_k;
 * iteration and epoch stay the run's (those of alpha_k). The dual
 * variables are alpha_k: the state goes on, the model returned is the
 * certified one. The next train puts w~(alpha_k) back first (the two
 * models swap places, bit for bit, as the closing ray's factor is undone:
 * sdca_ray.c) and continues exactly as if no best had been returned; so
 * does a rebuild from alpha (a change of lambda, B, data, weights or loss).
 * A run stopped otherwise (on its cap: the closing ray; interrupted; the
 * Newton fallback) returns its present model, as before.
 *
 * With the smooth losses P(w~(alpha_t)) falls at almost every diagnostic:
 * the best is then the present model, nothing is swapped, and the run's
 * iterates, stop and result are those of the rule on P - D. Where an
 * earlier model is lower, the rule can only fire earlier, on a certificate
 * at least as tight. A model shifted for CoCoA's local subproblem
 * (sdca_shift.c) keeps no best: its caller reads w~ - shift as the dual
 * variables' model.
 *
 * Cost: one copy of w~ (d + 1 values) at each diagnostic whose P is the
 * lowest so far, next to the diagnostic's pass over all the non-zeros; one
 * pass when the best is returned; d doubles of memory. The average adds
 * O(d) per epoch (skipped at an epoch that visits fewer than d examples:
 * shrunk epochs of a high-dimensional set, whose steps cost less), one
 * more pass at each diagnostic (its scores; the diagnostic budget counts
 * it, epochs.c: on ijcnn1, hinge, lambda = 1/n, the checks took 14.8 % of
 * the run's instructions uncounted, 8.5 % counted), and d + n doubles.
 *
 * Which model the object holds is a statistic (ss_svm_get_sdca_model):
 * w~(alpha), an earlier diagnostic's, the tail average, after a run
 * stopped on its cap the closing ray's t* w~(alpha) (sdca_ray.c), or
 * after a hand-over the Newton fallback's model (sdca_newton.c).
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The object's model and the kept one trade places (u is w~ with factor 1). */
static void swap_models(SsSvm *self)
{
  SsSdcaBest *best = &self->best;
  double *u = self->u;
  self->u = best->u;
  best->u = u;
  const double bias = self->bias;
  self->bias = best->bias;
  best->bias = bias;
  ss_svm_realise_model(self);
}

/** The tail average: a uniform mean of the first epochs' models, then an
 *  exponential one with this weight's inverse as its memory. */
#define SS_SDCA_MEAN_EPOCHS 8

/* The losses whose primal value at w~(alpha) swings: a tail average. */
static bool averages(const SsSvm *self)
{
  return self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_L1;
}

/* A buffer of `count` doubles, kept if it has that size already. */
static bool ensure(double **buffer, int64_t *size, int64_t count)
{
  if (*buffer && *size == count) return true;
  free(*buffer);
  *buffer = malloc((size_t)(count > 0 ? count : 1) * sizeof(double));
  *size = *buffer ? count : 0;
  return *buffer != NULL;
}

SsStatus ss_sdca_best_begin(SsSvm *self)
{
  SsSdcaBest *best = &self->best;
  ss_sdca_undo_best(self);
  self->newton.applied = false; /* (this call's fallback, if any, sets it) */
  const size_t bytes = (size_t)self->dimension * sizeof(double);
  if (!best->u) best->u = malloc(bytes);
  if (!best->u)
    return ss_svm_fail(self, SS_ERR_ALLOC, "train: out of memory for SDCA's best model (%lld values)",
                       (long long)self->dimension);
  if (averages(self)) {
    if (!best->mean) best->mean = malloc(bytes);
    if (!best->mean || !ensure(&best->mean_scores, &best->mean_size, self->source.num_data))
      return ss_svm_fail(self, SS_ERR_ALLOC, "train: out of memory for SDCA's tail average (%lld values "
                         "and %lld scores)", (long long)self->dimension, (long long)self->source.num_data);
  }
  best->trained = true;
  best->primal = INFINITY;
  best->mean_epochs = 0;
  return SS_OK;
}

void ss_sdca_best_average(SsSvm *self)
{
  SsSdcaBest *best = &self->best;
  const int64_t n = self->source.num_data, d = self->dimension;
  if (!averages(self) || !best->mean || best->mean_size != n || self->ray.shifted) return;
  /* O(d) per epoch: skipped where that would cost more than the epoch's
   * visits (shrunk epochs of a high-dimensional set); the mean then waits. */
  const int64_t visits = ss_sdca_shrinks(self) && self->shrinking.num_candidates >= 0
                             ? self->shrinking.num_candidates
                             : n;
  if (d > visits) return;
  const int64_t k = best->mean_epochs < SS_SDCA_MEAN_EPOCHS ? best->mean_epochs + 1 : SS_SDCA_MEAN_EPOCHS;
  const double weight = 1.0 / (double)k; /* (1 at the first epoch: the mean is the model) */
  for (int64_t j = 0; j < d; ++j)
    best->mean[j] = k == 1 ? self->u[j] : best->mean[j] + weight * (self->u[j] - best->mean[j]);
  best->mean_bias = k == 1 ? self->bias : best->mean_bias + weight * (self->bias - best->mean_bias);
  best->mean_epochs++;
}

/* The tail average is scored at the diagnostic (ss_sdca_best_record). */
static bool scores_mean(const SsSvm *self)
{
  const SsSdcaBest *best = &self->best;
  return averages(self) && best->mean && best->mean_epochs > 1 && best->mean_size == self->source.num_data &&
         !self->ray.shifted;
}

double ss_sdca_best_diagnostic_passes(const SsSvm *self)
{
  return scores_mean(self) ? 2.0 : 1.0;
}

void ss_sdca_best_record(SsSvm *self, SsSvmStatus status, SsRunMeasure *m)
{
  SsSdcaBest *best = &self->best;
  const SsSvmStatistics *st = &self->statistics;
  if (!best->u || best->applied || self->ray.shifted || self->factor != 1.0 || !m->finite ||
      !isfinite(st->objective) || (status != SS_SVM_STATUS_TRAINING && status != SS_SVM_STATUS_MAX_ITERATIONS))
    return;
  if (st->objective < best->primal) {
    memcpy(best->u, self->model, (size_t)self->dimension * sizeof(double));
    best->bias = self->bias;
    best->primal = st->objective;
    best->regularizer = st->regularizer;
    best->loss = st->loss;
    best->is_mean = false;
  }
  if (scores_mean(self)) {
    double regularizer, loss;
    const double primal = ss_svm_objective_of(self, best->mean, best->mean_bias, best->mean_scores, &regularizer, &loss);
    if (primal < best->primal) {
      memcpy(best->u, best->mean, (size_t)self->dimension * sizeof(double));
      best->bias = best->mean_bias;
      best->primal = primal;
      best->regularizer = regularizer;
      best->loss = loss;
      best->is_mean = true;
    }
  }
  m->primal = best->primal;
}

void ss_sdca_best_return(SsSvm *self)
{
  SsSdcaBest *best = &self->best;
  SsSvmStatistics *st = &self->statistics;
  if (!self->alpha || !best->u || best->applied || self->ray.shifted || self->factor != 1.0 ||
      !(best->primal < st->objective))
    return;
  swap_models(self);
  best->applied = true;
  /* The scores of the model returned, as a diagnostic computes them. */
  ss_source_scores(&self->source, self->model, self->bias, self->scores, self->threads);
  st->objective = best->primal;
  st->regularizer = best->regularizer;
  st->loss = best->loss;
  st->duality_gap = st->objective - st->dual_objective;
}

void ss_sdca_undo_best(SsSvm *self)
{
  SsSdcaBest *best = &self->best;
  if (!best->applied) return;
  swap_models(self);
  best->applied = false;
  self->ray.scores_fresh = false;
}

SsSdcaModel ss_sdca_best_model(const SsSvm *self)
{
  if (!self->alpha || !self->best.trained) return SS_SDCA_MODEL_NONE;
  /* (the fallback's model: a rebuild from alpha, which clears model_stale,
   * replaces it) */
  if (self->newton.applied && self->model_stale) return SS_SDCA_MODEL_NEWTON;
  if (self->best.applied) return self->best.is_mean ? SS_SDCA_MODEL_AVERAGE : SS_SDCA_MODEL_EARLIER;
  if (self->ray.applied && self->factor == self->ray.t) return SS_SDCA_MODEL_RAY;
  return SS_SDCA_MODEL_DUAL;
}

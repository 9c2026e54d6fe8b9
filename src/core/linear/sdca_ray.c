/* sdca_ray.c -- SDCA's closing ray: the best primal model on the ray through
 * w~(alpha), returned by a run that stops on its cap.
 *
 * Dual coordinate ascent certifies its model by the duality gap, and a run
 * that ends on its cap with a large gap may return a model worse than
 * w~ = 0: on rows whose norms differ by orders of magnitude the dual moves
 * along the largest rows only, and the primal model w~(alpha) swings from
 * epoch to epoch while D(alpha) stays near 0 (a sample-id column of 1e6,
 * features from 1e-3 to 1e4; docs/stopping.rst). LIBLINEAR's dual solvers
 * stall there too and hand the smooth losses to a primal Newton method.
 *
 * The closing diagnostic has the scores s_i = <w~, x~_i> of the model; the
 * primal objective along the ray t w~, t >= 0, the bias scaled with w when
 * it is learned (B > 0) and kept as a fixed offset o otherwise,
 *
 *     P(t) = lambda/2 t^2 ||w~||^2 + 1/n sum_i c_i loss(y_i, t (s_i - o) + o),
 *
 * is convex in t and costs O(n) per value from those scores, without a pass
 * over the data. Its minimiser t* (regula falsi on the slope P'(t), a
 * subgradient for the piecewise linear losses: common/ray.c) is returned if
 * P(t*) < P(1): as the model t* w~ (SDCA's factor, w = t u) with its scores
 * (one pass over the data: the decision function's, bit for bit) and
 * statistics (objective, gap P(t*) - D(alpha), still a bound on its
 * suboptimality). t = 0 is the zero model: a run stopped on its cap never
 * returns a model above the zero model's objective. The dual variables
 * are not touched: the next train puts w~(alpha) back (ss_sdca_undo_ray),
 * bit for bit, and continues as if no ray had been taken.
 *
 * No ray is taken for a converged run (its gap already certifies the
 * model), nor for a shifted model (sdca_shift.c: the model of CoCoA's
 * local subproblem is not the caller's to rescale).
 *
 * The ray's gap is a certificate like any other: where it meets the run's
 * stop, P(t*) - D(alpha) <= epsilon D(alpha) (the relative gap, SDCA's
 * default rule), the run reports converged, its model being the ray's
 * (ss_svm_get_sdca_model). Raw digits, class 0 against the rest at
 * C = 1e3 with epsilon 1e-10: w~(alpha) and the tail average never met
 * the stop within 3e7 steps, while the ray through w~(alpha) had a
 * relative gap of 3e-15, and the run had reported max_iterations.
 */
#include "svm_internal.h"
#include "../common/loss.h"
#include "../common/ray.h"

#include <math.h>

typedef struct {
  const SsSvm *svm;
  double norm2;  /* ||w~||^2 */
  double offset; /* the fixed bias o (B = 0), else 0 */
} Ray;

/* 1/n sum_i c_i loss(y_i, t (s_i - o) + o) */
static double ray_loss(const Ray *r, double t)
{
  const SsSvm *self = r->svm;
  const int64_t n = self->source.num_data;
  double loss = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double c = self->weights ? self->weights[i] : 1.0;
    if (c > 0)
      loss += c * ss_loss_value(self->loss, &self->custom_loss, t * (self->scores[i] - r->offset) + r->offset,
                                self->labels[i]);
  }
  return loss / (double)n;
}

static double ray_value(const Ray *r, double t)
{
  return 0.5 * r->svm->lambda * t * t * r->norm2 + ray_loss(r, t);
}

static double ray_slope(const void *context, double t)
{
  const Ray *r = context;
  const SsSvm *self = r->svm;
  const int64_t n = self->source.num_data;
  double slope = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double c = self->weights ? self->weights[i] : 1.0;
    const double part = self->scores[i] - r->offset;
    if (c > 0 && part != 0)
      slope += c * part * ss_loss_derivative(self->loss, &self->custom_loss, t * part + r->offset, self->labels[i]);
  }
  return self->lambda * t * r->norm2 + slope / (double)n;
}

void ss_sdca_close_on_ray(SsSvm *self)
{
  SsSdcaRay *ray = &self->ray;
  SsSvmStatistics *st = &self->statistics;
  if (!self->alpha || ray->applied || ray->shifted || !ray->scores_fresh || !self->has_scores ||
      self->factor != 1.0 || st->status != SS_SVM_STATUS_MAX_ITERATIONS)
    return;
  const double B = self->bias_multiplier;
  const double wb = B > 0 ? self->bias / B : 0;
  Ray r = {.svm = self, .norm2 = wb * wb, .offset = B > 0 ? 0 : self->bias};
  for (int64_t k = 0; k < self->dimension; ++k) r.norm2 += self->model[k] * self->model[k];
  if (!(r.norm2 > 0) || !isfinite(r.norm2)) return;
  const double t = ss_ray_minimiser(ray_slope, &r);
  if (!isfinite(t) || t == 1.0) return;
  const double value = ray_value(&r, t);
  if (!(value < ray_value(&r, 1.0))) return;

  ray->applied = true;
  ray->t = t;
  ray->dual_bias = self->bias;
  ray->bias_scaled = B > 0;
  self->factor = t;
  if (B > 0) self->bias *= t;
  ss_svm_realise_model(self);
  /* The scores and statistics of the model returned, from one pass, as a
   * diagnostic computes them (the scores are then the decision function's,
   * bit for bit). */
  ss_source_scores(&self->source, self->model, self->bias, self->scores, self->threads);
  st->regularizer = 0.5 * self->lambda * t * t * r.norm2;
  st->loss = ray_loss(&r, 1.0); /* (the scores are t* w~'s now: the ray's t = 1) */
  st->objective = st->regularizer + st->loss;
  st->duality_gap = st->objective - st->dual_objective;
  if (self->stopping_rule == SS_SVM_STOP_DEFAULT && self->epsilon > 0 &&
      st->duality_gap <= self->epsilon * fmax(st->dual_objective, 0.0))
    st->status = SS_SVM_STATUS_CONVERGED;
}

void ss_sdca_undo_ray(SsSvm *self)
{
  SsSdcaRay *ray = &self->ray;
  /* (a model reset since, e.g. new weights, left factor 1: nothing to undo) */
  if (ray->applied && self->factor == ray->t) {
    self->factor = 1.0;
    if (ray->bias_scaled) self->bias = ray->dual_bias;
    ss_svm_realise_model(self);
  }
  ray->applied = false;
  ray->scores_fresh = false;
}

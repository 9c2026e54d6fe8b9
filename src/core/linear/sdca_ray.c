/* sdca_ray.c -- SDCA's ray step: a dual line search along alpha -> s alpha
 * (issue 17; docs/stopping.rst, "SDCA on unscaled features").
 *
 * SDCA's model is linear in its dual variables, w~(alpha) = 1/(lambda n)
 * sum_i alpha_i x~_i, so along the ray s alpha (s >= 0) the model is
 * s w~(alpha) and the dual is a function of s alone:
 *
 *     D(s alpha) = -lambda/2 s^2 N + 1/n sum_i c_i g_i(s) - s O,
 *
 * N = ||w~(alpha)||^2, g_i(s) = -loss*(-s alpha_i / c_i, y_i), O = b/n
 * sum_i alpha_i with b the fixed bias of B = 0 (0 otherwise). With
 * beta_i = y_i alpha_i / c_i:
 *
 *     hinge     c_i g_i = s c_i beta_i,                     s beta_i <= 1
 *     hinge2    c_i g_i = s c_i beta_i - s^2 c_i beta_i^2 / 4
 *     l1        c_i g_i = s y_i alpha_i,                    s |alpha_i / c_i| <= 1
 *     l2        c_i g_i = s y_i alpha_i - s^2 alpha_i^2 / (4 c_i)
 *     logistic  c_i g_i = c_i H(s beta_i),  H(p) = -p log p - (1 - p) log(1 - p)
 *
 * D is concave in s: a quadratic (its maximiser in closed form, clipped to
 * the box) or, for the logistic loss, strictly concave with D' going from
 * +inf at s = 0+ to -inf at s = 1 / max beta_i (a safeguarded Newton
 * solve). Each s alpha is dual feasible, so moving to the maximiser is a
 * genuine ascent step: D never decreases and w~ = w~(alpha) still holds.
 *
 * Why: the coordinate steps change one alpha_i at a time, each by at most
 * about (1 - y_i s_i) / (C ||x_i||^2). When one column dwarfs the others (a
 * sample id of 1e6 in LIBSVM's breast-cancer) every row points almost the
 * same way, the coordinate steps fight over that one direction, and the
 * overall size of alpha, the direction the ray moves along, grows by a few
 * percent per epoch: measured, 3e4 times too small after the first epoch
 * there. The ray step corrects the size in one move; the coordinate steps
 * keep the direction.
 *
 * The ray step raises D, but it can raise P(w~(alpha)) too: taken from the
 * first epochs, it sent ordinary runs far above the zero model's objective
 * (digits, 0-4 against 5-9, at C = 1e3: 1.24x to 87x the optimum) and
 * scikit-learn's raw breast_cancer from 2.0x to 31x; taken only while the
 * model is worse than the zero model, it still spoiled digits at C = 1 and
 * 1e3 (bench/sdca_ray.py, bench/results/sdca_ray.md). So it is a narrow
 * rescue:
 *
 * When: at the end of the epochs 1, 2, 3, 4, 6, 9, 13, 19, ..., 94, 141,
 * ... of the object's life (each the last times 1.5, rounded down, at
 * least one more; a function of t only, so a run split into calls takes
 * the same steps) from SS_SDCA_RAY_FIRST_EPOCH on, if the model is worse
 * than not training, P(w~) > P(0), and alpha is SS_SDCA_RAY_MIN_SCALE
 * times too small or more (and the step raises D by more than
 * SS_SDCA_RAY_MIN_GAIN D). Any other run is not touched, bit for bit.
 * Cost: O(n + d) per scheduled epoch (a few passes over alpha for the
 * logistic loss' Newton solve), plus one serial pass over the data (the P
 * test) when the step would move; O(log E) in a run of E epochs, none in a
 * run of 140 epochs or fewer. Not with a custom loss, nor on a shifted
 * model (sdca_shift.c: w~ is no longer w~(alpha), and the ray of alpha is
 * not a ray of the model).
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <math.h>

/** The smallest gain worth a step, relative to D: below SDCA's default
 *  tolerance's share, a step could not change when the gap test fires,
 *  and each step resets shrinking. */
#define SS_SDCA_RAY_MIN_GAIN 1e-3
/** The smallest step taken: alpha at least this many times too small.
 *  Measured (bench/results/sdca_ray.md), the steps that rescued runs on
 *  LIBSVM's breast-cancer had s = 4e3 to 5e4; those that spoiled ordinary
 *  runs (digits at C = 1 and 1e3, above P(0) at epoch 316) s = 19 to 96. */
#define SS_SDCA_RAY_MIN_SCALE 1e3
/** The first epoch that may take a step: after the solvers' ordinary cap
 *  (SS_SVM_DEFAULT_EPOCHS), so that a run of that cap is never touched. */
#define SS_SDCA_RAY_FIRST_EPOCH SS_SVM_DEFAULT_EPOCHS
/** The logistic loss' Newton solve: iterations at most, and the relative
 *  step at which it stops. */
#define SS_SDCA_RAY_NEWTON_ITERATIONS 60
#define SS_SDCA_RAY_NEWTON_TOLERANCE 1e-12

bool ss_sdca_ray_epoch(int64_t epoch)
{
  if (epoch < SS_SDCA_RAY_FIRST_EPOCH) return false;
  for (int64_t e = 1; e <= epoch;) {
    if (e == epoch) return true;
    const int64_t next = e + e / 2;
    e = next > e ? next : e + 1;
  }
  return false;
}

/* D along the ray, D(s) = [logistic sum] + s linear - s^2 (quadratic +
 * lambda N / 2) up to a constant, and the largest s of the box (INFINITY:
 * none). */
typedef struct {
  double linear, quadratic, s_max;
} RayQuadratic;

static RayQuadratic quadratic_terms(const SsSvm *self, double offset)
{
  const int64_t n = self->source.num_data;
  const SsLoss loss = self->loss;
  RayQuadratic q = {0, 0, INFINITY};
  double bound = 0; /* max of beta_i (hinge) or |alpha_i / c_i| (l1) */
  for (int64_t i = 0; i < n; ++i) {
    const double c = self->weights ? self->weights[i] : 1.0;
    if (!(c > 0)) continue;
    const double a = self->alpha[i], y = self->labels[i];
    q.linear += y * a - a * offset;
    if (loss == SS_LOSS_HINGE2 || loss == SS_LOSS_L2) q.quadratic += a * a / (4 * c);
    else bound = fmax(bound, loss == SS_LOSS_L1 ? fabs(a) / c : y * a / c);
  }
  if ((loss == SS_LOSS_HINGE || loss == SS_LOSS_L1) && bound > 0) q.s_max = 1 / bound;
  q.linear /= (double)n;
  q.quadratic /= (double)n;
  return q;
}

/* The logistic loss: c_i H(s beta_i) summed, and its first two derivatives
 * in s. */
static void logistic_terms(const SsSvm *self, double s, double *value, double *d1, double *d2)
{
  const int64_t n = self->source.num_data;
  double v = 0, g = 0, h = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double c = self->weights ? self->weights[i] : 1.0;
    const double beta = self->labels[i] * self->alpha[i] / c;
    if (!(c > 0) || beta <= 0) continue;
    const double p = s * beta, q = 1 - p;
    v += c * (-p * log(p) - (q > 0 ? q * log(q) : 0));
    g += c * beta * log(q / p);
    h -= c * beta * beta / (p * q);
  }
  *value = v / (double)n;
  *d1 = g / (double)n;
  *d2 = h / (double)n;
}

/* The maximiser of D(s alpha) for the logistic loss, given lambda N and
 * the offset term; s_max = 1 / max beta_i. */
static double logistic_maximiser(const SsSvm *self, double lambda_norm2, double offset_sum,
                                 double s_max)
{
  double lo = 0, hi = s_max, s = fmin(1.0, 0.5 * s_max);
  for (int k = 0; k < SS_SDCA_RAY_NEWTON_ITERATIONS; ++k) {
    double value, d1, d2;
    logistic_terms(self, s, &value, &d1, &d2);
    const double slope = d1 - lambda_norm2 * s - offset_sum;
    const double curvature = d2 - lambda_norm2;
    if (slope > 0) lo = s;
    else hi = s;
    double next = s - slope / curvature;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi); /* bisection */
    const bool done = fabs(next - s) <= SS_SDCA_RAY_NEWTON_TOLERANCE * s;
    s = next;
    if (done) break;
  }
  return s;
}

/* D(s alpha) up to the terms that do not depend on s: the logistic sum,
 * if any, plus s linear - s^2 (quadratic + lambda N / 2). */
static double ray_dual(const SsSvm *self, double s, double lambda_norm2, const RayQuadratic *q)
{
  double value = 0;
  if (self->loss == SS_LOSS_LOGISTIC) {
    double d1, d2;
    logistic_terms(self, s, &value, &d1, &d2);
  }
  return value + s * q->linear - s * s * (q->quadratic + 0.5 * lambda_norm2);
}

/* Whether P(w~) > P(0): the model is worse than not training. One serial
 * pass over the data (the same for any thread count). */
static bool worse_than_zero(const SsSvm *self, double lambda_norm2)
{
  const int64_t n = self->source.num_data;
  double loss = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double c = self->weights ? self->weights[i] : 1.0;
    if (!(c > 0)) continue;
    const double z = ss_source_inner_product(&self->source, i, self->u) + self->bias;
    loss += c * ss_loss_value(self->loss, NULL, z, self->labels[i]);
  }
  return loss / (double)n + 0.5 * lambda_norm2 > ss_svm_zero_objective(self);
}

bool ss_sdca_ray_step(SsSvm *self, bool rescue_only)
{
  const SsLoss loss = self->loss;
  if (!self->alpha || self->sdca_ray_off || self->sdca_shifted || loss == SS_LOSS_CUSTOM)
    return false;
  const int64_t n = self->source.num_data;
  const double B = self->bias_multiplier;
  double norm2 = 0; /* (SDCA's factor is 1: w~ = (u, b / B)) */
  for (int64_t k = 0; k < self->dimension; ++k) norm2 += self->u[k] * self->u[k];
  if (B > 0) norm2 += (self->bias / B) * (self->bias / B);
  const double lambda_norm2 = self->lambda * norm2;
  if (!(lambda_norm2 > 0) || !isfinite(lambda_norm2)) return false;
  const double offset = B > 0 ? 0 : self->bias;

  RayQuadratic q = {0, 0, INFINITY};
  double s;
  if (loss == SS_LOSS_LOGISTIC) {
    double beta_max = 0, alpha_sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double c = self->weights ? self->weights[i] : 1.0;
      if (!(c > 0)) continue;
      beta_max = fmax(beta_max, self->labels[i] * self->alpha[i] / c);
      alpha_sum += self->alpha[i];
    }
    if (!(beta_max > 0)) return false;
    q.s_max = 1 / beta_max;
    q.linear = -offset * alpha_sum / (double)n; /* the fixed bias' term */
    s = logistic_maximiser(self, lambda_norm2, -q.linear, q.s_max);
  } else {
    q = quadratic_terms(self, offset);
    s = q.linear / (2 * q.quadratic + lambda_norm2);
    s = fmin(fmax(s, 0.0), q.s_max);
  }
  if (!(s >= 0) || !isfinite(s) || s == 1) return false;
  if (rescue_only && !(s >= SS_SDCA_RAY_MIN_SCALE)) return false;
  const double before = ray_dual(self, 1, lambda_norm2, &q);
  const double after = ray_dual(self, s, lambda_norm2, &q);
  if (!(after - before > SS_SDCA_RAY_MIN_GAIN * fabs(before))) return false;
  if (rescue_only && !worse_than_zero(self, lambda_norm2)) return false;

  /* alpha <- s alpha, kept in its box against rounding; w~ <- s w~ */
  const bool boxed = loss == SS_LOSS_HINGE || loss == SS_LOSS_LOGISTIC || loss == SS_LOSS_L1;
  for (int64_t i = 0; i < n; ++i) {
    double a = s * self->alpha[i];
    if (boxed) {
      const double c = self->weights ? self->weights[i] : 1.0;
      a = fmin(fmax(a, -c), c);
    }
    self->alpha[i] = a;
  }
  for (int64_t k = 0; k < self->dimension; ++k) self->u[k] *= s;
  if (B > 0) self->bias *= s;
  ss_svm_realise_model(self);
  return true;
}

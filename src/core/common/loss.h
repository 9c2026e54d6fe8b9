/* loss.h -- value and derivative of the losses, inline for the solvers'
 * inner loops. Formulas and conventions: svm.h (SsLoss) and loss.c. */
#ifndef STOCHSVM_LOSS_H
#define STOCHSVM_LOSS_H

#include "internal.h"

/* log(1 + exp(-z)): for z > 0 write it as log1p(exp(-z)); for z <= 0 as
 * -z + log1p(exp(z)), so exp never overflows. */
static inline double ss_logistic_loss(double z)
{
  return z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
}

/* 1 / (1 + exp(z)), the logistic derivative's magnitude, without overflow. */
static inline double ss_logistic_weight(double z)
{
  if (z > 0) {
    double e = exp(-z);
    return e / (1 + e);
  }
  return 1 / (1 + exp(z));
}

/* loss(y, s); a custom loss is called through its functions. */
static inline double ss_loss_value(SsLoss loss, const SsLossFunctions *custom, double s, double y)
{
  double z = y * s;
  switch (loss) {
    case SS_LOSS_HINGE: return z < 1 ? 1 - z : 0;
    case SS_LOSS_HINGE2: return z < 1 ? (1 - z) * (1 - z) : 0;
    case SS_LOSS_LOGISTIC: return ss_logistic_loss(z);
    case SS_LOSS_L1: return fabs(y - s);
    case SS_LOSS_L2: return (y - s) * (y - s);
    case SS_LOSS_CUSTOM: break;
  }
  return custom->value(s, y, custom->context);
}

/* d loss(y, s) / d s; at a kink, one subgradient (hinge: 0 at z = 1;
 * l1: +1 at s = y). */
static inline double ss_loss_derivative(SsLoss loss, const SsLossFunctions *custom, double s, double y)
{
  double z = y * s;
  switch (loss) {
    case SS_LOSS_HINGE: return z < 1 ? -y : 0;
    case SS_LOSS_HINGE2: return z < 1 ? -2 * y * (1 - z) : 0;
    case SS_LOSS_LOGISTIC: return -y * ss_logistic_weight(z);
    case SS_LOSS_L1: return y > s ? -1.0 : 1.0;
    case SS_LOSS_L2: return 2 * (s - y);
    case SS_LOSS_CUSTOM: break;
  }
  return custom->derivative(s, y, custom->context);
}

/* sigmoid(z) = 1 / (1 + exp(-z)). exp(-|z|) <= 1 never overflows; the
 * select is branch-free (z's sign is unpredictable in SDCA's coordinate
 * steps: a9a, 30 epochs, 1.38M mispredicted branches in the step with ifs,
 * 0.54M with selects). */
static inline double ss_sigmoid(double z)
{
  const double e = exp(-fabs(z));
  return (z >= 0 ? 1.0 : e) / (1 + e);
}

/** The Halley step that ends the logistic coordinate step's search. */
#define SS_LOGISTIC_LAST_STEP 1e-2

/* sigmoid(r - d) to second order from sig = sigmoid(r), with sigmoid' = d1
 * = sig (1 - sig) and sigmoid'' = d1 (1 - 2 sig). */
static inline double ss_logistic_taylor(double sig, double d1, double d)
{
  return sig - d1 * d * (1 - 0.5 * (1 - 2 * sig) * d);
}

/* The logistic coordinate step (ss_logistic_dual_update, below, has the
 * math; ss_logistic_dual_update_at_score its first Halley iteration): the
 * safeguarded iterations that follow when that does not end it. With beta =
 * sigmoid(r), h(r) = A (sigmoid(r) - beta0) + y s + r = 0 is solved by
 * Halley's method (h'' = A sigmoid (1 - sigmoid)(1 - 2 sigmoid) comes free;
 * about 3 steps where Newton's took 4 to 7) from r inside the bracket
 * [lo, hi] of the root; a step that leaves the bracket is replaced by
 * bisection. Working on the logit keeps beta accurate near 0 and 1
 * (VLFeat's update returned 0 there). A step of at most
 * SS_LOGISTIC_LAST_STEP ends the search with the Taylor finish (loss.h). */
static inline double ss_logistic_dual_search(double alpha, double s, double A, double y, double r, double lo,
                                             double hi)
{
  const double beta0 = y * alpha;
  for (int k = 0; k < 200; ++k) {
    if (hi - lo <= 1e-15 * (1 + fabs(r))) break;
    const double sig = ss_sigmoid(r);
    const double h = A * (sig - beta0) + y * s + r;
    if (h == 0) return y * sig - alpha;
    hi = h > 0 ? r : hi; /* (selects: h's sign is unpredictable) */
    lo = h < 0 ? r : lo;
    const double d1 = sig * (1 - sig), v = A * d1, h1 = v + 1, h2 = v * (1 - 2 * sig);
    const double step = 2 * h * h1 / (2 * h1 * h1 - h * h2), next = r - step;
    if (!(next > lo && next < hi)) {
      r = 0.5 * (lo + hi);
    } else if (fabs(step) <= SS_LOGISTIC_LAST_STEP) {
      return y * ss_logistic_taylor(sig, d1, step) - alpha;
    } else {
      r = next;
    }
  }
  return y * ss_sigmoid(r) - alpha;
}


/* SDCA's logistic step: the unweighted delta (alpha' = alpha + delta) that
 * maximises the one-dimensional dual (loss.c), with beta = y alpha' =
 * sigmoid(r) the root of
 *
 *     h(r) = A (sigmoid(r) - beta0) + y s + r = 0,     beta0 = y alpha in [0, 1].
 *
 * h' = A sigmoid(r)(1 - sigmoid(r)) + 1 >= 1: h increases, with a unique
 * root in [-y s - A (1 - beta0), -y s + A beta0]. The search starts at
 * r0 = -y s, the root once the run has converged (beta0 = sigmoid(-y s)
 * there), where h(r0) = A (sigmoid(r0) - beta0) costs the one exponential
 * of sigmoid(r0). Its first Halley step d is inlined here: when |d| <=
 * SS_LOGISTIC_LAST_STEP (late in a run, almost every visit) it is the last,
 * and beta = sigmoid(r0 - d) comes from the second-order Taylor expansion
 * around r0 instead of one more exponential. Halley's error after the step
 * is at most about |d|^3 / 2 (its constant |h''^2 / (4 h'^2) - h''' / (6
 * h')| is <= 1/2 here, as v / (1 + v) < 1 for v = A sigmoid'), the Taylor
 * remainder at most sigmoid' |d|^3 / 6 (|sigmoid'''| <= sigmoid'), so beta
 * is within about sigmoid' |d|^3 of the coordinate maximiser: an error of
 * d^2 <= 1e-4 relative to the move (about sigmoid' |d|), which shrinks to 0
 * as the run converges. The error is relative to sigmoid' = sigmoid (1 -
 * sigmoid), so beta stays in (0, 1) and accurate near 0 and 1. Otherwise
 * the safeguarded search goes on (above) from r0 - d, or from the
 * bracket's midpoint when r0 - d leaves it. */
static inline double ss_logistic_dual_update_at_score(double alpha, double s, double A, double y)
{
  const double beta0 = y * alpha, r = -y * s;
  const double sig = ss_sigmoid(r);
  const double g = sig - beta0, d1 = sig * (1 - sig);
  if (g == 0) return y * sig - alpha;
  const double v = A * d1, h = A * g, h1 = v + 1, h2 = v * (1 - 2 * sig);
  const double step = 2 * h * h1 / (2 * h1 * h1 - h * h2), next = r - step;
  /* the bracket after h(r0): [r0, hi] where h < 0, [lo, r0] where h > 0 */
  const double lo = h < 0 ? r : r - A * (1 - beta0), hi = h > 0 ? r : r + A * beta0;
  const bool inside = next > lo && next < hi;
  if (inside && fabs(step) <= SS_LOGISTIC_LAST_STEP) return y * ss_logistic_taylor(sig, d1, step) - alpha;
  return ss_logistic_dual_search(alpha, s, A, y, inside ? next : 0.5 * (lo + hi), lo, hi);
}

/* SDCA's logistic step from the present dual variable. Where beta0 is in
 * (0, 1) (every visit after an example's first, unless it rounded to 0 or
 * 1) the search starts at r0 = logit(beta0) instead of -y s: there h(r0) =
 * y s + r0 needs no exponential, and everything else the step needs is known
 * before the score, so it is computed while the score's dot product runs.
 * Late in a run SDCA's time goes to the chain score -> step -> model update
 * -> next score (the next row's dot product reads what the update writes);
 * sigmoid(-y s) put an exponential and two divisions on that chain, this
 * step a few multiplications. With d0 = sigmoid'(r0) = beta0 (1 - beta0) and
 * v = A d0, the derivatives at r0 are h' = 1 + v, h'' = v (1 - 2 beta0) and
 * h''' = v (1 - 6 d0) (sigmoid''' = sigmoid' (1 - 6 sigmoid')). Inverting
 * the cubic Taylor expansion h + h' d + h'' d^2/2 + h''' d^3/6 = 0 as a
 * series in q = h / h' gives the step
 *
 *     d = -q (1 + q (c2 + q (2 c2^2 - c3))),   c2 = h''/(2 h'),  c3 = h'''/(6 h'),
 *
 * whose error is O(q^4): its q^4 coefficient, 5 c2^3 - 5 c2 c3 + c4 (c4 =
 * h''''/(24 h')), is below 1.1 in size, as |c2| < 1/2, |c3| <= 1/6 and
 * |c4| <= 1/24 here (every derivative of sigmoid is at most sigmoid' in
 * size up to the fourth, and v / (1 + v) < 1). Then beta = sigmoid(r0 + d)
 * by its cubic Taylor expansion about r0, whose remainder is at most
 * sigmoid' d^4 / 24. So when |d| <= SS_LOGISTIC_CHAIN_STEP beta is within
 * about 1.2 sigmoid' |d|^4 of the maximiser: 1.2 |d|^3 <= 1.5e-4 relative to
 * the move (about sigmoid' |d|), as accurate as the Halley finish of
 * ss_logistic_dual_update_at_score (1e-4), with five times its step; that
 * search takes over otherwise (on a9a, lambda = 1/n, 40 epochs: at about a
 * quarter of the visits, the first epoch's included; 0.26 million of 1.3
 * million went on to the search's second Halley step). beta stays in (0, 1):
 * |d0 d (1 + ...)| < min(beta0, 1 - beta0). */
#define SS_LOGISTIC_CHAIN_STEP 5e-2

static inline double ss_logistic_dual_update(double alpha, double s, double A, double y)
{
  const double beta0 = y * alpha;
  if (beta0 > 0 && beta0 < 1) {
    const double r0 = log(beta0 / (1 - beta0)), d0 = beta0 * (1 - beta0), v = A * d0;
    const double inverse = 1 / (1 + v), c2 = 0.5 * v * (1 - 2 * beta0) * inverse;
    const double c3 = v * (1 - 6 * d0) * inverse / 6, c2c3 = 2 * c2 * c2 - c3;
    const double s2 = 0.5 * (1 - 2 * beta0), s3 = (1 - 6 * d0) / 6; /* sigmoid's Taylor terms / d0 */
    const double h = y * s + r0, q = h * inverse, d = -q * (1 + q * (c2 + q * c2c3));
    if (fabs(d) <= SS_LOGISTIC_CHAIN_STEP) return y * (beta0 + d0 * d * (1 + d * (s2 + d * s3))) - alpha;
  }
  return ss_logistic_dual_update_at_score(alpha, s, A, y);
}

/* The dual box of the hinge and l1 losses, written once, for an example of
 * weight c and label y: the hinge's beta = y alpha lies in [0, c]
 * (ss_hinge_beta_max; SDCA's step below, with c = 1, and its shrinking,
 * sdca_steps_t.h, work in beta), so alpha in [min(0, c y), max(0, c y)];
 * the l1's alpha in [-c, c] (loss.c's l1 step, c = 1). ss_dual_box gives
 * the box of alpha (the finish's dual ascent, hinge_dual.c). */
static inline double ss_hinge_beta_max(double c)
{
  return c;
}

static inline void ss_dual_box(SsLoss loss, double c, double y, double *lo, double *hi)
{
  if (loss == SS_LOSS_HINGE) {
    const double end = y * ss_hinge_beta_max(c);
    *lo = fmin(0.0, end);
    *hi = fmax(0.0, end);
  } else {
    *lo = -c;
    *hi = c;
  }
}

/* SDCA's hinge step (loss.c): y a' = y (alpha + (y - s)/A) clipped to the
 * box [0, 1] of unit weight. */
static inline double ss_hinge_dual_update(double alpha, double s, double A, double y)
{
  double beta = y * (alpha + (y - s) / A);
  beta = beta < 0 ? 0 : (beta > ss_hinge_beta_max(1) ? ss_hinge_beta_max(1) : beta);
  return y * beta - alpha;
}

#endif /* STOCHSVM_LOSS_H */

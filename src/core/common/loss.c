/* loss.c -- the loss family: value, derivative, convex conjugate and SDCA's
 * coordinate update for each built-in loss (formulas in svm.h, SsLoss).
 *
 * SDCA's update for example i maximises over delta the one-dimensional dual
 *
 *     -s delta - A/2 delta^2 - loss*(-(alpha + delta), y),    A = c_i ||x~_i||^2 / (lambda n),
 *
 * s being the present score. Closed forms, with a' = alpha + delta:
 *   hinge     delta = (y - s)/A, then y a' clipped to [0, 1]
 *   hinge2    delta = (y - s - alpha/2)/(A + 1/2), then y a' >= 0
 *   l1        delta = (y - s)/A, then a' clipped to [-1, 1]
 *   l2        delta = (y - s - alpha/2)/(A + 1/2)
 *   logistic  with beta = y a' in (0, 1): the root of
 *             A (beta - y alpha) + y s + log(beta / (1 - beta)) = 0,
 *             found by a safeguarded Halley method on the logit of beta.
 */
#include "internal.h"
#include "loss.h"

bool ss_loss_is_valid(int loss)
{
  return loss == SS_LOSS_HINGE || loss == SS_LOSS_HINGE2 || loss == SS_LOSS_LOGISTIC ||
         loss == SS_LOSS_L1 || loss == SS_LOSS_L2;
}

bool ss_loss_needs_binary_labels(SsLoss loss, const SsLossFunctions *custom)
{
  if (loss == SS_LOSS_CUSTOM) return custom->binary_labels != 0;
  return loss == SS_LOSS_HINGE || loss == SS_LOSS_HINGE2 || loss == SS_LOSS_LOGISTIC;
}

/* x log x, continuous at 0. */
static double xlogx(double x)
{
  return x > 0 ? x * log(x) : 0.0;
}

double ss_loss_conjugate(SsLoss loss, const SsLossFunctions *custom, double u, double y)
{
  double v = y * u;
  switch (loss) {
    case SS_LOSS_HINGE: return (v >= -1 && v <= 0) ? v : INFINITY;
    case SS_LOSS_HINGE2: return v <= 0 ? v + 0.25 * u * u : INFINITY;
    case SS_LOSS_LOGISTIC: return (v >= -1 && v <= 0) ? xlogx(-v) + xlogx(1 + v) : INFINITY;
    case SS_LOSS_L1: return fabs(u) <= 1 ? y * u : INFINITY;
    case SS_LOSS_L2: return y * u + 0.25 * u * u;
    case SS_LOSS_CUSTOM: break;
  }
  return custom->conjugate(u, y, custom->context);
}

static double clip(double x, double lo, double hi)
{
  return x < lo ? lo : (x > hi ? hi : x);
}

static double sigmoid(double z)
{
  /* exp(-|z|) <= 1 never overflows; the select is branch-free (z's sign
   * is unpredictable in SDCA's coordinate steps: a9a, 30 epochs, 1.38M
   * mispredicted branches in the step with ifs, 0.54M with selects). */
  const double e = exp(-fabs(z));
  return (z >= 0 ? 1.0 : e) / (1 + e);
}

/* The logistic coordinate step. With beta = sigmoid(r), solve
 *     h(r) = A (sigmoid(r) - beta0) + y s + r = 0,     beta0 = y alpha,
 * h' = A sigmoid(r)(1 - sigmoid(r)) + 1 >= 1, so h is increasing with a
 * unique root in [-y s - A (1 - beta0), -y s + A beta0]. It is found by
 * Halley's method (h'' = A sigmoid (1 - sigmoid)(1 - 2 sigmoid) comes free;
 * about 3 steps where Newton's took 4 to 7), a step that leaves the bracket
 * being replaced by bisection. Working on the logit keeps beta accurate near
 * 0 and 1 (VLFeat's update returned 0 there).
 *
 * The cost is the exponentials, one per sigmoid. The start r = -y s is the
 * root once the run has converged (beta0 = sigmoid(-y s) there), so late in
 * a run the first Halley step is short. A step d with |d| <=
 * SS_LOGISTIC_LAST_STEP is the last, and beta = sigmoid(r - d) comes from
 * the second-order Taylor expansion around r instead of one more
 * exponential. Halley's error after the step is at most about |d|^3 / 2
 * (its constant |h''^2 / (4 h'^2) - h''' / (6 h')| is <= 1/2 here, as
 * v / (1 + v) < 1 for v = A sigmoid'), the Taylor remainder at most
 * sigmoid' |d|^3 / 6 (|sigmoid'''| <= sigmoid'), so beta is within about
 * sigmoid' |d|^3 of the coordinate maximiser: an error of d^2 <= 1e-4
 * relative to the move (about sigmoid' |d|), which shrinks to 0 as the run
 * converges. The error is relative to sigmoid' = sigmoid (1 - sigmoid), so
 * beta stays in (0, 1) and accurate near 0 and 1. A late visit costs one
 * exponential where it cost two or three (30 epochs of SDCA on a9a, w8a and
 * ijcnn1: 11-17 % fewer instructions, 0.67-0.87x the time). */
#define SS_LOGISTIC_LAST_STEP 1e-2

static double logistic_coordinate_step(double alpha, double s, double A, double y)
{
  const double beta0 = y * alpha;
  double lo = -y * s - A * (1 - beta0), hi = -y * s + A * beta0;
  double r = clip(-y * s, lo, hi);
  for (int k = 0; k < 200; ++k) {
    const double sig = sigmoid(r);
    const double h = A * (sig - beta0) + y * s + r;
    if (h == 0) return y * sig - alpha;
    hi = h > 0 ? r : hi; /* (selects: h's sign is unpredictable) */
    lo = h < 0 ? r : lo;
    const double d1 = sig * (1 - sig), v = A * d1, h1 = v + 1, h2 = v * (1 - 2 * sig);
    const double step = 2 * h * h1 / (2 * h1 * h1 - h * h2), next = r - step;
    if (!(next > lo && next < hi)) {
      r = 0.5 * (lo + hi);
    } else if (fabs(step) <= SS_LOGISTIC_LAST_STEP) {
      /* sigmoid(r - step), with sigmoid' = d1 and sigmoid'' = d1 (1 - 2 sig) */
      return y * (sig - d1 * step * (1 - 0.5 * (1 - 2 * sig) * step)) - alpha;
    } else {
      r = next;
    }
    if (hi - lo <= 1e-15 * (1 + fabs(r))) break;
  }
  return y * sigmoid(r) - alpha;
}

double ss_loss_dual_update(SsLoss loss, const SsLossFunctions *custom, double alpha, double s,
                           double A, double y)
{
  switch (loss) {
    case SS_LOSS_HINGE: return ss_hinge_dual_update(alpha, s, A, y);
    case SS_LOSS_HINGE2: {
      double a = alpha + (y - s - 0.5 * alpha) / (A + 0.5);
      return y * fmax(0, y * a) - alpha;
    }
    case SS_LOSS_L1: return clip(alpha + (y - s) / A, -1, 1) - alpha;
    case SS_LOSS_L2: return (y - s - 0.5 * alpha) / (A + 0.5);
    case SS_LOSS_LOGISTIC: return logistic_coordinate_step(alpha, s, A, y);
    case SS_LOSS_CUSTOM: break;
  }
  return custom->dual_update(alpha, s, A, y, custom->context);
}

/* A bound on d^2 loss / d s^2 times ||x||^2 over rows of squared norm <= R^2:
 * 2 R^2 for the squared losses, R^2/4 for the logistic loss (sigma(1 - sigma)
 * <= 1/4), 0 for the piecewise linear ones. Unknown for a custom loss: 0. */
double ss_loss_curvature_bound(SsLoss loss, double max_squared_norm)
{
  switch (loss) {
    case SS_LOSS_HINGE2:
    case SS_LOSS_L2: return 2 * max_squared_norm;
    case SS_LOSS_LOGISTIC: return 0.25 * max_squared_norm;
    default: return 0;
  }
}

/* ------------------------------------------------------------------------ */
/*                 The built-in losses as SsLossFunctions                   */
/* ------------------------------------------------------------------------ */

#define SS_BUILTIN_LOSS(name, kind)                                                        \
  static double name##_value(double s, double y, void *context)                            \
  {                                                                                        \
    (void)context;                                                                         \
    return ss_loss_value(kind, NULL, s, y);                                                \
  }                                                                                        \
  static double name##_derivative(double s, double y, void *context)                       \
  {                                                                                        \
    (void)context;                                                                         \
    return ss_loss_derivative(kind, NULL, s, y);                                           \
  }                                                                                        \
  static double name##_conjugate(double u, double y, void *context)                        \
  {                                                                                        \
    (void)context;                                                                         \
    return ss_loss_conjugate(kind, NULL, u, y);                                            \
  }                                                                                        \
  static double name##_dual_update(double alpha, double s, double A, double y, void *context) \
  {                                                                                        \
    (void)context;                                                                         \
    return ss_loss_dual_update(kind, NULL, alpha, s, A, y);                                \
  }

SS_BUILTIN_LOSS(hinge, SS_LOSS_HINGE)
SS_BUILTIN_LOSS(hinge2, SS_LOSS_HINGE2)
SS_BUILTIN_LOSS(logistic, SS_LOSS_LOGISTIC)
SS_BUILTIN_LOSS(l1, SS_LOSS_L1)
SS_BUILTIN_LOSS(l2, SS_LOSS_L2)

#define SS_LOSS_TABLE(name, binary) \
  (SsLossFunctions){name##_value, name##_derivative, name##_conjugate, name##_dual_update, NULL, binary}

SsStatus ss_loss_functions(SsLoss loss, SsLossFunctions *functions)
{
  if (!functions) return SS_ERR_BAD_ARG;
  switch (loss) {
    case SS_LOSS_HINGE: *functions = SS_LOSS_TABLE(hinge, 1); return SS_OK;
    case SS_LOSS_HINGE2: *functions = SS_LOSS_TABLE(hinge2, 1); return SS_OK;
    case SS_LOSS_LOGISTIC: *functions = SS_LOSS_TABLE(logistic, 1); return SS_OK;
    case SS_LOSS_L1: *functions = SS_LOSS_TABLE(l1, 0); return SS_OK;
    case SS_LOSS_L2: *functions = SS_LOSS_TABLE(l2, 0); return SS_OK;
    case SS_LOSS_CUSTOM: break;
  }
  return SS_ERR_BAD_ARG;
}

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
 *             found on the logit of beta by a series step from logit(y alpha)
 *             or a safeguarded Halley search (loss.h, ss_logistic_dual_update).
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

double ss_loss_dual_update(SsLoss loss, const SsLossFunctions *custom, double alpha, double s,
                           double A, double y)
{
  switch (loss) {
    case SS_LOSS_HINGE: return ss_hinge_dual_update(alpha, s, A, y);
    case SS_LOSS_HINGE2: {
      double a = alpha + (y - s - 0.5 * alpha) / (A + 0.5);
      return y * fmax(0, y * a) - alpha;
    }
    case SS_LOSS_L1: {
      double lo, hi; /* [-1, 1] */
      ss_dual_box(SS_LOSS_L1, 1.0, y, &lo, &hi);
      return clip(alpha + (y - s) / A, lo, hi) - alpha;
    }
    case SS_LOSS_L2: return (y - s - 0.5 * alpha) / (A + 0.5);
    case SS_LOSS_LOGISTIC: return ss_logistic_dual_update(alpha, s, A, y);
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

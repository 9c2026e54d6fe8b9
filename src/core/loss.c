/* loss.c -- the built-in losses as functions of the score s and the label y,
 * with margin z = y s:
 *
 *   hinge          max(0, 1 - z)             d/ds = -y          if z < 1, else 0
 *   squared hinge  max(0, 1 - z)^2           d/ds = -2 y (1 - z) if z < 1, else 0
 *   logistic       log(1 + exp(-z))          d/ds = -y / (1 + exp(z))
 *
 * The squared hinge carries no factor 1/2 (as VLFeat and LIBLINEAR's L2-loss
 * SVM). The logistic loss is evaluated without overflow for any z.
 */
#include "internal.h"

bool ss_loss_is_valid(int loss)
{
  return loss == SS_LOSS_HINGE || loss == SS_LOSS_HINGE2 || loss == SS_LOSS_LOGISTIC;
}

bool ss_loss_needs_binary_labels(SsLoss loss)
{
  return loss == SS_LOSS_HINGE || loss == SS_LOSS_HINGE2 || loss == SS_LOSS_LOGISTIC;
}

/* A bound on d^2 loss / d s^2 times ||x||^2 over rows of squared norm <= R^2:
 * 2 R^2 for the squared hinge, R^2/4 for the logistic loss (sigma(1 - sigma)
 * <= 1/4), 0 for the hinge loss (piecewise linear). */
double ss_loss_curvature_bound(SsLoss loss, double max_squared_norm)
{
  switch (loss) {
    case SS_LOSS_HINGE: return 0;
    case SS_LOSS_HINGE2: return 2 * max_squared_norm;
    case SS_LOSS_LOGISTIC: return 0.25 * max_squared_norm;
  }
  return 0;
}

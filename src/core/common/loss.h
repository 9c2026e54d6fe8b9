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

/* SDCA's hinge step (loss.c): y a' = y (alpha + (y - s)/A) clipped to [0, 1]. */
static inline double ss_hinge_dual_update(double alpha, double s, double A, double y)
{
  double beta = y * (alpha + (y - s) / A);
  beta = beta < 0 ? 0 : (beta > 1 ? 1 : beta);
  return y * beta - alpha;
}

#endif /* STOCHSVM_LOSS_H */

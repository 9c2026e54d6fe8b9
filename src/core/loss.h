/* loss.h -- the built-in losses, inline for the solvers' inner loops.
 * Formulas and conventions are documented in loss.c and svm.h. */
#ifndef STOCHSVM_LOSS_H
#define STOCHSVM_LOSS_H

#include "internal.h"

/* log(1 + exp(-z)): for z > 0 write it as log1p(exp(-z)); for z <= 0 as
 * -z + log1p(exp(z)), so exp never overflows. */
static inline double logistic_loss(double z)
{
  return z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
}

/* 1 / (1 + exp(z)), the logistic derivative's magnitude, without overflow. */
static inline double logistic_weight(double z)
{
  if (z > 0) {
    double e = exp(-z);
    return e / (1 + e);
  }
  return 1 / (1 + exp(z));
}

static inline double ss_loss_value(SsLoss loss, double s, double y)
{
  double z = y * s;
  switch (loss) {
    case SS_LOSS_HINGE: return z < 1 ? 1 - z : 0;
    case SS_LOSS_HINGE2: return z < 1 ? (1 - z) * (1 - z) : 0;
    case SS_LOSS_LOGISTIC: return logistic_loss(z);
  }
  return NAN;
}

static inline double ss_loss_derivative(SsLoss loss, double s, double y)
{
  double z = y * s;
  switch (loss) {
    case SS_LOSS_HINGE: return z < 1 ? -y : 0;
    case SS_LOSS_HINGE2: return z < 1 ? -2 * y * (1 - z) : 0;
    case SS_LOSS_LOGISTIC: return -y * logistic_weight(z);
  }
  return NAN;
}

#endif /* STOCHSVM_LOSS_H */

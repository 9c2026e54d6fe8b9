/* step_guard.h -- the outlier guard of SVMSGD2's steps.
 *
 * Its default t0 sizes the first step by a quantile of the row norms
 * (svm_effective.c), so that one outlier row cannot make every step tiny.
 * The price is that the few rows above the quantile get steps too long for
 * them: on a row of squared norm ||x~_i||^2 = ||x_i||^2 + B^2, a step eta
 * changes its own score by eta c_i |loss'| ||x~_i||^2, and for a smooth
 * loss (curvature at most kappa, loss.c) once eta c_i kappa ||x~_i||^2 > 2
 * the step overshoots that row's minimum by more than it started from: its
 * loss grows at every visit, geometrically (the suite's outlier set, one row
 * 100x the median norm, diverged so at C >= 1).
 *
 * The guard caps the step on row i at the one the default t0 gives the
 * quantile row, measured on row i:
 *
 *     eta_i = min(eta_t, 1 / (c_i kappa ||x~_i||^2)),
 *
 * kappa the loss's curvature per unit squared norm (2 for the squared hinge
 * and l2, 1/4 for the logistic loss), or 1 for a loss without curvature
 * (hinge, l1, custom: the score then moves by at most c_i |loss'| <= c_i).
 * SGD-QN, which sizes its t0 the same way, does not use it: measured on the
 * outlier set at C = 1e3 (bench/defaults.py), its logistic run went from
 * 1.21x the optimum to 2.66x (above the zero model) with the guard, its
 * secant scaling estimated from clipped steps; its squared hinge run
 * diverges either way (an error without the guard, 19x with it).
 * It applies at the default t0 only: a t0 set by the caller (or by
 * ss_svm_calibrate_t0) runs the paper's steps unchanged.
 * It is the step of SGD with t0 sized by row i's own norm; it never lengthens
 * a step, and rows under the quantile at the default t0 (eta_t <= eta_0 =
 * 1/(kappa R_q^2)) are not touched: on data without outliers, unweighted,
 * the runs are bit for bit those without the guard.
 */
#ifndef SS_STEP_GUARD_H
#define SS_STEP_GUARD_H

#include "svm_internal.h"

/** kappa of the guard for the object's loss; 0, the guard off, when the
 *  caller set t0 (then the steps are the paper's, exactly). */
static inline double ss_step_guard_kappa(const SsSvm *self)
{
  if (self->t0 > 0) return 0;
  const double kappa = self->loss == SS_LOSS_CUSTOM ? 0 : ss_loss_curvature_bound(self->loss, 1.0);
  return kappa > 0 ? kappa : 1.0;
}

/** The step on row i: @p eta, capped at 1 / (c_i kappa ||x~_i||^2) (off
 *  where @p kappa is 0 or the object has no row norms, @p norms2 NULL). An
 *  uncapped eta is returned as it is, bit for bit. */
static inline double ss_step_guard(double eta, const double *norms2, int64_t i, double c, double kappa,
                                   double B)
{
  if (!norms2) return eta;
  const double curvature = c * kappa * (norms2[i] + B * B);
  return eta * curvature > 1.0 ? 1.0 / curvature : eta;
}

#endif

/* sdca_newton.c -- linear SDCA's Newton fallback: the method that continues
 * a run which ended short of its tolerance (when: ss_sdca_newton_wanted and
 * the stall rule, newton.c), chosen by the loss, and its result written
 * back as SDCA's state.
 *
 * The smooth losses (squared hinge, logistic, l2) continue with newton.c's
 * truncated Newton method, and SDCA's dual variables become the primal-dual
 * map alpha_i = -c_i loss'(s_i) of its model. The hinge and l1 losses
 * continue with newton_hinge.c's smoothing method, whose certificate comes
 * with its own dual point (the smoothed loss's map, or the dual ascent's),
 * kept as alpha; they start from SDCA's own model w~(alpha), not from the
 * closing ray's t* w~(alpha) the capped run returned (sdca_ray.c), whose
 * P is lower but which is a poor start for the smoothed Newton steps: on a
 * nearly separable problem t* pushes every margin past the kink. Raw
 * digits, class 7 against the rest at C = 1e3 (lambda = 7.4e-7): t* = 6.8
 * put every y_i s_i >= 1, so the smoothed Hessian held no row (lambda I),
 * each Newton step shrank w~ until the line search met the next row
 * (steps t ~ 0.01, the band growing a row or two an iteration), and the
 * finish's 1000 iterations ended at width 1, uncertified, the map's dual
 * value negative (D = -4.1e-5: its v = w~ - g/lambda is far from w~ where
 * the smoothed problem is far from solved, ||g|| / lambda = 10.5 at the last
 * iterate against ||w~(alpha)|| = 0.74). From w~(alpha) (P 200 times
 * higher, but the support vectors' margins inside the band) it certified
 * in 114 iterations, and the ten digits classes took 1,455 Newton
 * iterations where they had taken 2,835. Either way the model is marked
 * stale, so that the next train rebuilds w~(alpha) and continues SDCA
 * from the certified dual point, and the closing ray (sdca_ray.c) is
 * forgotten. Until then the object holds Newton's model
 * (ss_svm_get_sdca_model: SS_SDCA_MODEL_NEWTON).
 *
 * (A file apart from the two methods because newton_hinge.c calls
 * newton.c's pieces: the choice made here keeps the calls one way.)
 */
#include "newton.h"
#include "../common/loss.h"

/* SDCA's state after a Newton run: the model is Newton's, alpha is set. */
static SsStatus handed_back(SsSvm *self, SsStatus status)
{
  if (status == SS_ERR_ALLOC) return status;
  self->ray.applied = false;
  self->ray.scores_fresh = false;
  self->model_stale = true;
  self->newton.applied = true;
  return status;
}

SsStatus ss_sdca_newton_fallback(SsSvm *self)
{
  if (self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_L1) {
    ss_sdca_undo_ray(self); /* the start: w~(alpha) (the header comment) */
    return handed_back(self, ss_newton_hinge_solve(self, self->alpha));
  }
  const SsStatus status = ss_newton_solve(self);
  if (status != SS_ERR_ALLOC) {
    for (int64_t i = 0; i < self->source.num_data; ++i) {
      const double c = ss_newton_weight(self, i);
      self->alpha[i] = c > 0 ? -c * ss_loss_derivative(self->loss, &self->custom_loss, self->scores[i],
                                                        self->labels[i])
                             : 0;
    }
  }
  return handed_back(self, status);
}

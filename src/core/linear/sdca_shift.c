/* sdca_shift.c -- shifting SDCA's model away from its dual variables, the
 * local subproblem of CoCoA+ (Ma et al. 2015; Smith et al. 2018).
 *
 * SDCA's model is a function of its dual variables,
 * w~(alpha) = 1/(lambda n) sum_i alpha_i x~_i. A shift r~ = (r, r_b) makes it
 *
 *     w~ = r~ + 1/(lambda n) sum_i alpha_i x~_i,
 *
 * and the coordinate steps then maximise, along each alpha_i,
 *
 *     -1/n sum_i c_i loss*(-alpha_i / c_i, y_i) - lambda/2 ||r~ + 1/(lambda n) sum_i alpha_i x~_i||^2.
 *
 * With r~ the rest of a global model (the part the other machines' rows
 * contribute) and lambda the scaled lambda' = lambda N / (sigma' n), this is
 * CoCoA+'s local subproblem, up to a constant and the factor n / N. The step
 * itself is unchanged (it reads s = <w~, x~_i> from the model), so the shift
 * only has to be added to the model once.
 *
 * The shift lasts until the model is next rebuilt from the dual variables
 * (ss_svm_set_dual_variables, a restart of the dual, or a change of lambda,
 * bias multiplier or data); the duality gap in the statistics is then the
 * gap of the shifted problem above, not of the unshifted one.
 */
#include "svm_internal.h"

#include <math.h>

SsStatus ss_svm_shift_sdca_model(SsSvm *self, const double *shift, double bias_shift)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "shift_sdca_model");
  if (!shift) return ss_svm_fail(self, SS_ERR_BAD_ARG, "shift_sdca_model: shift is NULL");
  if (!isfinite(bias_shift))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "shift_sdca_model: bias_shift must be finite, got %g", bias_shift);
  if (!self->alpha)
    return ss_svm_fail(self, SS_ERR_BAD_STATE,
                       "shift_sdca_model: needs solver sdca and data, this object's solver is %s%s",
                       ss_svm_solver_name(self->solver), self->source.num_data > 0 ? "" : " (no data)");
  for (int64_t k = 0; k < self->dimension; ++k) {
    if (!isfinite(shift[k]))
      return ss_svm_fail(self, SS_ERR_BAD_ARG, "shift_sdca_model: shift[%lld] must be finite, got %g",
                         (long long)k, shift[k]);
  }
  ss_sdca_undo_ray(self);
  ss_sdca_undo_best(self);
  if (self->model_stale) ss_sdca_rebuild_model(self);
  ss_svm_fold_factor(self);
  for (int64_t k = 0; k < self->dimension; ++k) self->u[k] += shift[k];
  self->bias += bias_shift;
  self->ray.shifted = true;
  ss_sdca_reset_shrinking(self);
  ss_svm_realise_model(self);
  return ss_svm_succeed(self);
}

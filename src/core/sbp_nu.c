/* sbp_nu.c -- the SBP's slack budget nu from the regularization lambda.
 *
 * The SBP solves the slack-constrained problem (sbp.c), the SVM everyone
 * else solves is the regularized one,
 *
 *     P(w) = lambda/2 ||w||^2 + L(w),   L(w) = 1/n sum_i max(0, 1 - y_i <w, phi(x_i)>)
 *
 * (with or without an unregularized bias b inside the hinge). Both explore
 * the Pareto front of (||w||, L(w)). Rescaling u = w / gamma turns the slack
 * problem into: minimise ||u|| subject to L(u) <= nu ||u||. Take the minimiser
 * w* of P and nu = L(w*) / ||w*|| (Hazan et al. 2011, Lemma 2.1; Cotter et
 * al. 2012, section 5, used it to compare against SMO). w* is feasible, and a
 * feasible u with ||u|| < ||w*|| would have L(u) <= nu ||u|| < L(w*): smaller
 * on both criteria, so P(u) < P(w*), a contradiction. So w* solves the slack
 * problem at that nu, and the SBP run at it returns the SVM of lambda.
 *
 * The map needs w*, which costs as much as the problem itself. It is
 * estimated by a warm-up on the same data: BSCA (budget min(n, 500), the
 * SBP's bias setting, the object's seed) for a fixed number of epochs, and nu
 * read from its model by ss_kernel_svm_nu_from_model. A model short of the
 * optimum has the larger loss, so the estimate errs towards a larger nu (more
 * slack, a smoother classifier); the SBP's test accuracy changes slowly with
 * nu (about 1 pp per decade on the bundled scikit-learn sets,
 * bench/kernel_defaults.py), so a factor of a few does not matter. A
 * precomputed kernel, which BSCA refuses, warms up with kernel SDCA (no bias).
 * A warm-up with zero loss (separable data) gives nu = SS_SBP_NU_FLOOR.
 */
#include "kernel_internal.h"

/** Warm-up epochs when the caller passes 0 (the SBP's default). */
#define SS_SBP_NU_WARMUP_EPOCHS 10
/** The warm-up's budget: B = min(n, this). */
#define SS_SBP_NU_WARMUP_BUDGET 500
/** The smallest nu the map returns (a hard margin in all but name). */
#define SS_SBP_NU_FLOOR 1e-6

SsStatus ss_kernel_svm_nu_warmup(const SsKernelSvm *self, int64_t epochs, double *nu,
                                 int64_t *kernel_evaluations)
{
  if (!self || !nu || epochs < 0) return SS_ERR_BAD_ARG;
  if (!self->has_data) return SS_ERR_BAD_STATE;
  const int64_t n = self->num_data;
  if (epochs == 0) epochs = SS_SBP_NU_WARMUP_EPOCHS;
  if (epochs > INT64_MAX / n) return SS_ERR_BAD_ARG;
  const bool precomputed = self->kernel.type == SS_KERNEL_PRECOMPUTED;
  SsKernelSvm *warm = ss_kernel_svm_new(precomputed ? SS_KSOLVER_SDCA : SS_KSOLVER_BSCA,
                                        &self->kernel, &self->data, self->labels, self->lambda);
  if (!warm) return SS_ERR_ALLOC; /* the arguments are those of a valid object */
  SsStatus status = ss_kernel_svm_set_seed(warm, self->seed);
  if (status == SS_OK && self->weights) status = ss_kernel_svm_set_weights(warm, self->weights);
  if (status == SS_OK && !precomputed) {
    status = ss_kernel_svm_set_unregularized_bias(warm, self->bias_enabled);
    if (status == SS_OK)
      status = ss_kernel_svm_set_budget(warm, n < SS_SBP_NU_WARMUP_BUDGET ? n : SS_SBP_NU_WARMUP_BUDGET);
  }
  if (status == SS_OK) status = ss_kernel_svm_set_max_num_iterations(warm, epochs * n);
  if (status == SS_OK && self->interrupt_fn)
    status = ss_kernel_svm_set_interrupt_function(warm, self->interrupt_fn, self->interrupt_user);
  if (status == SS_OK) status = ss_kernel_svm_train(warm);
  if (status == SS_OK) {
    if (ss_kernel_svm_get_num_support_vectors(warm) == 0) {
      *nu = SS_SBP_NU_FLOOR; /* every weight zero: nothing to fit */
    } else {
      double estimate = 0;
      status = ss_kernel_svm_nu_from_model(warm, &estimate);
      if (status == SS_OK) *nu = estimate > SS_SBP_NU_FLOOR ? estimate : SS_SBP_NU_FLOOR;
    }
  }
  if (kernel_evaluations) *kernel_evaluations = ss_kernel_svm_get_num_kernel_evaluations(warm);
  ss_kernel_svm_delete(warm);
  return status;
}

SsStatus ss_kernel_svm_estimate_nu(const SsKernelSvm *self, int64_t epochs, double *nu)
{
  return ss_kernel_svm_nu_warmup(self, epochs, nu, NULL);
}

SsStatus ss_kernel_svm_unset_nu(SsKernelSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->nu = 0;
  return SS_OK;
}

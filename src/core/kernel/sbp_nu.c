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
 * SBP's bias setting, the object's seed) for E epochs, nu read from its model
 * by ss_kernel_svm_nu_from_model after E/2 epochs (nu_1) and after E (nu_2).
 * A model short of the optimum has the larger loss, so nu_t falls towards
 * the optimum's. If its excess falls like c / t^p, nu_2's excess is
 * (nu_1 - nu_2) / (2^p - 1); coordinate ascent's sublinear rate is p >= 1
 * (linear convergence is faster still), and the estimate takes p = log2 3:
 * 1.5 nu_2 - 0.5 nu_1, kept within [nu_2 / 2, nu_2] (a heuristic, erring on
 * the side of the larger nu). Measured on 3000 ijcnn1 rows at C = 32
 * (nu* = 1.45e-4 from SVC's optimum, with the bias): nu_t = 7.6e-4, 4.4e-4,
 * 3.0e-4, 1.4e-4 after 10, 20, 30, 100 epochs, the estimate from 10 and 20
 * 2.9e-4; the SBP's test accuracy at nu_10 was 1.1 pp below SVC's, at
 * 3.0e-4 0.2 pp. It changes slowly with nu (about 1 pp per decade on the
 * bundled scikit-learn sets), so a factor of two matters little.
 *
 * A precomputed kernel, which BSCA refuses, warms up with kernel SDCA (no
 * bias). A warm-up with zero loss (separable data) gives nu = SS_SBP_NU_FLOOR.
 */
#include "kernel_internal.h"

/** Warm-up epochs when the caller passes 0 (the SBP's default). */
#define SS_SBP_NU_WARMUP_EPOCHS 20
/** The warm-up's budget: B = min(n, this). */
#define SS_SBP_NU_WARMUP_BUDGET 500
/** The smallest nu the map returns (a hard margin in all but name). */
#define SS_SBP_NU_FLOOR 1e-6

/* nu of a warm-up's model (0 for one that is the zero function: no support
 * vectors, or coefficients whose expansion has norm 0, e.g. a kernel that
 * vanishes on the data). */
static SsStatus model_nu(const SsKernelSvm *warm, double *nu)
{
  if (ss_kernel_svm_get_num_support_vectors(warm) == 0) {
    *nu = 0;
    return SS_OK;
  }
  SsStatus status = ss_kernel_svm_nu_from_model(warm, nu);
  if (status == SS_ERR_BAD_STATE) { /* the norm of the expansion is not positive */
    *nu = 0;
    status = SS_OK;
  }
  return status;
}

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
  /* a fixed number of epochs: the extrapolation below reads nu at half and end */
  if (status == SS_OK) status = ss_kernel_svm_set_epsilon(warm, 0);
  if (status == SS_OK && self->weights) status = ss_kernel_svm_set_weights(warm, self->weights);
  if (status == SS_OK && !precomputed) {
    status = ss_kernel_svm_set_unregularized_bias(warm, self->bias_enabled);
    const int64_t budget = n < SS_SBP_NU_WARMUP_BUDGET ? n : SS_SBP_NU_WARMUP_BUDGET;
    if (status == SS_OK) status = ss_kernel_svm_set_budget(warm, budget);
  }
  if (status == SS_OK && self->interrupt_fn)
    status = ss_kernel_svm_set_interrupt_function(warm, self->interrupt_fn, self->interrupt_user);
  double halfway = NAN, estimate = 0;
  if (status == SS_OK && epochs >= 2) {
    status = ss_kernel_svm_set_max_num_iterations(warm, epochs / 2 * n);
    if (status == SS_OK) status = ss_kernel_svm_train(warm);
    if (status == SS_OK) status = model_nu(warm, &halfway);
  }
  const int64_t rest = epochs * n - ss_kernel_svm_get_iteration_number(warm);
  if (status == SS_OK) status = ss_kernel_svm_set_max_num_iterations(warm, rest);
  if (status == SS_OK) status = ss_kernel_svm_train(warm);
  if (status == SS_OK) status = model_nu(warm, &estimate);
  if (status == SS_OK) {
    if (isfinite(halfway)) {
      double extrapolated = 1.5 * estimate - 0.5 * halfway;
      estimate = fmin(estimate, fmax(extrapolated, 0.5 * estimate));
    }
    *nu = estimate > SS_SBP_NU_FLOOR ? estimate : SS_SBP_NU_FLOOR;
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
  return ss_kernel_svm_succeed(self);
}

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
 *
 * The warm-up trains a second kernel object, so it lives with the object
 * (ss_kernel_svm_nu_warmup, kernel_svm.c) and the SBP calls it through the
 * object's nu_warmup pointer: the solver does not call its object back
 * (docs/dev/architecture.md). This file keeps the public entry points.
 */
#include "kernel_internal.h"

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

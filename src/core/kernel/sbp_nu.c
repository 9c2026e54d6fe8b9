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
 * Large n. On more than SS_SBP_NU_WARMUP_ROWS (4096) rows the warm-up
 * trains on a seeded sample of that many at the same lambda (the whole
 * data when the sample misses a class): w* of the
 * sample estimates w* of the whole (at the same C it would not: C weighs a
 * sum over the rows), and the warm-up costs 20 epochs of 4096 rows on any
 * n (a9a: 20 full epochs were 3.3e8 kernel evaluations, about 8 s). A
 * sample's optimum fits its rows more closely than the whole's, so its nu
 * errs low; the refinement below corrects a large error.
 *
 * Refinement. At a large C (a small lambda) on nearly separable data the
 * warm-up is far from the optimum and the estimate far off: on digits (0-4 v
 * 5-9, 1347 rows, C = 1000, gamma = 1/64) 2.8e-3 after 20 epochs against
 * nu* = 2e-9 from SVC's optimum. The SBP then solved the problem of that nu,
 * the SVM of another C, and its objective window stopped it as "converged"
 * 195x above the optimum, 7.8 pp below SVC's accuracy (issue 17). So the SBP
 * checks its own answer. With the margins z_i = y_i f(x_i) of its averaged
 * model (bias included) and N = ||w||^2,
 *
 *     g(s) = P(s w) = lambda/2 s^2 N + 1/n sum_i max(0, 1 - s z_i)
 *
 * is convex and piecewise quadratic in s > 0; its slope lambda s N - 1/n
 * sum_{s z_i < 1} z_i rises with s, so its minimiser s* comes from one sort
 * of the positive margins (ss_sbp_scaled_nu, sbp_scale.c; when
 * sum_i z_i <= 0 the slope never vanishes and s = 1 is kept). The SBP at the right nu returns w*
 * itself, whose best scale is 1, and L(s* w) / (s* ||w||) is then the nu in
 * force. At each diagnostic the SBP reads this nu of its model (O(n log n):
 * the margins and the norm are at hand); when a run (the driver's loop of a
 * train call) ends with it off by more than SS_SBP_NU_REFINE_FACTOR (10)
 * either way, the object takes it, restarts the SBP's averages (the iterate
 * and its step sizes go on) and the driver's history, and trains on for the
 * rest of the cap (kernel_svm.c, at most SS_SBP_NU_MAX_REFINEMENTS times).
 * On the digits case: 2.8e-3, then 1.2e-8, i.e. the floor 1e-6; the run ends
 * 1.08x above the optimum on its cap (a ConvergenceWarning), 1.3 pp above
 * SVC's test accuracy. A factor of 10, not 2: with 2 the refinement also
 * fired on digits (even v odd, C = 10, gamma = 1e-3), moving an estimate of
 * 1.0e-6 to 2.1e-6 across nu* = 1.6e-6 (SVC's optimum) at unchanged
 * accuracy, and the run then ended on its cap; accuracy
 * changes about 1 pp per decade of nu.
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


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
 * The map needs w*, the optimum itself. On n <= SS_SBP_NU_WARMUP_ROWS
 * (4096) rows the warm-up computes it: exact kernel SDCA (the SBP's bias
 * setting: kernel_sdca_pair.c with the bias, kernel_sdca.c without) to a
 * relative duality gap of 1e-3, which reads nu within about 0.3 % (the
 * bundled scikit-learn sets and the C tests' blobs; at a gap of 1e-2 the
 * error was up to 9 %).
 *
 * Large n: a sample, at the same C. On more rows, the warm-up solves
 * samples of m = 4096 rows, stratified by class (each half of the sample
 * holds the classes in their proportion in the data, one row of a class at
 * least: a plain random sample missed a rare class and the warm-up then
 * solved all n rows). Which lambda? At the same lambda = 1/(C n)
 * each sampled row stands for n/m rows: the sample's optimum fits its rows
 * as the full optimum would fit n/m times fewer, its loss is small and its
 * norm large (a9a at C = 32, gamma = 2^-7: ||w|| = 343, 270, 164 on 1024,
 * 4096, 16384 rows against 134 on all 32561), and nu = L/||w|| errs low,
 * the more the larger n/m: 0.36x SVC's optimum on a9a, 0.013x on ijcnn1
 * (C = 32, gamma = 2), where 4096 rows are separable at that lambda. Held-out
 * rows do not repair it (a9a: 1.39e-3 on 8192 held-out rows against 2.39e-3;
 * the norm, not only the loss, is off). At the same C, lambda_m = 1/(C m):
 * the sample weighs its loss as the full problem weighs any m of its rows,
 * and as rows are added (C fixed) the loss term gains weight against the
 * norm, so nu falls with m, smoothly and slowly: with SVC on nested samples
 *
 *     m               1024     2048     4096     8192     n (SVC's optimum)
 *     a9a,   C = 1   3.33e-2  2.80e-2  2.35e-2  1.98e-2  1.42e-2 (32561)
 *     a9a,   C = 32  5.37e-3  4.80e-3  4.16e-3  3.59e-3  2.39e-3
 *     ijcnn1, C = 32           1.73e-4  1.63e-4  1.43e-4  7.95e-5 (49990)
 *     ijcnn1, C = 1   1.50e-2  9.13e-3  5.80e-3  3.44e-3  9.20e-4
 *
 * i.e. a factor q per doubling of m (0.84-0.89 on a9a, 0.6-0.94 on ijcnn1),
 * and no other candidate tried was close on both sets (same lambda: above;
 * 1/(C sqrt(n m)): 0.28x on ijcnn1). So the warm-up solves the sample (nu_m)
 * and both of its halves (nu_h: the mean of the two, half the variance of
 * one), takes q = nu_m / nu_h, kept in [1/2, 1] (assumed: nu falls with m,
 * at most like 1/m), and extrapolates:
 *
 *     nu = nu_m q^(log2(n / m)).
 *
 * On a9a and ijcnn1 at C = 1, 8 (a9a: 4) and 32 it reads 0.9-1.7x SVC's nu
 * (bench/results/kernel_speed.md, "sbpnu17"), costing three exact solves
 * of 4096, 2048 and 2048 rows: 0.2-0.4 s, under 1 % of SVC's time on the
 * full sets. It still errs where a sample cannot see the optimum: data
 * nearly separable at C with label noise (generated, nu* ~ 1e-5) read
 * 0.25x, as the sample at C is separable; the refinement below catches
 * larger errors.
 *
 * Refinement. An estimate can be far off: a sample that misses what the
 * whole sees (above), or, with the BSCA warm-up of an earlier version (20
 * epochs, budget 500), a large C on nearly separable data: on digits (0-4 v
 * 5-9, 1347 rows, C = 1000, gamma = 1/64) it read 2.8e-3 against nu* = 2e-9
 * from SVC's optimum (the exact warm-up reads the floor, 1e-6). The SBP then solved the problem of that nu,
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
 * On the digits case (BSCA warm-up): 2.8e-3, then 1.2e-8, i.e. the floor 1e-6; the run ends
 * 1.08x above the optimum on its cap (a ConvergenceWarning), 1.3 pp above
 * SVC's test accuracy. A factor of 10, not 2: with 2 the refinement also
 * fired on digits (even v odd, C = 10, gamma = 1e-3), moving an estimate of
 * 1.0e-6 to 2.1e-6 across nu* = 1.6e-6 (SVC's optimum) at unchanged
 * accuracy, and the run then ended on its cap; accuracy
 * changes about 1 pp per decade of nu.
 *
 * A precomputed kernel's sample is the block of its Gram matrix at the
 * sampled rows and columns (dense matrices; a sparse one is solved whole).
 * A warm-up with zero loss (separable data) gives nu = SS_SBP_NU_FLOOR.
 *
 * The warm-up trains a second kernel object, so it lives with the object
 * (ss_kernel_svm_nu_warmup, kernel_svm.c) and the SBP calls it through the
 * object's nu_warmup pointer: the solver does not call its object back
 * (docs/dev/architecture.md). This file keeps the public entry points.
 */
#include "kernel_internal.h"

SsStatus ss_kernel_svm_estimate_nu(const SsKernelSvm *self, int64_t epochs, double *nu)
{
  return ss_kernel_svm_nu_warmup(self, epochs, nu, NULL, NULL);
}

SsStatus ss_kernel_svm_unset_nu(SsKernelSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->nu = 0;
  return ss_kernel_svm_succeed(self);
}


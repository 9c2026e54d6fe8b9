/* res.h -- parameters and curvature state of the quasi-Newton solvers of the
 * linear SVM object: RES, regularized stochastic BFGS (Mokhtari & Ribeiro,
 * SS_SOLVER_RES, src/core/linear/res.c) and its limited-memory form LRES
 * (SS_SOLVER_LRES, src/core/linear/lres.c).
 *
 * Both minimise the objective of svm.h over the augmented model
 * w~ = (w, w_b), b = B w_b, of dimension D = d + 1 (with B = 0 the bias
 * coordinate stays fixed), with minibatch steps
 *
 *     s(w~)  = lambda w~ + 1/L sum_{i in minibatch} c_i loss'(y_i, s_i) (x_i, B)
 *     w~    <- w~ - eps_t (Bhat^{-1} + Gamma I) s(w~),    eps_t = eps0 tau / (tau + k)
 *     v = w~_new - w~_old,  rtilde = s(w~_new) - s(w~_old) - delta v   (same minibatch)
 *     Bhat  <- Bhat + rtilde rtilde^T / (v^T rtilde) - Bhat v v^T Bhat / (v^T Bhat v) + delta I
 *
 * (RES keeps Bhat; LRES applies an inverse through a two-loop recursion over
 * the last m accepted pairs (v, rtilde + delta v)). The curvature update is skipped, and counted,
 * when v^T rtilde <= 1e-10 ||v|| ||rtilde||.
 *
 * Iterations count examples, as for the other solvers: epoch e (a fresh
 * permutation of the n examples) is cut into ceil(n / L) consecutive
 * minibatches of L examples (the last one shorter when L does not divide n),
 * and a step is taken when the last example of its minibatch is reached. The
 * step index k of eps_t counts the minibatches before it over the object's
 * life: k = e ceil(n/L) + (t - e n) / L for the minibatch starting at
 * iteration t. Training N iterations equals N/2 then N/2 more, bit for bit.
 *
 * Defaults derived from the data, and the safeguard. The first steps are
 * gradient steps eps0 Bhat_0^{-1} s; a fixed Bhat_0 = I ignores the scale of
 * the data (rows with ||x||^2 ~ 240 made eps0 = 3e-2 diverge to 1e51, and
 * features spanning 1e-3 .. 1e4 stalled). Unless b0 is set, Bhat_0 is the
 * diagonal of the expected Hessian bound, a Jacobi preconditioner:
 *
 *     Bhat_0 = diag(b_j),  b_j = delta + lambda + kappa mean_i c_i x~_ij^2
 *
 * with kappa the loss's curvature bound (2 for the squared hinge and l2,
 * 1/4 for the logistic loss; with a custom loss b_j = 1 + delta). It is the
 * diagonal of the Hessian bound delta I + lambda I + kappa E[c x~ x~^T], so
 * in every coordinate the first step is eps0 times a Newton step of that
 * bound, whatever the scaling of the features. LRES starts its two-loop
 * recursion from H^0 = theta Bhat_0^{-1}, theta = v^T r / (r^T Bhat_0^{-1} r)
 * of the newest pair (1 before the first). One pass over the data (a
 * strided sample of the rows when n d > 2^26) per curvature reset (RES) or
 * train call (LRES).
 * Gamma defaults to 1e-4 / b0, b0 = mean_j b_j (the paper's 1e-4 at b0 = 1),
 * and eps0 to 0.1 (measured: bench/res_sgdqn_defaults.py, docs/res.rst).
 * Two safeguards hold for every setting, explicit or default: (1) a step
 * that would raise the objective of its own minibatch,
 * f_B(w~) = lambda/2 ||w~||^2 + 1/|B| sum_B c_i loss_i, is halved until it
 * does not (at most 60 times; then the step is skipped and counted) -- the
 * direction descends f_B, so a short enough step always does; (2) every step
 * is projected on the ball ||w~||^2 <= 2 F(0) / lambda, which holds the
 * minimiser because lambda/2 ||w~*||^2 <= F(w~*) <= F(0) (built-in losses,
 * which are nonnegative). Neither changes a run whose steps descend their
 * minibatch objective and stay in the ball, as the paper's runs do.
 *
 * The loss must be differentiable: the squared hinge (the default loss of a
 * RES or LRES object), logistic, l2, or a custom loss. ss_svm_set_loss
 * rejects the hinge and l1 losses on these objects. The bias learning rate
 * and t0 are not used.
 *
 * The setters below belong to RES and LRES (ss_svm_set_lres_memory to
 * LRES): on an object of another solver they return SS_ERR_BAD_STATE, and
 * ss_svm_get_last_error names both solvers (the rule of sgd.h). Each returns
 * SS_ERR_BAD_ARG for a value out of range and then leaves the object
 * unchanged. The getters answer for any object.
 */
#ifndef STOCHSVM_RES_H
#define STOCHSVM_RES_H

#include "svm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Minibatch size L >= 1 of RES and LRES. Default 5 (the paper's). */
SS_API SsStatus ss_svm_set_res_minibatch_size(SsSvm *self, int64_t L);
/** @brief Curvature floor delta, finite and >= 0: every eigenvalue of Bhat
 *  stays >= delta (RES). Default 1e-3 (the paper's, where delta = lambda).
 *  Keep it below lambda, the smallest curvature of the objective, or most
 *  curvature updates are skipped. 0 with Gamma = 0 is plain stochastic BFGS. */
SS_API SsStatus ss_svm_set_res_delta(SsSvm *self, double delta);
/** @brief Minimum progress Gamma, finite and >= 0: the step direction is
 *  (Bhat^{-1} + Gamma I) s. Default 1e-4 / b0 (the paper's 1e-4 at b0 = 1). */
SS_API SsStatus ss_svm_set_res_gamma(SsSvm *self, double gamma);
/** @brief Initial step eps0, finite and > 0. Default 0.1 (the paper's 3e-2
 *  made slow progress once Bhat_0 follows the data; see above). At the
 *  default, a run whose objective goes non-finite or rises above that of
 *  w = 0 restarts from w = 0 with eps0 ten times shorter and its curvature
 *  reset (the step back-off, docs/stopping.rst); an eps0 set here is never
 *  changed. */
SS_API SsStatus ss_svm_set_res_eps0(SsSvm *self, double eps0);
/** @brief Step decay tau > 0 of eps_t = eps0 tau / (tau + k); +INFINITY gives
 *  the constant step eps0. Default 100 (the paper's). */
SS_API SsStatus ss_svm_set_res_tau(SsSvm *self, double tau);
/** @brief b0 of the initial curvature Bhat_0 = b0 I, finite and > 0. Default:
 *  the data's diagonal Bhat_0 above (1 + delta without data). Takes
 *  effect when the curvature is reset (ss_svm_reset_res_curvature, or the
 *  first training of an object whose curvature was never set); training
 *  returns SS_ERR_BAD_ARG if the b0 set here is <= delta at that point (the
 *  default diagonal is delta plus a positive term, never refused). */
SS_API SsStatus ss_svm_set_res_initial_curvature(SsSvm *self, double b0);
/** The largest dimension d RES trains on: it keeps a (d + 1) x (d + 1)
 *  curvature matrix and factorises it at every step (O(d^3)); training a
 *  RES object of larger dimension returns SS_ERR_ALLOC without trying.
 *  LRES (O(m d) per step) is the solver for large d. */
#define SS_RES_MAX_DIMENSION 1024
/** The largest LRES memory m. */
#define SS_LRES_MAX_MEMORY 1024
/** The most doubles LRES keeps for its curvature pairs, 2 m (d + 1) + m
 *  (2^27, 1 GiB); training beyond it returns SS_ERR_ALLOC without trying. */
#define SS_LRES_MAX_CURVATURE_DOUBLES ((int64_t)1 << 27)

/** @brief LRES memory m, 1 <= m <= SS_LRES_MAX_MEMORY: the number of
 *  curvature pairs kept. Default 10. Changing it forgets the stored pairs. */
SS_API SsStatus ss_svm_set_lres_memory(SsSvm *self, int64_t m);

/** @brief Minibatch size L in force (default 5). Never fails. */
SS_API int64_t ss_svm_get_res_minibatch_size(const SsSvm *self);
/** @brief Curvature floor delta in force (default 1e-3). */
SS_API double ss_svm_get_res_delta(const SsSvm *self);
/** @brief Minimum progress Gamma in force (default 1e-4 / b0). */
SS_API double ss_svm_get_res_gamma(const SsSvm *self);
/** @brief Initial step eps0 in force (default 0.1). */
SS_API double ss_svm_get_res_eps0(const SsSvm *self);
/** @brief Step decay tau in force (default 100; +INFINITY: constant step). */
SS_API double ss_svm_get_res_tau(const SsSvm *self);
/** @brief b0 in force: the set one, or the mean of the default diagonal
 *  (1 + delta without data or for a custom loss). */
SS_API double ss_svm_get_res_initial_curvature(const SsSvm *self);
/** @brief LRES memory m in force (default 10). */
SS_API int64_t ss_svm_get_lres_memory(const SsSvm *self);

/** @brief Curvature updates done since the curvature was last reset. */
SS_API int64_t ss_svm_get_res_num_curvature_updates(const SsSvm *self);
/** @brief Curvature updates skipped (v^T rtilde too small) since the last reset. */
SS_API int64_t ss_svm_get_res_num_curvature_skips(const SsSvm *self);
/** @brief RES only: times Bhat lost positive definiteness to rounding (its
 *  Cholesky factorisation failed) and was reset to Bhat_0, since the last
 *  reset. Stays 0 in exact arithmetic; can happen with delta = 0. */
SS_API int64_t ss_svm_get_res_num_curvature_restarts(const SsSvm *self);
/** @brief Halvings of eps_t made by the step safeguard since the last reset
 *  (a step that would raise its own minibatch objective is halved). */
SS_API int64_t ss_svm_get_res_num_step_halvings(const SsSvm *self);
/** @brief Steps given up by the safeguard (no step along the direction
 *  lowered the minibatch objective; the model stayed) since the last reset. */
SS_API int64_t ss_svm_get_res_num_rejected_steps(const SsSvm *self);

/** @brief Number of doubles of the curvature state: D*D for RES (Bhat, row
 *  major), 1 + 2 m D for LRES, 0 for other solvers (D = dimension + 1). */
SS_API int64_t ss_svm_get_res_curvature_state_size(const SsSvm *self);
/** @brief Copy the curvature state into @p state (state_size doubles, caller
 *  owned), for a warm start. RES: Bhat (Bhat_0 before the first step).
 *  LRES: state[0] = k, the number of stored pairs (0..m), then m rows of v
 *  and m rows of rhat = rtilde + delta v (the gradient variation; each D
 *  values), oldest first, rows past k zero.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL); SS_ERR_BAD_STATE (not RES/LRES). */
SS_API SsStatus ss_svm_get_res_curvature_state(const SsSvm *self, double *state);
/** @brief Set the curvature state (copied, layout of ss_svm_get_res_curvature_state).
 *  RES: Bhat must be finite, symmetric (to 1e-12 relative) and positive
 *  definite. LRES: 0 <= k <= m (an integer) and finite pairs with
 *  v^T rhat > 0. The update counters are kept.
 *  @return SS_OK; SS_ERR_BAD_ARG (invalid state, object unchanged);
 *  SS_ERR_BAD_STATE (not RES/LRES); SS_ERR_ALLOC. */
SS_API SsStatus ss_svm_set_res_curvature_state(SsSvm *self, const double *state);
/** @brief Forget the curvature: Bhat = Bhat_0 (RES), no pairs (LRES); the
 *  counters restart at 0. SS_ERR_BAD_STATE for other solvers. */
SS_API SsStatus ss_svm_reset_res_curvature(SsSvm *self);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_RES_H */

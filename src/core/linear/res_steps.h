/* res_steps.h -- what RES (res.c) and LRES (lres.c) share: the minibatch
 * loop (res_steps.c) that calls back for the direction and the curvature
 * update, and the curvature storage (res_params.c). Private. */
#ifndef STOCHSVM_RES_STEPS_H
#define STOCHSVM_RES_STEPS_H

#include "svm_internal.h"

/** Work space of one train call (res_steps.c allocates, the solver uses). */
typedef struct SsResWork {
  int64_t D;          /**< dimension + 1 (the bias coordinate last) */
  double b0, gamma;   /**< b0 and Gamma in force (resolved once per train call) */
  double radius2;     /**< the steps stay in the ball ||w~||^2 <= radius2 (res_steps.c) */
  double *g;          /**< [D] s(w~) at the minibatch's old point */
  double *dir;        /**< [D] (Bhat^{-1} + Gamma I) g */
  double *v;          /**< [D] w~_new - w~_old */
  double *rt;         /**< [D] rtilde */
  double *w_old;      /**< [D] w~ before the step */
  double *extra;      /**< solver scratch: RES [D*D + D], LRES [m + D] */
  double *loss_grad;  /**< [L] c_i loss'(s_i) / |minibatch| at the old point */
  double *loss_grad_new; /**< [L] the same at the new point */
  int64_t *batch;     /**< [L] examples of the minibatch */
} SsResWork;

/** The solver's two operations. direction: dir = (H + Gamma I) g, H the
 *  inverse curvature (SS_OK or SS_ERR_NUMERIC). update: take the pair
 *  (v, rtilde) with vr = v^T rtilde > 0 into the curvature. */
typedef struct SsResSolver {
  SsStatus (*direction)(SsSvm *self, SsResWork *work);
  bool (*update)(SsSvm *self, SsResWork *work, double vr);
  /** Optional (NULL): fill work->extra before the first step. */
  SsStatus (*prepare)(SsSvm *self, SsResWork *work);
  int64_t extra_size;  /**< doubles of work->extra */
} SsResSolver;

/** Run train for RES or LRES: checks, work space, the epoch driver. */
SsStatus ss_res_run(SsSvm *self, const SsResSolver *solver);

/** The step size eps_k in force (eps0 tau / (tau + k), after a back-off
 *  restarted and shortened: res_steps.c). */
double ss_res_step_size(const SsSvm *self, int64_t k);

/** The k-th step back-off of RES and LRES (res_steps.c; an
 *  SsBackOffFunction): false at an eps0 set by the caller. */
bool ss_res_back_off(SsSvm *self, int64_t k);

/** Allocate the curvature (Bhat_0 = b0 I, or no pairs) if it is not there. */
SsStatus ss_res_ensure_curvature(SsSvm *self);
int64_t ss_res_curvature_buffer_size(const SsSvm *self);
/** The diagonal of Bhat_0 (D values): b0 everywhere if b0 was set, else
 *  the data's default (res.h). SS_OK or SS_ERR_ALLOC. */
SsStatus ss_res_initial_diagonal(const SsSvm *self, double *diag);

/** In-place Cholesky factorisation A = G G^T of a D x D row-major matrix,
 *  G in the lower triangle; false if A is not (numerically) positive definite. */
bool ss_res_cholesky(double *A, int64_t D);
/** Solve G G^T x = b in place (x overwrites b). */
void ss_res_cholesky_solve(const double *G, int64_t D, double *b);

#endif /* STOCHSVM_RES_STEPS_H */

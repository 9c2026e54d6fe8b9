/* res_state.h -- private state of the quasi-Newton solvers RES (res.c) and
 * LRES (lres.c): their parameters, the curvature they learn, the counters
 * and the work space of one train call. Part of the SsSvm body (internal.h).
 * The public contract is include/stochsvm/res.h. */
#ifndef STOCHSVM_RES_STATE_H
#define STOCHSVM_RES_STATE_H

#include <stdbool.h>
#include <stdint.h>

/** Default eps0 (res.h: measured in bench/res_paper.py). */
#define SS_RES_DEFAULT_EPS0 0.1
/** The step back-off's factor on eps0 (res_steps.c; measured in docs/res.rst). */
#define SS_RES_BACKOFF_SHRINK 0.1
/** Default Gamma = this / b0: the paper's 1e-4 at its b0 = 1. */
#define SS_RES_DEFAULT_GAMMA_RATIO 1e-4

typedef struct SsResState {
  /* Parameters (res_params.c). */
  int64_t minibatch_size;      /**< L, default 5 */
  double delta;                /**< curvature floor, default 1e-3 */
  double gamma;                /**< minimum progress Gamma; < 0: default 1e-4 / b0 */
  double eps0;                 /**< initial step, default SS_RES_DEFAULT_EPS0 */
  bool eps0_set;               /**< eps0 set by the caller: no step back-off (res_steps.c) */
  double tau;                  /**< step decay, default 100; +inf: constant step */
  double initial_curvature;    /**< b0 of Bhat_0 = b0 I; 0: the data's default */
  int64_t memory;              /**< LRES: m, default 10 */

  /* The bias weight w_b (b = B w_b) the solver works with, and the bias and
   * B it was last synchronised with (set_bias or set_bias_multiplier in
   * between make the solver recompute w_b = b / B). */
  double w_b;
  double synced_bias, synced_B;
  bool synced;

  /* Curvature. RES: Bhat, D x D row major, D = dimension + 1. LRES: m rows
   * of v then m rows of rtilde (a ring: slot of the newest pair `newest`,
   * `num_pairs` stored) and rho[m] = 1 / (v^T rtilde) after them. NULL until
   * the first train or set_curvature_state: the curvature is then Bhat_0. */
  double *curvature;
  int64_t num_pairs, newest;
  int64_t num_updates, num_skips, num_restarts;
  int64_t num_halvings, num_rejected; /**< the step safeguard (res_steps.c) */

  /* After a step back-off (self->step_backoffs > 0; res_steps.c): the
   * steps eps0 backoff_scale tau / (tau + k - backoff_step), the schedule
   * restarted at step index backoff_step. Unused before the first. */
  double backoff_scale;
  int64_t backoff_step;

  /* During a train call only: the solver's operations and work space
   * (res_steps.h), seen by the minibatch loop. */
  const struct SsResSolver *solver;
  struct SsResWork *work;
} SsResState;

#endif /* STOCHSVM_RES_STATE_H */

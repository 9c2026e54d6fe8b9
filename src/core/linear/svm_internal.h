/* svm_internal.h -- private definitions of the linear layer; never installed.
 *
 * The body of the SsSvm object, the epoch driver of its stochastic solvers
 * (epochs.c) and the entry points of the solvers. Everything below the
 * object (common/, driver/) is reached through the includes here.
 */
#ifndef STOCHSVM_SVM_INTERNAL_H
#define STOCHSVM_SVM_INTERNAL_H

#include "../common/internal.h"
#include "../common/last_error.h"
#include "../driver/run.h"
#include "stochsvm/res.h"
#include "res_state.h"

/* ------------------------------------------------------------------------ */
/*                               The SVM object                              */
/* ------------------------------------------------------------------------ */

/** SDCA's shrinking heuristic (sdca.c): examples at a bound whose projected
 *  gradient says they will stay there are skipped until the next unshrink.
 *  Kept between train calls; reset with the dual variables. */
typedef struct SsSdcaShrinking {
  bool enabled;                /**< ss_svm_set_shrinking; default true */
  uint8_t *shrunk;             /**< [num_data] 1: skipped, or NULL (no SDCA) */
  int64_t num_shrunk;
  int64_t *candidates;         /**< [num_data] the examples active when the epoch
                                    began, in their visiting order (sdca.c) */
  int64_t num_candidates;      /**< their number; -1: every example, list unset */
  int64_t candidates_epoch_start; /**< the epoch they were ordered for; -1: none */
  double pg_max, pg_min;       /**< projected-gradient bounds of the last epoch */
  double epoch_pg_max, epoch_pg_min; /**< the same, over the epoch in progress */
  double tolerance;            /**< unshrink when an epoch's spread falls below */
  double epoch_gap;            /**< the duality-gap terms of this epoch's visits, summed */
  double gap_estimate;         /**< the last whole epoch's, / n; NaN: none yet */
  double gate_factor;          /**< ask when gap_estimate <= this tol D (below) */
  int64_t asked_iteration;     /**< the last epoch end the gate was asked at, -1: none */
  bool asked;                  /**< ... and whether it asked for a diagnostic there */
} SsSdcaShrinking;

/** SDCA's closing ray (sdca_ray.c): a run stopped on its cap returns the
 *  best model t w~(alpha), t >= 0, on the ray through its model (t = 0 is
 *  the zero model), as factor = t; the next train goes back to w~(alpha). */
typedef struct SsSdcaRay {
  bool applied;                /**< a ray was applied (it lasts while factor == t) */
  double t;                    /**< the factor applied, self->factor while it lasts */
  double dual_bias;            /**< b of w~(alpha), put back with factor 1 */
  bool bias_scaled;            /**< the bias was scaled too (it is learned: B > 0) */
  bool scores_fresh;           /**< the scores are the present model's (a diagnostic since the steps) */
  bool shifted;                /**< the model carries a shift (sdca_shift.c): no ray */
} SsSdcaRay;

/** SDCA's gap trend (sdca_trend.c): the last two checks of the train call
 *  with a relative gap (P - D) / D, oldest first. */
typedef struct SsSdcaTrend {
  int count;                   /**< 0, 1 or 2 recorded */
  int64_t iteration[2];        /**< where they were made */
  double gap[2];               /**< their relative gaps */
} SsSdcaTrend;

/** SDCA's best model (sdca_best.c): the model of least primal objective
 *  among the diagnostics of the train call in progress, returned by a run
 *  that converges; the next train puts w~(alpha) back. */
typedef struct SsSdcaBest {
  double *u;                   /**< [dimension] its w (factor folded); while applied, w~(alpha)'s;
                                    NULL until SDCA's first train */
  double bias;                 /**< its b; while applied, w~(alpha)'s */
  double primal;               /**< its P; +inf: none yet in this train call */
  double regularizer, loss;    /**< the two terms of P */
  bool applied;                /**< the object returns it: u and bias swapped with the object's */
  bool is_mean;                /**< it is the tail average (else a diagnostic's w~(alpha)) */
  bool trained;                /**< an SDCA train call began (ss_svm_get_sdca_model) */
  /* The hinge and l1 losses: the average of the models at the ends of the
   * train call's epochs, a candidate at every diagnostic. */
  double *mean;                /**< [dimension] its w; NULL until needed */
  double mean_bias;            /**< its b */
  double *mean_scores;         /**< [num_data] its scores at a diagnostic; NULL until needed */
  int64_t mean_epochs;         /**< epochs averaged (0: none yet in this train call) */
  int64_t mean_size;           /**< mean_scores holds this many (the data's n when allocated) */
} SsSdcaBest;

/** The Newton finish of the smooth losses: SDCA's fallback (newton.c) and
 *  the primal solvers' hand-over (primal_finish.c). */
typedef struct SsSdcaNewton {
  bool disabled;               /**< ss_svm_set_newton_fallback(OFF) */
  bool forced;                 /**< ...(ON): also under a cap set by the caller; neither: AUTO */
  int64_t iterations;          /**< Newton iterations of the last train call */
  bool applied;                /**< SDCA: the model is the fallback's until w~(alpha) is rebuilt
                                    (model_stale; ss_svm_get_sdca_model) */
  /** The primal solvers' stall rule (primal_finish.c), set by ss_primal_train
   *  for epochs.c's ops->stalled, which cannot call that file (it calls
   *  epochs.c); NULL: none. */
  bool (*primal_stalled)(struct SsSvm_ *self, const SsRunMeasure *m);
  /* The stall rule's record over the run in progress (ss_sdca_stalled;
   * the primal solvers' primal_stalled uses the first five). */
  int64_t run_start;           /**< the iteration number the run began at */
  int64_t run_cap;             /**< its iteration cap */
  double best_gap;             /**< the least (P - D) / D of its diagnostics (+inf: none) */
  double checkpoint_epochs;    /**< epochs into the run at the last check (0: none yet) */
  double checkpoint_gap;       /**< best_gap then */
  double checkpoint_rate;      /**< the per-epoch rate of the doubling that ended there (0: none) */
  double checkpoint_power;     /**< its power p, gap ~ epochs^-p (0: none) */
} SsSdcaNewton;

struct SsSvm_ {
  SsSolver solver;
  int64_t dimension;

  /* Data, valid while the caller keeps it alive. Labels and weights are copies. */
  SsDataSource source;
  double *labels;              /**< [num_data] */
  double *weights;             /**< [num_data] or NULL for uniform weights */
  double *row_norms2;          /**< [num_data] ||x_i||^2 */
  double max_squared_norm;     /**< R^2 = max_i ||x_i||^2, for the default t0 */
  int64_t overflow_row;        /**< the first i with ||x_i||^2 not finite, or -1 */

  /* Parameters. */
  double lambda;
  double epsilon;              /**< the caller's, or while epsilon_set is false the default (svm_effective.c) */
  bool epsilon_set;            /**< ss_svm_set_epsilon was called: the loss no longer picks it */
  SsSvmStoppingRule stopping_rule;
  int64_t max_num_iterations;  /**< 0: the default (ss_svm_effective_max_num_iterations) */
  int64_t diagnostic_frequency;/**< 0: the driver's geometric schedule (run.c) */
  double bias_multiplier;
  double bias_learning_rate;
  double t0;                   /**< 0: default max(2, 2/lambda) */
  SsLoss loss;
  SsLossFunctions custom_loss; /**< the functions of SS_LOSS_CUSTOM */
  uint64_t seed;
  SsVisitOrder visit_order;    /**< data order, a permutation (default) or blocks (epochs.c) */
  SsThreads threads;           /**< threads of the score passes (threads.h); count <= 1: serial */
  SsSvmDiagnosticFunction diagnostic_fn;
  void *diagnostic_user;
  SsRunSeen notified;          /**< what the diagnostic function saw last (run.h) */
  SsSvmInterruptFunction interrupt_fn;
  void *interrupt_user;

  /* Model state, kept between train calls. The solver works on the factored
   * form w = factor * u; `model` is the realised w, refreshed whenever control
   * returns to the caller (diagnostics and the end of train). */
  double *model;               /**< [dimension] realised w */
  double *u;                   /**< [dimension] SGD's unscaled model */
  double factor;               /**< SGD's scale f, w = f u */
  double bias;                 /**< b, the additive term of the score */
  int64_t iteration;           /**< iterations done in total */
  int64_t step_backoffs;       /**< SGD family: step back-offs taken in this history (epochs.c) */
  double backoff_t0;           /**< after one: the offset of the steps' schedule (epochs.c) */
  SsRunProgress progress;      /**< iteration as published by a running train (run.h) */
  double *alpha;               /**< SDCA: [num_data] dual variables, else NULL */
  bool model_stale;            /**< SDCA: rebuild w~ from alpha before training */
  SsSdcaShrinking shrinking;   /**< SDCA: active-set state */
  SsSdcaRay ray;               /**< SDCA: the closing ray (sdca_ray.c) */
  SsSdcaBest best;             /**< SDCA: the best model of the run (sdca_best.c) */
  SsSdcaTrend trend;           /**< SDCA: its gap's trend, for the checks it skips (sdca_trend.c) */
  SsSdcaNewton newton;         /**< SDCA: the Newton fallback (newton.c) */
  SsResState res;              /**< RES and LRES: parameters and curvature (res_state.h) */
  int64_t skip;                /**< SVMSGD2, SGD-QN: 0 = default round(16 / density) */
  double density;              /**< fraction of non-zero values of the data (skip.c) */
  double *scaling;             /**< SGD-QN: [dimension + 1] diagonal B (last: bias), else NULL */
  int64_t scaling_updates;     /**< SGD-QN: B updates since the last reset (r = 2 + this) */
  double *scratch;             /**< SGD-QN: [dimension] zeros between uses */

  /* The visiting order (epochs.c): one buffer of n indices, allocated at
   * the first train and kept, holding the order of epoch order_epoch drawn
   * in order_kind from order_seed (order_drawn false: nothing yet). */
  int64_t *order;
  bool order_drawn;
  SsVisitOrder order_kind;
  uint64_t order_seed;
  int64_t order_epoch;

  /* Bookkeeping. */
  SsSvmStatistics statistics;
  double *scores;              /**< [num_data] at the last diagnostic */
  double *previous_scores;     /**< [num_data] at the diagnostic before */
  bool has_scores;             /**< scores hold a diagnostic's values */
  bool has_previous_scores;
  SsRunHistory history;        /**< objectives of past diagnostics (run.h) */
  double train_start_time;
  /* The closing diagnostic of the last train, when no diagnostic function
   * watched it: made when first needed (ss_svm_settle_final, epochs.c). */
  bool final_pending;
  SsRunSettings final_settings; /**< the settings of that run */
  double final_end_time;        /**< when its steps ended (ss_clock_seconds) */
  SsLastError last_error;      /**< ss_svm_get_last_error */
  bool training;               /**< inside ss_svm_train: setters and train refuse (its callbacks) */
};

/** The refusal of a setter (or train) called while @p self trains, from one
 *  of its own callbacks: SS_ERR_BAD_STATE naming @p call. A train there
 *  recursed until the stack overflowed, a set_data crashed the run. */
SsStatus ss_svm_refuse_while_training(SsSvm *self, const char *call);

/** Record why a call on @p self failed ("function: what, got value") and
 *  return @p status: every failing path of a public function that takes
 *  a (non-const) SsSvm ends with `return ss_svm_fail(self, ...)`. */
SsStatus ss_svm_fail(SsSvm *self, SsStatus status, const char *format, ...) SS_PRINTF_LIKE(3, 4);
/** Clear the last error and return SS_OK: every successful path ends here. */
SsStatus ss_svm_succeed(SsSvm *self);
/** Sets of solvers, for the per-solver knobs (sgd.h, sgdqn.h, sdca.h, res.h). */
#define SS_SOLVER_BIT(solver) (1u << (unsigned)(solver))
#define SS_SOLVERS_T0 (SS_SOLVER_BIT(SS_SOLVER_SGD) | SS_SOLVER_BIT(SS_SOLVER_SVMSGD2) | SS_SOLVER_BIT(SS_SOLVER_SGDQN))
#define SS_SOLVERS_SKIP (SS_SOLVER_BIT(SS_SOLVER_SVMSGD2) | SS_SOLVER_BIT(SS_SOLVER_SGDQN))
#define SS_SOLVERS_QUASI_NEWTON (SS_SOLVER_BIT(SS_SOLVER_RES) | SS_SOLVER_BIT(SS_SOLVER_LRES))
/** SS_OK if the knob set by @p call applies to the object's solver (one of
 *  the set @p solvers), else SS_ERR_BAD_STATE with a last error naming both:
 *  "set_shrinking applies to solver sdca, this object's solver is sgd". */
SsStatus ss_svm_require_solver(SsSvm *self, const char *call, unsigned solvers);
/** The name of a solver and of a loss, as the Python layer spells them. */
const char *ss_svm_solver_name(SsSolver solver);
const char *ss_svm_loss_name(SsLoss loss);

/** Recompute the statistics and scores of the present model (one pass over
 *  the data) with status @p status, and what the run driver judges them by.
 *  @return SS_OK. */
SsStatus ss_svm_measure(SsSvm *self, SsSvmStatus status, SsRunMeasure *measure);
/** A dual lower bound D <= P* of a primal solver's iterate, from the
 *  diagnostic's @p scores (primal_certificate.c); NaN if out of memory. */
double ss_svm_primal_certificate(const SsSvm *self, const double *scores);
/** Tight where that bound is exact at the optimum (the smooth losses);
 *  none where it stays far below P* there (a subgradient: hinge, l1, custom). */
SsRunBound ss_svm_primal_certificate_kind(const SsSvm *self);
/** P(w = 0, b = 0) = 1/n sum_i c_i loss(0, y_i), the divergence reference. */
double ss_svm_zero_objective(const SsSvm *self);
/** P of the present model (one pass over the data unless w = 0 and b = 0;
 *  NaN if out of memory): the divergence reference of a warm start. */
double ss_svm_start_objective(SsSvm *self);
/** P(w, bias) = lambda/2 (||w||^2 + (bias/B)^2) + 1/n sum_i c_i loss(s_i, y_i),
 *  with the scores s = <w, x_i> + bias written into @p scores [n] and the
 *  two terms into @p regularizer and @p loss. */
double ss_svm_objective_of(const SsSvm *self, const double *w, double bias, double *scores, double *regularizer,
                           double *loss);
/** The model, statistics and history no longer belong together: forget the
 *  recorded objectives (called by the setters that change the problem or the model). */
void ss_svm_forget_history(SsSvm *self);

/** The parameters in force (defaults resolved). */
double ss_svm_effective_t0(const SsSvm *self);
/** The t0 of the steps, eta_t = 1/(lambda (t + t0)): the effective t0, or
 *  after a step back-off the offset of the restarted schedule (set by
 *  epochs.c). */
double ss_svm_step_t0(const SsSvm *self);
int64_t ss_svm_effective_max_num_iterations(const SsSvm *self);
/** The default epsilon of a @p solver with @p loss (svm.h): SDCA's depends on the loss. */
double ss_svm_default_epsilon(SsSolver solver, SsLoss loss);
int64_t ss_svm_effective_diagnostic_frequency(const SsSvm *self);

/** w = factor * u (realise the model for the caller). */
void ss_svm_realise_model(SsSvm *self);

/* ------------------------------------------------------------------------ */
/*          The epoch driver shared by the stochastic solvers (epochs.c)     */
/* ------------------------------------------------------------------------ */

typedef struct SsEpochRun SsEpochRun;

/** Run iterations [t, t_end) within one epoch, write iteration (and the
 *  solver's state) back; SS_OK or SS_ERR_NUMERIC. */
typedef SsStatus (*SsStepsFunction)(SsEpochRun *run, int64_t t, int64_t t_end);

/** A solver's part of its k-th step back-off (run.c; epochs.c zeroes w and
 *  b): restart its steps shorter; false if it has none left. */
typedef bool (*SsBackOffFunction)(SsSvm *self, int64_t k);

/** What a solver's inner loop sees: the object and the permutation of the
 *  epoch in progress (perm_e, a function of (seed, e) only; the object's
 *  order buffer). */
struct SsEpochRun {
  SsSvm *svm;
  int64_t *perm;
  int64_t epoch_start;   /**< t of the first iteration of that epoch */
  SsStepsFunction steps; /**< the solver's inner loop */
  SsBackOffFunction back_off; /**< NULL: the SGD family's t0 back-off, if any (epochs.c) */
};

/** A run of the driver (run.h) over the linear object with its settings in
 *  force; @p epoch_run holds the permutation buffer and the inner loop. */
SsRun ss_svm_run(SsSvm *self, SsEpochRun *epoch_run);

/** Run max_num_iterations iterations from the stored iteration number with
 *  the run driver (run.c): epochs of fresh permutations, diagnostics,
 *  interrupt polls, the stopping rules, a final diagnostic. Folds the SGD
 *  factor at every epoch boundary. */
SsStatus ss_run_epochs(SsSvm *self, SsStepsFunction steps);
/** ss_run_epochs for a solver with its own step back-off (RES, LRES). */
SsStatus ss_run_epochs_backing_off(SsSvm *self, SsStepsFunction steps, SsBackOffFunction back_off);

/** Make the closing diagnostic the last ss_run_epochs left pending, as
 *  it would have been made then (statistics, scores, history, status);
 *  SS_OK if none is pending, else what that run would have returned. Every
 *  call that reads or changes what a diagnostic measures (model, bias,
 *  iteration number, problem) calls this first; a new data set drops the
 *  pending diagnostic instead (ss_svm_drop_final). */
SsStatus ss_svm_settle_final(SsSvm *self);
/** Forget a pending closing diagnostic (its data are being replaced). */
void ss_svm_drop_final(SsSvm *self);
/** Before a train call: make a pending closing diagnostic if one run through
 *  both calls would have made a diagnostic there (the schedule of its
 *  settings), else drop it. Train calls that no one reads between thus pay
 *  the diagnostics of one call of their total length, no more. */
void ss_svm_resume_final(SsSvm *self);
/** The visiting-order buffer is for n examples no more: free it. */
void ss_svm_free_order(SsSvm *self);

/** Fold the factor into u: u <- f u, f <- 1. */
void ss_svm_fold_factor(SsSvm *self);

/** The solvers. */
SsStatus ss_sgd_train(SsSvm *self);
SsStatus ss_svmsgd2_train(SsSvm *self);
SsStatus ss_sgdqn_train(SsSvm *self);
/** The typed inner loops of the t0-driven solvers, for ss_svm_calibrate_t0. */
SsStepsFunction ss_sgd_steps(const SsDataSource *source);
SsStepsFunction ss_svmsgd2_steps(const SsDataSource *source);
SsStepsFunction ss_sgdqn_steps(const SsDataSource *source);

/** SVMSGD2 and SGD-QN (skip.c): the solver uses a skip; the fraction of
 *  non-zero values of a source; the skip in force. */
bool ss_solver_uses_skip(SsSolver solver);
/** L of the default t0 = max(2, L) / lambda (calibrate_t0.c). */
double ss_svm_t0_curvature(const SsSvm *self, double B);
double ss_source_density(const SsDataSource *source);
int64_t ss_svm_effective_skip(const SsSvm *self);
/** SGD-QN (sgdqn.c): B <- 1/lambda, r <- 2 (no-op for other solvers). */
void ss_sgdqn_reset_scaling(SsSvm *self);
/** The first example whose label the loss cannot take (it needs -1/+1), or -1. */
int64_t ss_svm_first_bad_label(const SsSvm *self);
/** SS_ERR_BAD_DATA if the loss needs -1/+1 labels and some label is not. */
SsStatus ss_svm_check_labels_for_loss(const SsSvm *self);
SsStatus ss_sdca_train(SsSvm *self);
/** RES and LRES (res.c, lres.c; shared loop in res_steps.c, parameters in res_params.c). */
SsStatus ss_res_train(SsSvm *self);
SsStatus ss_lres_train(SsSvm *self);
/** Default parameters and an empty curvature; free what the state owns. */
void ss_res_init(SsResState *res);
void ss_res_free(SsResState *res);
/** SDCA: w~ = 1/(lambda n) sum_i alpha_i (x_i, B), from the dual variables. */
void ss_sdca_rebuild_model(SsSvm *self);
/** SDCA's closing ray (sdca_ray.c): after the closing diagnostic of a run
 *  stopped on its cap, the model t* w~(alpha) of least primal objective on
 *  the ray t >= 0, if below P(1); and w~(alpha) back before the dual moves. */
void ss_sdca_close_on_ray(SsSvm *self);
void ss_sdca_undo_ray(SsSvm *self);
/** SDCA's best model (sdca_best.c). At the start of a train call: put
 *  w~(alpha) back, forget the best; SS_OK or SS_ERR_ALLOC (its buffer). */
SsStatus ss_sdca_best_begin(SsSvm *self);
/** At a diagnostic with status @p status that measured the present model
 *  (statistics and @p m): keep it if its P is the lowest of the train call,
 *  and give the run that lowest P as m->primal, the P its gap rule reads. */
void ss_sdca_best_record(SsSvm *self, SsSvmStatus status, SsRunMeasure *m);
/** SDCA's gap trend (sdca_trend.c): forgotten at the start of a train
 *  call; a training diagnostic's relative gap recorded; and, under the
 *  diagnostic budget, whether the check due now is predicted to fail by a
 *  wide margin (the logistic loss only), to be skipped. */
void ss_sdca_trend_begin(SsSvm *self);
void ss_sdca_trend_record(SsSvm *self, const SsRunMeasure *m);
bool ss_sdca_diagnostic_futile(const SsSvm *self);
/** The passes over the data a diagnostic makes (the present model's, and
 *  with the tail average its scores too: 2), for the diagnostic budget. */
double ss_sdca_best_diagnostic_passes(const SsSvm *self);
/** Which model the object holds (ss_svm_get_sdca_model, after the
 *  closing diagnostic a run left pending). */
SsSdcaModel ss_sdca_best_model(const SsSvm *self);
/** At the end of an epoch (the hinge and l1 losses): take the model into
 *  the tail average. */
void ss_sdca_best_average(SsSvm *self);
/** The run converged: return the best model if it is below the present one
 *  (model, bias, scores, statistics), the dual variables unchanged. */
void ss_sdca_best_return(SsSvm *self);
/** Put w~(alpha) back if the best model was returned (before the dual
 *  moves or the model is rebuilt). */
void ss_sdca_undo_best(SsSvm *self);
/** SDCA's Newton fallback would apply to a run that stops short (newton.c):
 *  on, a smooth loss, or under "auto" the object's own cap with the hinge
 *  or l1; epsilon > 0, no shift. */
bool ss_sdca_newton_wanted(const SsSvm *self);
/** The stall rule (newton.c), at each training diagnostic @p m of a linear
 *  SDCA run whose Newton fallback applies: true when the run's gap, as it
 *  falls, would not meet epsilon within the run's cap. */
void ss_sdca_stall_begin(SsSvm *self);
bool ss_sdca_stalled(SsSvm *self, const SsRunMeasure *m);
/** Whether a training diagnostic now would complete a doubling of the
 *  stall rule's (newton.c), which it judges only then: such a check is
 *  made even when the gap's trend calls it futile (sdca_trend.c). */
bool ss_sdca_stall_check_due(const SsSvm *self);
/** The stall rules' record (newton.c): take @p gap into the best gap so far;
 *  true when the run's @p epochs doubled since the last checkpoint, which
 *  then moves here, with the checkpoint's best gap and epochs before it. */
bool ss_stall_doubled(SsSdcaNewton *nt, double epochs, double gap, double *before, double *before_epochs);
/** SDCA's Newton fallback (sdca_newton.c): continue from the model to the
 *  relative gap epsilon, by the trust-region Newton method (the smooth
 *  losses) or the smoothing method of newton_hinge.c (the hinge and l1),
 *  and write the result back as SDCA's state. SS_OK, SS_ERR_ALLOC or
 *  SS_ERR_INTERRUPTED. */
SsStatus ss_sdca_newton_fallback(SsSvm *self);
/** The Newton method itself (newton.c): from the model w = factor u (and
 *  the bias), to the relative gap epsilon of the map alpha_i = -c_i
 *  loss'(s_i); writes back the model (u, factor 1, bias), its scores and
 *  the statistics (status converged only when certified). SS_OK,
 *  SS_ERR_ALLOC (nothing changed) or SS_ERR_INTERRUPTED. */
SsStatus ss_newton_solve(SsSvm *self);
/** The primal solvers' certified finish (primal_finish.c): run @p train
 *  (the solver's own run), then, where it ended uncertified, continue with
 *  ss_newton_solve (the smooth losses) or ss_newton_hinge_solve (the hinge
 *  and l1 losses). */
SsStatus ss_primal_train(SsSvm *self, SsStatus (*train)(SsSvm *self));
/** The hinge and l1 losses' Newton finish (newton_hinge.c): minimise the
 *  smoothed loss's primal by Newton steps for widths mu = 1, 0.1, ...,
 *  until the duality gap of the loss itself at (w~, alpha) meets the
 *  relative gap epsilon.
 *
 *  Contract of ss_newton_hinge_solve, for any linear solver with the hinge
 *  or the l1 loss: the problem is @p self's (data, labels, weights c_i,
 *  lambda, epsilon, bias multiplier B; the fixed offset self->bias when
 *  B = 0; interrupt function), from the model w~ = (factor u, b / B) it
 *  holds. As ss_newton_solve, it writes back the model (u, factor 1, the
 *  bias), its scores and the statistics: the loss's P(w~) and D(alpha),
 *  status converged exactly when (P - D) / max(P, D) <= epsilon,
 *  max_iterations when the 1000 Newton iterations (or the widths) ran out
 *  first, interrupted; the iterations are added to self->newton.iterations.
 *  @p alpha [n] (NULL: not kept) receives the dual point certifying the
 *  model, alpha_i = -c_i h_mu'(s_i) (hinge: y_i alpha_i in [0, c_i]; l1:
 *  alpha_i in [-c_i, c_i]; w~(alpha) = w~ at the optimum). Returns SS_OK,
 *  SS_ERR_INTERRUPTED, or SS_ERR_ALLOC (then nothing changed). */
SsStatus ss_newton_hinge_solve(SsSvm *self, double *alpha);
/** Before steps are run (train, calibrate_t0): whether the data's stored
 *  values are all 1, for the steps that skip loading them (steps_kinds.h).
 *  Found at every call, not once at set_data: the values are borrowed, and
 *  a linear object trains on values changed since as given. O(stored
 *  values) for 0/1 data, a few reads for other data (the first value that
 *  is not 1 ends the scan). */
static inline void ss_svm_find_unit_values(SsSvm *self)
{
  self->source.unit_values =
      self->source.kind == SS_DATA_DESCRIPTOR && ss_data_unit_values(&self->source.descriptor);
}
/** SDCA: every example active again, the shrinking bounds forgotten. */
void ss_sdca_reset_shrinking(SsSvm *self);
/** SDCA: the shrinking heuristic applies to this object's loss. */
static inline bool ss_sdca_shrinks(const SsSvm *self)
{
  return self->shrinking.enabled && self->shrinking.shrunk &&
         (self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_HINGE2);
}
/** SDCA with shrinking orders the active examples itself (sdca.c): the
 *  epoch's permutation of all n is not drawn. */
static inline bool ss_sdca_draws_order(const SsSvm *self)
{
  return ss_sdca_shrinks(self) && self->visit_order == SS_VISIT_PERMUTATION;
}
/* SDCA with shrinking, at the end of an epoch under the diagnostic budget:
 * true when the epoch's estimate of the duality gap says the stopping rule
 * may fire, for a diagnostic at once (inline: epochs.c asks, and sdca.c
 * runs epochs.c's loop). The duality gap is a sum over the examples,
 *
 *     P - D = 1/n sum_i [c_i loss(y_i, s_i) + c_i loss*(-alpha_i / c_i, y_i) + alpha_i s_i],
 *
 * of terms >= 0 (Fenchel-Young; with beta_i = y_i alpha_i and g_i = y_i s_i - 1,
 * c_i max(0, -g_i) + beta_i g_i for the hinge, c_i max(0, -g_i)^2 + beta_i g_i
 * + beta_i^2 / (4 c_i) for the squared hinge), zero for an example at a bound
 * on the right side of the margin: the examples shrinking skips add almost
 * nothing. The steps sum the terms of the examples they visit, with the
 * score each visit computes anyway. Over an epoch this estimates the gap at
 * no cost, but it is not a bound: the model moves during the epoch, and
 * the primal objective of the model at an epoch's end is noisy (on a9a the
 * estimate ran 0.4 to 1.6 times the gap). So at the end of an epoch the run
 * asks for a diagnostic at once when the estimate is at most f tol D (D of
 * the last diagnostic), and the gap of all n examples decides. f starts at
 * 1 and each diagnostic asked for in vain multiplies it by 3/4; the run
 * grants an ask only within 1.5 times its diagnostic budget (run.c), so the
 * checks cost at most 15 % of the steps instead of 10 %. Without the gate a
 * stop came up to 10 passes' worth of epochs late (the diagnostic budget,
 * epochs.c), and a shrunk epoch costs a few hundredths of a pass: on a9a
 * (hinge, lambda = 1/n, tol 1e-4) the stop came at epoch 808, with the
 * gate at 671. */
static inline bool ss_sdca_diagnostic_wanted(SsSvm *self)
{
  SsSdcaShrinking *sh = &self->shrinking;
  const SsSvmStatistics *st = &self->statistics;
  /* The diagnostic asked for at the last epoch's end did not stop the run. */
  if (sh->asked && st->iteration == sh->asked_iteration) sh->gate_factor *= 0.75;
  const double estimate = sh->gap_estimate;
  sh->asked = self->epsilon > 0 && st->dual_objective > 0 &&
              estimate <= sh->gate_factor * self->epsilon * st->dual_objective;
  sh->asked_iteration = self->iteration;
  return sh->asked;
}
/** SDCA: the bookkeeping at the end of an epoch (bounds, unshrinking). */
void ss_sdca_end_epoch(SsSvm *self);
/** SDCA: the examples to visit in the run's epoch (ordered once per epoch),
 *  and in [*first, *last) the visits of the positions [k_begin, k_end). */
const int64_t *ss_sdca_active(SsSvm *self, const SsEpochRun *run, int64_t k_begin,
                              int64_t k_end, int64_t *first, int64_t *last);
/** SDCA: the epoch position of visit j of ss_sdca_active's list. */
int64_t ss_sdca_visit_position(const SsSvm *self, int64_t j);

#endif /* STOCHSVM_SVM_INTERNAL_H */

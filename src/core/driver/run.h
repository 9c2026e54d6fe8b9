/* run.h -- private: the training-run driver shared by the linear object
 * (epochs.c), the kernel object (kernel_svm.c) and, through it, the budgeted
 * solvers; never installed.
 *
 * One run is the loop every solver shares: pieces of steps cut at epoch
 * boundaries, at diagnostics and at interrupt polls; the stopping rules; the
 * divergence test; the iteration cap; the final diagnostic. An object plugs in
 * through an SsRunOps table of callbacks and keeps an SsRunHistory between
 * train calls. Dependencies run one way: object -> driver -> the object's
 * callbacks (which run the solver's steps); the driver never reads an object.
 *
 * Every boundary is a function of the iteration number t only, so N
 * iterations equal N/2 and then N/2 more, bit for bit (the stopping decisions
 * may differ: the second half sees the diagnostic at N/2 as a final one).
 */
#ifndef STOCHSVM_RUN_H
#define STOCHSVM_RUN_H

#include "stochsvm/svm.h"

#include <stdbool.h>

#include "../common/atomics.h"

/* The iteration number the loop publishes for a reader on another thread
 * (ss_svm_poll_iteration_number, ss_kernel_svm_poll_iteration_number) while
 * train runs: a C11 atomic, stored and loaded with relaxed order (a count,
 * no data published with it; on x86-64 and AArch64 both are plain moves).
 * Without C11 atomics, a volatile 64-bit integer: its aligned loads and
 * stores are single instructions on the 64-bit targets we build for, so a
 * reader sees an old value or the new one, never a torn one. */
#if SS_HAVE_ATOMICS
#include <stdatomic.h>
typedef _Atomic int64_t SsRunProgress;
#define ss_run_publish(p, t) atomic_store_explicit((p), (t), memory_order_relaxed)
#define ss_run_read_progress(p) atomic_load_explicit((p), memory_order_relaxed)
#else
typedef volatile int64_t SsRunProgress;
#define ss_run_publish(p, t) (*(p) = (t))
#define ss_run_read_progress(p) (*(p))
#endif

/** What an object's diagnostic function saw last in a train call (status
 *  SS_SVM_STATUS_UNTRAINED: nothing yet). A finish after the run's last
 *  diagnostic (Newton's, the kernel SDCA finish) or a status set after it
 *  can change the statistics: the objects call the function once more at
 *  the end when ss_run_seen_differs says so (svm.h, kernel_svm.h). */
typedef struct SsRunSeen {
  SsSvmStatus status;
  int64_t iteration;
  double objective;
} SsRunSeen;

/** True if (status, iteration, objective) is not what @p seen holds
 *  (NaN objectives count as equal). */
static inline bool ss_run_seen_differs(const SsRunSeen *seen, SsSvmStatus status, int64_t iteration,
                                       double objective)
{
  const bool both_nan = objective != objective && seen->objective != seen->objective;
  return seen->status != status || seen->iteration != iteration ||
         !(seen->objective == objective || both_nan);
}

/** Which stopping rule a run applies at its diagnostics (see run.c). */
typedef enum SsRunCriterion {
  SS_RUN_NO_RULE = 0,          /**< the cap only (the Perceptron minimises no objective) */
  SS_RUN_RELATIVE_GAP = 1,     /**< P - D <= epsilon D: the dual solvers */
  SS_RUN_OBJECTIVE_WINDOW = 2, /**< the objective flat over the last 3/4 of the run */
  SS_RUN_SCORES_VARIATION = 3  /**< ||s - s_prev|| / n < epsilon (the former SGD rule) */
} SsRunCriterion;

/** A primal solver's dual bound (SsRunOps.dual_bound), for the window rule:
 *  none (the window alone decides: the hinge and l1 losses, whose
 *  subgradient bound stays far below P* even at the optimum) or tight
 *  (D -> P* at the optimum: the smooth losses). */
typedef enum SsRunBound {
  SS_RUN_BOUND_NONE = 0,
  SS_RUN_BOUND_TIGHT = 1
} SsRunBound;

/** What a diagnostic measured of the present model. */
typedef struct SsRunMeasure {
  double primal;     /**< P(w) of the model (linear SDCA: the least of its train call's
                          candidates, the model it returns if the rule fires: sdca_best.c) */
  double dual;       /**< D(alpha) <= P*, where the solver has one; NaN otherwise */
  double dual_estimate; /**< where dual is NaN, an estimate of it that is no bound (BSCA after
                             budget maintenance: kernel_svm_budget.c): read by the budget rule
                             only, never by the gap test (run.c); NaN otherwise */
  double variation;  /**< scores variation (SS_RUN_SCORES_VARIATION only) */
  bool finite;       /**< model and scores finite */
  int64_t next_check; /**< set by the driver at a training diagnostic, for ops->stalled:
                           the iteration of the run's next diagnostic if it goes on (its
                           next scheduled one, or the cap's end if that comes first) */
} SsRunMeasure;

/** The primal objectives recorded at past diagnostics (for the window rule)
 *  and the default diagnostic schedule. Kept by the object between train
 *  calls; cleared when the problem or the model changes under it. */
typedef struct SsRunHistory {
  int64_t *iteration;      /**< [count] t of each recorded diagnostic, increasing */
  double *objective;       /**< [count] P at that diagnostic */
  double *budget_gap;      /**< [count] the gap (P - D) / D where the object's budget was full
                                (ops->budget_full) and D > 0, NaN elsewhere */
  int64_t count, capacity;
  double reference;        /**< the divergence reference, max(P(0), P at the start of the
                                history), fixed by the first run after a clear */
  bool backed_off;         /**< a step back-off restarted the history (run.c) */
} SsRunHistory;

/** The callbacks of an object. @p object is the pointer given in SsRun. */
typedef struct SsRunOps {
  /** Prepare the visiting order of epoch @p epoch (NULL: none). */
  SsStatus (*begin_epoch)(void *object, int64_t epoch);
  /** Run iterations [t, t_end) (never across an epoch boundary) and write the
   *  iteration number back; SS_OK or an error (SS_ERR_NUMERIC, ...). */
  SsStatus (*steps)(void *object, int64_t t, int64_t t_end);
  /** After the last iteration of an epoch (NULL: nothing). */
  void (*end_epoch)(void *object);
  /** P of the present model, before training (NULL: P(w = 0) is used); read
   *  once per history, by a run with the divergence test. */
  double (*start_objective)(void *object);
  /** The iteration number t (iterations done in total). */
  int64_t (*iteration)(const void *object);
  /** Refresh the statistics of the present model with status @p status and
   *  fill @p measure; SS_OK or SS_ERR_ALLOC. */
  SsStatus (*measure)(void *object, SsSvmStatus status, SsRunMeasure *measure);
  /** Overwrite the status in the statistics (and their iteration and epoch
   *  with the present ones). */
  void (*set_status)(void *object, SsSvmStatus status);
  /** Call the user's diagnostic function (NULL: none); non-zero stops. */
  int (*notify)(void *object);
  /** The cost of the epoch just completed, in diagnostics (one diagnostic
   *  costs 1); read only under a diagnostic budget (NULL: none). */
  double (*epoch_cost)(const void *object);
  /** Under a diagnostic budget, at the end of an epoch: true to ask for a
   *  diagnostic before the budget's, when a cheap estimate of the object's
   *  says the stopping rule may fire (NULL: never). */
  bool (*diagnostic_wanted)(void *object);
  /** Under a diagnostic budget, when the budget's diagnostic is due: true
   *  when the object predicts that the stopping rule would fail there by a
   *  wide margin; the diagnostic is then skipped but counted as made, so
   *  the ones made stay at the budget's iterations (NULL: never). */
  bool (*diagnostic_futile)(void *object);
  /** A lower bound D <= P* of the model just measured, from that
   *  diagnostic's scores, and its kind (NULL, or kind none: no bound the
   *  rule can use). Read by the window rule
   *  only when the window fires, so its pass is paid a few times per run. */
  double (*dual_bound)(void *object, SsRunBound *kind);
  /** The step back-off (run.c): set the model back to a safe point and
   *  restart the step schedule with shorter steps; false when the object
   *  has none left to take (NULL: never; the run then ends as before). */
  bool (*back_off)(void *object);
  /** The model is held to a budget, full now, that it has outgrown at
   *  least once (its budget maintenance has changed it), so the budget may
   *  bound the accuracy: the budget rule (run.c) may apply (NULL: never). */
  bool (*budget_full)(const void *object);
  /** After a training diagnostic @p m that did not stop the run: true when
   *  the object judges its run stalled, so that it ends now with status
   *  SS_SVM_STATUS_MAX_ITERATIONS, as on its cap (linear SDCA, whose
   *  smooth losses then continue with Newton: newton.c; NULL: never). */
  bool (*stalled)(void *object, const SsRunMeasure *m);
} SsRunOps;

/** The settings of one train call (defaults resolved by the object). */
typedef struct SsRunSettings {
  int64_t num_data;             /**< n, iterations per epoch, >= 1 */
  int64_t max_num_iterations;   /**< the cap of this call, >= 1 */
  int64_t diagnostic_frequency; /**< iterations between diagnostics; 0: the default schedule */
  int64_t schedule_unit;        /**< the default schedule's unit in iterations (0: an epoch, n) */
  double diagnostic_budget;     /**< with frequency 0 and ops->epoch_cost: the diagnostics' cost
                                     at most this fraction of the steps' (run.c); 0: the epoch
                                     schedule */
  double epsilon;               /**< the stopping tolerance; 0 disables the rule */
  SsRunCriterion criterion;
  double zero_objective;        /**< P(w = 0) (w = 0, b = 0), the divergence reference */
  bool divergence_test;         /**< apply the divergence test (primal solvers) */
  SsSvmInterruptFunction interrupt_fn;
  void *interrupt_user;
  int64_t interrupt_period;     /**< iterations between interrupt polls, >= 1 */
  bool defer_final;             /**< a run that reaches its cap leaves its closing diagnostic
                                     to the object (SsRun.final_deferred): no one watches it */
  bool defer_interrupted;       /**< a run the interrupt poll stopped makes no closing
                                     diagnostic (SsRun.interrupted_deferred): the object's pass
                                     costs too much to make after a Ctrl+C */
} SsRunSettings;

typedef struct SsRun {
  SsRunHistory *history;
  SsRunSettings settings;
  const SsRunOps *ops;
  void *object;
  bool converged;      /**< set by the last diagnostic: the rule fired */
  bool budget_limited; /**< set by the last diagnostic: the budget rule fired (status
                            SS_SVM_STATUS_BUDGET_LIMITED; run.c) */
  bool stalled;        /**< set by the last diagnostic: the object's stall rule fired (status
                            SS_SVM_STATUS_MAX_ITERATIONS; ops->stalled) */
  bool final_deferred; /**< the run reached its cap and, as settings.defer_final asked, did
                            not make its closing diagnostic: the object makes it later with
                            ss_run_diagnose(run, SS_SVM_STATUS_MAX_ITERATIONS, false) */
  bool interrupted_deferred; /**< the interrupt poll stopped the run and, as
                                  settings.defer_interrupted asked, the loop made no closing
                                  diagnostic, only set the status interrupted: the object
                                  describes its model itself, without a pass over the data */
  bool pass_interrupted; /**< the last diagnostic's measure returned SS_ERR_INTERRUPTED: the
                              object's pass polled the interrupt function (a kernel object's,
                              with settings.defer_interrupted), which stopped it */
  SsRunProgress *progress; /**< NULL, or where the loop publishes t after every piece of steps */
  int64_t next_check;  /**< set by the loop before each of its diagnostics: SsRunMeasure.next_check */
} SsRun;

/** A run: from the object's iteration number for at most
 *  settings.max_num_iterations iterations, or until the stopping rule fires.
 *  @return SS_OK (converged or cap: see the statistics' status),
 *          SS_ERR_INTERRUPTED, SS_ERR_NUMERIC (non-finite model or scores:
 *          status ERROR), SS_ERR_DIVERGED (status DIVERGED), SS_ERR_ALLOC, or
 *          the error of a step. The statistics always describe the model as
 *          it stands when the run ends, except after a deferred closing
 *          diagnostic (settings.defer_final), until the object makes it. */
SsStatus ss_run_train(SsRun *run);

/** One diagnostic with status @p status: measure, judge (when the status is
 *  TRAINING or MAX_ITERATIONS), notify when @p notify. */
SsStatus ss_run_diagnose(SsRun *run, SsSvmStatus status, bool notify);

/** A run with settings @p s that went past iteration t > 0 would make a
 *  diagnostic at t (a multiple of the frequency, or the end of a scheduled
 *  epoch); always true under a diagnostic budget, whose schedule depends on
 *  the run's work. */
bool ss_run_diagnostic_scheduled(const SsRunSettings *s, int64_t t);

/** Forget the recorded objectives and restart the default schedule. */
void ss_run_history_clear(SsRunHistory *history);
/** Whether the objective window can still fire at a diagnostic at or before
 *  iteration @p t_last, given @p history (false: provably not; run.c). */
bool ss_run_window_may_fire_by(const SsRunHistory *history, int64_t t_last, double epsilon);
void ss_run_history_free(SsRunHistory *history);

/** The primal solvers' window rule stops a run only if the object's dual
 *  lower bound D (where it has a tight one) gives P - D <= min(SLACK
 *  epsilon, LIMIT) D: a window stop is then certified within 1 + LIMIT of
 *  the optimum. */
#define SS_RUN_WINDOW_GAP_SLACK 10.0
#define SS_RUN_WINDOW_GAP_LIMIT 0.05

/** The budget rule (the relative-gap solvers with ops->budget_full): a run
 *  whose budget was full over the last half of its diagnostics stops, status
 *  SS_SVM_STATUS_BUDGET_LIMITED, when the smallest gap (P - D) / D of that half
 *  is above (1 - SS_RUN_BUDGET_MIN_GAIN) times the smallest one before it:
 *  the gap fell by less than this fraction while the run doubled. */
#define SS_RUN_BUDGET_MIN_GAIN 0.25

/** The divergence thresholds: a primal solver whose objective exceeds
 *  SS_RUN_DIVERGENCE_FACTOR times max(P(w = 0), P at the start), and
 *  SS_RUN_DIVERGENCE_GROWTH times the objective of the previous diagnostic,
 *  has diverged. */
#define SS_RUN_DIVERGENCE_FACTOR 1e4
#define SS_RUN_DIVERGENCE_GROWTH 10.0

/** The default schedule: after a diagnostic at the end of epoch e the next
 *  one is at the end of epoch e + max(1, floor(e / SS_RUN_SCHEDULE_DIVISOR)). */
#define SS_RUN_SCHEDULE_DIVISOR 2

#endif /* STOCHSVM_RUN_H */

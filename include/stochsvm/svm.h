/* svm.h -- the linear SVM object, a mirror of VLFeat's vl_svm with its defects fixed.
 *
 * Objective (docs/algorithm.rst), with score s_i = <w, x_i> + b:
 *
 *     E(w, b) = lambda/2 (||w||^2 + (b/B)^2) + 1/n sum_i c_i loss(y_i, s_i)
 *
 * The bias is the weight w_b of a constant feature B (the bias multiplier),
 * b = B w_b, regularized like the rest of w. B = 0 means the bias is not
 * learned: it keeps its value (0 unless set with ss_svm_set_bias) and leaves
 * the regularizer. c_i are per-example weights (default 1).
 *
 * Life cycle:  ss_svm_new -> ss_svm_set_* -> ss_svm_train (repeatable)
 *              -> ss_svm_get_* -> ss_svm_delete.
 *
 * Repeated training continues: every solver keeps its state (model, bias,
 * iteration number) between ss_svm_train calls, so training N iterations
 * equals training N/2 and then N/2 more, bit for bit.
 */
#ifndef STOCHSVM_SVM_H
#define STOCHSVM_SVM_H

#include "stochsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque linear SVM object. */
typedef struct SsSvm_ SsSvm;

/** @brief Solvers of the linear SVM object. */
typedef enum SsSolver {
  SS_SOLVER_NONE = 0, /**< no training: ss_svm_train evaluates the set model and bias */
  SS_SOLVER_SGD = 1,  /**< Pegasos-style SGD (src/core/linear/sgd.c) */
  SS_SOLVER_SDCA = 2, /**< stochastic dual coordinate ascent (src/core/linear/sdca.c) */
  SS_SOLVER_SVMSGD2 = 3, /**< SGD with the regularizer applied every `skip` steps (src/core/linear/svmsgd2.c) */
  SS_SOLVER_SGDQN = 4,   /**< SVMSGD2 with a diagonal quasi-Newton rescaling (src/core/linear/sgdqn.c) */
  SS_SOLVER_RES = 5,     /**< regularized stochastic BFGS, Mokhtari & Ribeiro (src/core/linear/res.c) */
  SS_SOLVER_LRES = 6     /**< limited-memory RES, two-loop recursion (src/core/linear/lres.c) */
} SsSolver;

/** @brief Built-in losses, as functions of the score s and the label y (z = y s).
 *  Numbering follows VLFeat. Each comes with its convex conjugate
 *  loss*(u) = sup_s (u s - loss(s)), used by SDCA (u = -alpha):
 *
 *  | loss     | loss(y, s)          | loss*(u, y)                 | domain      |
 *  | hinge    | max(0, 1 - y s)     | y u                         | -1 <= y u <= 0 |
 *  | hinge2   | max(0, 1 - y s)^2   | y u + u^2/4                 | y u <= 0    |
 *  | logistic | log(1 + exp(-y s))  | (-v)log(-v) + (1+v)log(1+v), v = y u | -1 <= v <= 0 |
 *  | l1       | |y - s|             | y u                         | |u| <= 1    |
 *  | l2       | (y - s)^2           | y u + u^2/4                 | all u       |
 *
 *  hinge2 and l2 carry no factor 1/2 (as LIBLINEAR's L2 losses). hinge,
 *  hinge2 and logistic need y in {-1, +1}; l1 and l2 are regression losses
 *  for any finite y. */
typedef enum SsLoss {
  SS_LOSS_HINGE = 0,
  SS_LOSS_HINGE2 = 1,
  SS_LOSS_L1 = 2,
  SS_LOSS_L2 = 3,
  SS_LOSS_LOGISTIC = 4,
  SS_LOSS_CUSTOM = 100 /**< installed with ss_svm_set_loss_functions */
} SsLoss;

/** @brief A loss given as four functions of a user context (a custom loss).
 *  s is the score, y the label, u a conjugate argument.
 *
 *  - value(s, y):      loss(y, s)
 *  - derivative(s, y): d loss / d s (a subgradient where not differentiable)
 *  - conjugate(u, y):  loss*(u, y) = sup_s (u s - loss(y, s)); +INFINITY outside its domain
 *  - dual_update(alpha, s, A, y): the step delta maximising
 *        -s delta - A/2 delta^2 - loss*(-(alpha + delta), y)      (A > 0)
 *    (SDCA's coordinate step; may be NULL if SDCA is not used).
 *
 *  binary_labels: non-zero if the loss needs y in {-1, +1}. */
typedef struct SsLossFunctions {
  double (*value)(double s, double y, void *context);
  double (*derivative)(double s, double y, void *context);
  double (*conjugate)(double u, double y, void *context);
  double (*dual_update)(double alpha, double s, double A, double y, void *context);
  void *context;
  int binary_labels;
} SsLossFunctions;

/** @brief The four functions of a built-in loss (context NULL), for calling
 *  them directly or wrapping them in a custom loss.
 *  @return SS_OK or SS_ERR_BAD_ARG (unknown loss or SS_LOSS_CUSTOM). */
SS_API SsStatus ss_loss_functions(SsLoss loss, SsLossFunctions *functions);

/** @brief Where a training run stands or how it ended. */
typedef enum SsSvmStatus {
  SS_SVM_STATUS_UNTRAINED = 0,      /**< ss_svm_train was never called */
  SS_SVM_STATUS_TRAINING = 1,       /**< seen by the diagnostic callback during a run */
  SS_SVM_STATUS_CONVERGED = 2,      /**< the stopping rule fired */
  SS_SVM_STATUS_MAX_ITERATIONS = 3, /**< max_num_iterations were done, or the run handed over to
                                         its Newton finish (ss_svm_set_newton_fallback), which
                                         stopped short of epsilon */
  SS_SVM_STATUS_INTERRUPTED = 4,    /**< a callback asked to stop */
  SS_SVM_STATUS_ERROR = 5,          /**< training stopped on an error (see the returned SsStatus) */
  SS_SVM_STATUS_DIVERGED = 6,       /**< the objective rose above 1e4 times its value at w = 0,
                                         and grew tenfold since the previous diagnostic
                                         (ss_svm_train returned SS_ERR_DIVERGED) */
  SS_SVM_STATUS_BUDGET_LIMITED = 7  /**< a budgeted kernel solver (BSCA) stopped uncertified
                                         because its budget, not its iterations, bounds the accuracy:
                                         budget maintenance changed its model, and the estimate of
                                         its gap stopped shrinking while the budget was full or met
                                         epsilon, which certifies nothing (docs/stopping.rst); raise
                                         the budget */
} SsSvmStatus;

/** @brief Statistics of the last diagnostic (filled at every diagnostic and at
 *  the end of every ss_svm_train call, that one possibly when first read:
 *  see ss_svm_settle). Before the first one (status
 *  SS_SVM_STATUS_UNTRAINED) iteration and epoch are 0 and every other figure
 *  is NaN (not measured). */
typedef struct SsSvmStatistics {
  SsSvmStatus status;
  int64_t iteration;       /**< iterations done in total, warm-start offset included */
  int64_t epoch;           /**< completed passes over the data: iteration / n */
  double objective;        /**< primal E(w, b) = regularizer + loss */
  double regularizer;      /**< lambda/2 (||w||^2 + (b/B)^2) */
  double loss;             /**< 1/n sum_i c_i loss(y_i, s_i) */
  double dual_objective;   /**< dual objective where the solver has one (else NaN) */
  double duality_gap;      /**< objective - dual_objective (else NaN) */
  double scores_variation; /**< ||s - s_prev|| / n between consecutive diagnostics (+inf at the first) */
  double elapsed_time;     /**< wall-clock seconds since the start of this ss_svm_train call (monotonic clock) */
  int64_t num_step_backoffs; /**< SGD, SVMSGD2, SGD-QN at their default t0, RES and LRES at their
                                  default eps0 (their curvature reset too): times the run restarted
                                  from w = 0 with shorter steps after its objective rose above that
                                  of w = 0 or became non-finite (docs/stopping.rst); 0 otherwise */
  int64_t num_newton_iterations; /**< Newton iterations of the last train call's finish
                                      (ss_svm_set_newton_fallback: a smooth loss, the hinge
                                      or, for the SGD family, l1: newton_hinge.c); 0 otherwise */
} SsSvmStatistics;

/** @brief Diagnostic callback, called every diagnostic_frequency iterations and
 *  at the end of a run, after the statistics are updated. Return non-zero to
 *  stop training (status SS_SVM_STATUS_INTERRUPTED, ss_svm_train returns
 *  SS_ERR_INTERRUPTED). Where a finish (the Newton finish) or the final
 *  status changed the statistics after the run's last diagnostic, it is
 *  called once more with them, its answer ignored: its last call sees what
 *  train returns. It may call any getter on @p svm; a setter or
 *  ss_svm_train called there (through @p user) returns SS_ERR_BAD_STATE. */
typedef int (*SsSvmDiagnosticFunction)(const SsSvm *svm, void *user);

/** @brief Interrupt callback, polled every SS_SVM_INTERRUPT_PERIOD iterations
 *  (cheap: no statistics are computed). Return non-zero to stop, as above.
 *  This is how a front end checks for Ctrl+C. */
typedef int (*SsSvmInterruptFunction)(void *user);

/** Iterations between two calls of the interrupt callback. */
#define SS_SVM_INTERRUPT_PERIOD 16384

/* ------------------------------------------------------------------------ */
/*                             Create and destroy                           */
/* ------------------------------------------------------------------------ */

/** @brief Create an SVM on a data set.
 *  @param solver one of SsSolver.
 *  @param data   a descriptor from ss_data_init_*; the descriptor is copied, the
 *                arrays it points to are borrowed and must outlive the object.
 *  @param labels n labels, copied; finite. Classification losses need y in {-1, +1}
 *                (checked by ss_svm_train).
 *  @param lambda regularization strength, finite and > 0.
 *  @return a new object, or NULL if an argument is invalid or memory ran out
 *          (ss_svm_check_new tells which). */
SS_API SsSvm *ss_svm_new(SsSolver solver, const SsData *data, const double *labels, double lambda);

/** @brief The status ss_svm_new would fail with for these arguments (SS_OK if
 *  it would succeed, memory permitting). */
SS_API SsStatus ss_svm_check_new(SsSolver solver, const SsData *data, const double *labels, double lambda);

/** @brief Create an SVM on abstract data seen only through two callbacks
 *  (VLFeat's vl_svm_new_with_abstract_data, with the callbacks given up front).
 *  @param data      user pointer passed back to the callbacks (borrowed).
 *  @param dimension d >= 1.  @param num_data n >= 1.
 *  @param inner_product, accumulate  non-NULL callbacks.
 *  @return a new object or NULL (bad argument or no memory). */
SS_API SsSvm *ss_svm_new_with_abstract_data(SsSolver solver, const void *data, int64_t dimension,
                                            int64_t num_data, const double *labels, double lambda,
                                            SsInnerProductFunction inner_product,
                                            SsAccumulateFunction accumulate);

/** @brief Create an SVM with a model of dimension d but no data yet: every
 *  setter and getter works; ss_svm_train returns SS_ERR_BAD_STATE until
 *  ss_svm_set_data gives it data. Used to restore a saved model.
 *  @return a new object or NULL (bad argument or no memory). */
SS_API SsSvm *ss_svm_new_without_data(SsSolver solver, int64_t dimension, double lambda);

/** @brief Give the object new data of the same dimension (a new batch, for
 *  out-of-core or incremental training). Model, bias, iteration number and
 *  parameters are kept; per-example weights, scores and statistics are
 *  cleared (status SS_SVM_STATUS_UNTRAINED until the next train). SDCA's dual
 *  variables restart at 0 (and with them its model and learned bias).
 *  @return SS_OK, SS_ERR_BAD_ARG (NULL or dimension mismatch), SS_ERR_BAD_DATA
 *          (non-finite labels), SS_ERR_ALLOC. */
SS_API SsStatus ss_svm_set_data(SsSvm *self, const SsData *data, const double *labels);

/** @brief Free the object and everything it owns. NULL is allowed. Called
 *  from the object's own diagnostic or interrupt function it does nothing
 *  (the run still uses the object): return non-zero there to stop the run,
 *  and delete the object after ss_svm_train returns. */
SS_API void ss_svm_delete(SsSvm *self);

/** @brief Why the last call on the object failed, e.g.
 *  "set_lambda: lambda must be in [1e-150, 1e150], got -1", or
 *  "training diverged: the objective rose to ...".
 *
 *  Every function that takes a non-const object and returns a status sets
 *  this message when it fails and clears it (to "") when it succeeds, so it
 *  always describes the last such call. Functions on a const object and the
 *  constructors (which return NULL) leave it alone, as does a call with
 *  self = NULL. The text is in the object (at most 255 bytes, cut if longer;
 *  nothing is allocated or printed) and valid until the next call on it.
 *  @return never NULL; "" for self = NULL. */
SS_API const char *ss_svm_get_last_error(const SsSvm *self);

/* ------------------------------------------------------------------------ */
/*                                   Train                                  */
/* ------------------------------------------------------------------------ */

/** @brief Run the solver from the object's present state for at most
 *  max_num_iterations iterations, or until the stopping rule fires.
 *
 *  SGD, SVMSGD2 and SGD-QN start the learning-rate schedule (and the skip
 *  count) at the stored iteration number and write the final one back;
 *  SGD-QN also keeps its scaling B. So do RES and LRES, which also keep their
 *  curvature (res.h). SDCA continues from its dual variables (after
 *  ss_svm_set_lambda or ss_svm_set_bias_multiplier it first rebuilds the
 *  model from them). SS_SOLVER_NONE computes statistics and scores of the
 *  present model and bias.
 *  @return SS_OK (converged or iteration cap); SS_ERR_INTERRUPTED (a callback
 *          asked to stop: the model is valid and the iteration number counts the
 *          steps done); SS_ERR_NUMERIC (the model diverged to a non-finite value, or
 *          a score overflowed because the data values are too large: reset
 *          the model with ss_svm_set_model before training again);
 *          SS_ERR_DIVERGED (status SS_SVM_STATUS_DIVERGED: a primal solver's
 *          objective rose above 1e4 times P(w = 0), its value at w = 0, b = 0
 *          (or at the starting model, if larger), and grew tenfold since the
 *          previous diagnostic:
 *          the step is too large for the data's scale; lower eta0/raise t0,
 *          raise lambda or scale the data, and reset the model); SS_ERR_BAD_DATA
 *          (labels not -1/+1 for a classification loss, or a row's squared norm
 *          is not finite: values above about 1e154 overflow when squared;
 *          nothing is trained; or a value of the borrowed data turned
 *          non-finite after set_data: the run stops where it met it, and the
 *          model, bias and iteration number are not reliable -- the SGD
 *          family's back-off has reset the model to 0, SDCA holds a partial
 *          run's -- so give the data and the model again); SS_ERR_BAD_STATE (no
 *          data, or no room: the iteration number exceeds INT64_MAX minus the
 *          cap, so the run could not do its max_num_iterations iterations;
 *          nothing is trained and nothing changes); SS_ERR_ALLOC. The
 *          statistics describe the model as it stands.
 *
 *  The closing diagnostic. A run that ends at its iteration cap ends with a
 *  diagnostic: one pass over the data for the objective, the scores, the
 *  stopping rule and the divergence test. When no diagnostic function is
 *  installed, nothing needs it at once, and train returns without it (a
 *  single-epoch call would otherwise pay a third to a half of an epoch
 *  more): the object makes it, with the same result, the first time it is
 *  needed -- ss_svm_get_statistics, ss_svm_get_scores, ss_svm_settle, or a
 *  setter that changes the model or the problem. The next ss_svm_train
 *  makes it if one call through both would have made a diagnostic there
 *  (the diagnostic schedule), and otherwise drops it: calls that no one
 *  reads between cost the diagnostics of one call of their total length.
 *  Its verdict (SS_ERR_NUMERIC or SS_ERR_DIVERGED at the closing diagnostic)
 *  is then the status in the statistics and what ss_svm_settle returns, not
 *  what train returned. Data must stay valid until then (as always: while
 *  the object lives); ss_svm_set_data drops a pending diagnostic. */
SS_API SsStatus ss_svm_train(SsSvm *self);

/** @brief Make the closing diagnostic the last ss_svm_train left for later
 *  (see there), if any; the getters do it too, this returns its verdict.
 *  @return what that train call would have returned had it made the
 *          diagnostic itself (SS_OK, SS_ERR_NUMERIC, SS_ERR_DIVERGED; the
 *          last error says why), SS_OK if nothing was pending, or
 *          SS_ERR_BAD_ARG (NULL). */
SS_API SsStatus ss_svm_settle(SsSvm *self);

/* ------------------------------------------------------------------------ */
/*                                  Setters                                 */
/* Each returns SS_ERR_BAD_ARG for a value out of range (NaN included) and  */
/* then leaves the object unchanged. Called from the object's own callback */
/* during training (as ss_svm_train is), a setter returns SS_ERR_BAD_STATE  */
/* and changes nothing.                                                     */
/* ------------------------------------------------------------------------ */

/** @brief lambda > 0, finite. */
SS_API SsStatus ss_svm_set_lambda(SsSvm *self, double lambda);
/** The default epsilon (ss_svm_set_epsilon) of every solver but SDCA. */
#define SS_SVM_DEFAULT_EPSILON 1e-2
/** SDCA's default epsilon with the hinge and l1 losses, whose duality gap
 *  falls sublinearly. */
#define SS_SDCA_DEFAULT_EPSILON_NONSMOOTH 5e-4
/** SDCA's default epsilon with the squared hinge, logistic and l2 losses,
 *  whose duality gap falls linearly (a decade costs a few epochs). */
#define SS_SDCA_DEFAULT_EPSILON_SMOOTH 1e-8

/** @brief Relative stopping tolerance, finite and >= 0; 0 disables the rule
 *  (the run ends at the cap). Default SS_SVM_DEFAULT_EPSILON (1e-2), and for
 *  SDCA one per loss: SS_SDCA_DEFAULT_EPSILON_NONSMOOTH (5e-4) with the hinge
 *  and l1 losses, SS_SDCA_DEFAULT_EPSILON_SMOOTH (1e-8) with the squared
 *  hinge, logistic and l2 losses, SS_SVM_DEFAULT_EPSILON with a custom loss
 *  (docs/stopping.rst: SDCA's default against LIBLINEAR's). While it was
 *  never set, the default follows ss_svm_set_loss; once set, it stays.
 *  Checked at every diagnostic:
 *
 *  - SDCA: the relative duality gap, P - D <= epsilon D. Since D <= P* <= P
 *    this certifies P <= (1 + epsilon) P*, exactly (P* the optimum).
 *  - SGD, SVMSGD2, SGD-QN, RES, LRES: the objective window. With P the
 *    objective now (iteration t) and P_a, P_b the objectives of the last
 *    diagnostics at or before a quarter (t_a) and a half (t_b) of the run, the
 *    rule fires when the objectives of the diagnostics since t_b span at most
 *    epsilon P and the objective now falls at most half as fast as before,
 *    (P_b - P)/(t - t_b) <= (P_a - P_b)/(2 (t_b - t_a)).
 *    No held-out data, and it cannot fire while the objective falls at a
 *    steady pace (steps too small); if P - P* decays like c/t (SGD on a
 *    strongly convex objective) it fires within about (1 + epsilon) P*, like
 *    c/sqrt(t) within (1 + 2.4 epsilon) P*. A heuristic for the stochastic
 *    solvers, not a certificate; it needs at least four diagnostics.
 *  - ss_svm_set_stopping_rule(SS_SVM_STOP_SCORES_VARIATION): the former rule,
 *    scores_variation < epsilon (absolute; it can fire while progress is slow).
 *
 *  The run driver and these rules are shared with the kernel object (run.c). */
SS_API SsStatus ss_svm_set_epsilon(SsSvm *self, double epsilon);

/** @brief The stopping rule read by ss_svm_set_epsilon. */
typedef enum SsSvmStoppingRule {
  SS_SVM_STOP_DEFAULT = 0,          /**< SDCA: relative duality gap; others: objective window */
  SS_SVM_STOP_SCORES_VARIATION = 1  /**< scores_variation < epsilon, every solver */
} SsSvmStoppingRule;
/** @brief Choose the stopping rule; SS_ERR_BAD_ARG for an unknown one. */
SS_API SsStatus ss_svm_set_stopping_rule(SsSvm *self, SsSvmStoppingRule rule);
SS_API SsSvmStoppingRule ss_svm_get_stopping_rule(const SsSvm *self);

/** Epochs of the default iteration cap. */
#define SS_SVM_DEFAULT_EPOCHS 100
/** Epochs of SDCA's default cap with the hinge loss (shrunk epochs are
 *  cheap; the Newton finish at the cap is not). Not with l1, whose epochs
 *  are full passes (docs/stopping.rst, "Why l1 keeps the 100-epoch cap"). */
#define SS_SDCA_HINGE_DEFAULT_EPOCHS 1000
/** The most epochs VLFeat's 10/lambda may add to the default cap (LIBLINEAR's
 *  max_iter): a run at a tiny lambda ends in bounded time, handing over to
 *  the certified Newton finish where its stochastic steps could not get
 *  there (docs/stopping.rst, "The default cap at a tiny lambda"). */
#define SS_SVM_DEFAULT_MAX_EPOCHS 1000

/** @brief Iterations per ss_svm_train call, >= 1. Default
 *  max(SS_SVM_DEFAULT_EPOCHS n, min(ceil(10/lambda), SS_SVM_DEFAULT_MAX_EPOCHS n))
 *  (100 epochs, or VLFeat's 10/lambda when that is more, but at most 1000
 *  epochs; SS_SDCA_HINGE_DEFAULT_EPOCHS, 1000, for SDCA with the hinge
 *  loss), computed at train time while not set: enough
 *  for the default epsilon on ordinary problems, the rule stopping the run
 *  earlier. A run that reaches the cap ends with status
 *  SS_SVM_STATUS_MAX_ITERATIONS (unless the final diagnostic meets the rule). */
SS_API SsStatus ss_svm_set_max_num_iterations(SsSvm *self, int64_t n);
/** @brief Iterations between diagnostics, >= 1, or 0 for the default. Default
 *  (never set, or set to 0): the ends of epochs 1, 2, 3, 4, 6, 9, 13, 19, 28,
 *  ... (each a half more than the last), so the full pass a diagnostic costs
 *  stays a small part of a long run; ss_svm_get_diagnostic_frequency then
 *  returns n, the first interval. Negative: SS_ERR_BAD_ARG. */
SS_API SsStatus ss_svm_set_diagnostic_frequency(SsSvm *self, int64_t f);
/** @brief Bias multiplier B >= 0, finite; default 1. The bias b is kept as is
 *  (order-independent with ss_svm_set_bias). */
SS_API SsStatus ss_svm_set_bias_multiplier(SsSvm *self, double B);
/** @brief Bias learning rate r_b > 0, finite: the bias moves with step r_b eta_t.
 *  Default 1. */
SS_API SsStatus ss_svm_set_bias_learning_rate(SsSvm *self, double rate);
/** @brief One of the built-in SsLoss values; default SS_LOSS_HINGE
 *  (SS_LOSS_HINGE2 for SS_SOLVER_RES and SS_SOLVER_LRES, which need a
 *  differentiable loss and reject SS_LOSS_HINGE and SS_LOSS_L1 with
 *  SS_ERR_BAD_ARG). (SS_LOSS_CUSTOM is selected by ss_svm_set_loss_functions.) */
SS_API SsStatus ss_svm_set_loss(SsSvm *self, SsLoss loss);
/** @brief Install a custom loss (copied; the context is borrowed). value,
 *  derivative and conjugate must be non-NULL; dual_update is needed by SDCA.
 *  The loss becomes SS_LOSS_CUSTOM. */
SS_API SsStatus ss_svm_set_loss_functions(SsSvm *self, const SsLossFunctions *functions);
/** @brief Per-example weights c_i >= 0, finite, copied (n values). NULL
 *  restores uniform weights. SS_ERR_BAD_STATE on an object without data.
 *  SDCA's dual variables restart at 0. */
SS_API SsStatus ss_svm_set_weights(SsSvm *self, const double *weights);
/** @brief Copy a model w of @c dimension finite values. SDCA with data
 *  derives its model from the dual variables: there it returns
 *  SS_ERR_BAD_STATE (use ss_svm_set_dual_variables). An SDCA object without
 *  data accepts a model (to predict); ss_svm_set_data then restarts the dual
 *  variables, and the model, at 0. */
SS_API SsStatus ss_svm_set_model(SsSvm *self, const double *model);
/** @brief Set the bias b (finite); independent of the order of
 *  ss_svm_set_bias_multiplier. SDCA with data and B > 0 learns b from the
 *  dual variables and returns SS_ERR_BAD_STATE; with B = 0, b is a fixed
 *  offset. */
SS_API SsStatus ss_svm_set_bias(SsSvm *self, double bias);
/** @brief Iterations already done (>= 0): the SGD schedule continues from it.
 *  Set it with the model and bias to warm-start a fresh object. A train call
 *  needs room for its cap (t + max_num_iterations <= INT64_MAX): otherwise
 *  ss_svm_train refuses with SS_ERR_BAD_STATE rather than stop short. */
SS_API SsStatus ss_svm_set_iteration_number(SsSvm *self, int64_t t);
/** @brief Seed of the object's own random generator; default 0. The visiting
 *  order of epoch e is a function of (seed, e) only. */
SS_API SsStatus ss_svm_set_seed(SsSvm *self, uint64_t seed);
/** @brief Threads for one model, >= 1; default 1. The order-free passes --
 *  the scores of every diagnostic (objective, duality gap) and
 *  ss_svm_decision_function -- split their rows into fixed blocks over this
 *  many threads (a pool the object owns), each score computed alone, so
 *  every result is bit-identical for any count. The solvers' steps stay
 *  serial, as do the callbacks of an abstract data source. A core built
 *  without POSIX threads accepts any count and runs serially (docs/embedding.rst).
 *  A count above SS_MAX_NUM_THREADS is taken as SS_MAX_NUM_THREADS.
 *  @return SS_OK, SS_ERR_BAD_ARG below 1, or SS_ERR_ALLOC. */
SS_API SsStatus ss_svm_set_num_threads(SsSvm *self, int num_threads);
/** @brief Visit the examples of every epoch in a fresh random permutation
 *  (non-zero, the default) or in data order (0), for the stochastic
 *  solvers. Data order is what Bottou's SVMSGD2 and SGD-QN programs do (on
 *  data shuffled once beforehand): rows are read sequentially, which on data
 *  larger than the caches makes an epoch several times faster (see
 *  bench/results/visit_order.md). Either way the order of epoch e is a
 *  function of (seed, e) only, so warm starts stay exact.
 *  @return SS_OK or SS_ERR_BAD_ARG (NULL). */
SS_API SsStatus ss_svm_set_shuffle(SsSvm *self, int enabled);
/** @brief The order in which the stochastic solvers visit the examples. */
typedef enum SsVisitOrder {
  SS_VISIT_DATA_ORDER = 0,  /**< 0, 1, ..., n-1 every epoch (ss_svm_set_shuffle(0)) */
  SS_VISIT_PERMUTATION = 1, /**< a fresh uniformly random permutation per epoch (the default) */
  SS_VISIT_BLOCKS = 2,      /**< a fresh block-wise permutation per epoch: blocks of
                                 SS_SVM_VISIT_BLOCK consecutive rows in a random order,
                                 the rows of each block in a random order. A block's rows
                                 are neighbours in memory, so an epoch reads the data
                                 nearly sequentially (bench/results/visit_order.md). */
  SS_VISIT_INTERLEAVED = 3  /**< blocks of SS_SVM_VISIT_BLOCK consecutive rows in a fresh
                                 random order per epoch, taken SS_SVM_VISIT_STREAMS at a
                                 time and read side by side: a row of each block of the
                                 group in turn, each block's rows in data order. The data
                                 are read as that many sequential streams, and consecutive
                                 visits come from as many random places. */
} SsVisitOrder;
/** Rows per block of SS_VISIT_BLOCKS and SS_VISIT_INTERLEAVED. */
#define SS_SVM_VISIT_BLOCK 256
/** Blocks read side by side by SS_VISIT_INTERLEAVED. */
#define SS_SVM_VISIT_STREAMS 4
/** @brief The visiting order (ss_svm_set_shuffle chooses between the first
 *  two). The order of epoch e is a function of (seed, e) only, whatever it is.
 *  @return SS_OK or SS_ERR_BAD_ARG (NULL, unknown order). */
SS_API SsStatus ss_svm_set_visit_order(SsSvm *self, SsVisitOrder order);
/** @brief Diagnostic callback and its user pointer (NULL to remove). */
SS_API SsStatus ss_svm_set_diagnostic_function(SsSvm *self, SsSvmDiagnosticFunction f, void *user);
/** @brief Interrupt callback and its user pointer (NULL to remove). */
SS_API SsStatus ss_svm_set_interrupt_function(SsSvm *self, SsSvmInterruptFunction f, void *user);

/* ------------------------------------------------------------------------ */
/*                                  Getters                                 */
/* ------------------------------------------------------------------------ */

/* Getters never fail. Given NULL for the object they read nothing and return
 * 0, NaN (a double), NULL (a pointer), "" (the last error), or for an enum its
 * "none" value or a new object's default (SS_SOLVER_NONE, SS_LOSS_HINGE,
 * SS_VISIT_PERMUTATION, SS_SVM_STOP_DEFAULT). */

SS_API SsSolver ss_svm_get_solver(const SsSvm *self);
SS_API double ss_svm_get_lambda(const SsSvm *self);
SS_API double ss_svm_get_epsilon(const SsSvm *self);
/** @brief The cap in force (the default is computed from n and lambda). */
SS_API int64_t ss_svm_get_max_num_iterations(const SsSvm *self);
/** @brief The frequency in force (n by default; 0 for an object without data). */
SS_API int64_t ss_svm_get_diagnostic_frequency(const SsSvm *self);
SS_API double ss_svm_get_bias_multiplier(const SsSvm *self);
SS_API double ss_svm_get_bias_learning_rate(const SsSvm *self);
SS_API SsLoss ss_svm_get_loss(const SsSvm *self);
/** @brief The copied weights, or NULL for uniform weights. */
SS_API const double *ss_svm_get_weights(const SsSvm *self);
/** @brief The model w (dimension values), owned by the object, valid until the
 *  next call on it. */
SS_API const double *ss_svm_get_model(const SsSvm *self);
/** @brief The bias b (the additive term of the score). */
SS_API double ss_svm_get_bias(const SsSvm *self);
SS_API int64_t ss_svm_get_iteration_number(const SsSvm *self);
/** @brief The iteration number as a running ss_svm_train last published it:
 *  the one getter another thread may call while training runs (a relaxed
 *  atomic load, no lock), for progress displays. Updated at the start of a
 *  train call and after every piece of steps (at most SS_SVM_INTERRUPT_PERIOD
 *  iterations, and at every epoch end and diagnostic); between train calls
 *  the value of the last one (0 before the first). */
SS_API int64_t ss_svm_poll_iteration_number(const SsSvm *self);
SS_API uint64_t ss_svm_get_seed(const SsSvm *self);
/** @brief 1 if epochs visit a random permutation (the default), 0 for data order. */
SS_API int ss_svm_get_shuffle(const SsSvm *self);
/** @brief The visiting order in force. */
SS_API SsVisitOrder ss_svm_get_visit_order(const SsSvm *self);
SS_API int64_t ss_svm_get_dimension(const SsSvm *self);
/** @brief n, or 0 for an object without data. */
SS_API int64_t ss_svm_get_num_data(const SsSvm *self);
/** @brief Scores s_i = <w, x_i> + b at the last diagnostic (n values, owned by
 *  the object), or NULL before the first ss_svm_train. Makes a pending
 *  closing diagnostic first (ss_svm_settle). */
SS_API const double *ss_svm_get_scores(const SsSvm *self);
/** @brief The thread count set (default 1). */
SS_API int ss_svm_get_num_threads(const SsSvm *self);
/** @brief Scores <w, x> + b of the present model for the m rows of @p data
 *  (with a homogeneous kernel map attached to @p data, of the mapped rows),
 *  on the object's threads (ss_svm_set_num_threads).
 *  @param scores m doubles, written (all of them, whatever the status).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, dimension mismatch); SS_ERR_NUMERIC
 *          (a score is not finite: values, or their kernel map, too large for
 *          the model, about 1e308 times a weight of 2); SS_ERR_BAD_DATA (a
 *          value of @p data is not finite: its array changed after the
 *          descriptor was made). Scan @p scores for the row. */
SS_API SsStatus ss_svm_decision_function(const SsSvm *self, const SsData *data, double *scores);
/** @brief Statistics of the last diagnostic, owned by the object. Makes a
 *  pending closing diagnostic first (ss_svm_settle): the one getter besides
 *  ss_svm_get_scores that may do a pass over the data. Because these two may
 *  then write to the object, threads that share an object call ss_svm_settle
 *  once after ss_svm_train; from then on every getter only reads. */
SS_API const SsSvmStatistics *ss_svm_get_statistics(const SsSvm *self);

/** Modes of the Newton finish (ss_svm_set_newton_fallback). */
enum {
  SS_SVM_NEWTON_FALLBACK_OFF = 0,  /**< never: a run ends where its own rule or cap ends it */
  SS_SVM_NEWTON_FALLBACK_ON = 1,   /**< whenever a run would end uncertified, whoever set the cap */
  SS_SVM_NEWTON_FALLBACK_AUTO = 2  /**< the default: ON for SDCA's smooth losses; for the primal
                                        solvers (every loss they finish: smooth, hinge, l1) and
                                        SDCA's hinge and l1 ON under the object's default cap, OFF once
                                        set_max_num_iterations set one (a cheap, rough run the
                                        caller asked for) */
};

/** @brief The Newton finish of the smooth losses (hinge2, logistic, l2):
 *  SDCA, SGD, SVMSGD2, SGD-QN, RES and LRES; and of the hinge (SDCA, SGD,
 *  SVMSGD2, SGD-QN) and l1 (SDCA, SGD, SVMSGD2, SGD-QN): Newton on the smoothed
 *  loss with continuation, certified by the loss's own duality gap
 *  (src/core/linear/newton_hinge.c, docs/sdca.rst, docs/stopping.rst).
 *  @p mode: SS_SVM_NEWTON_FALLBACK_OFF, _ON, or _AUTO (the default); any
 *  other non-zero value means ON.
 *
 *  A run that would end without meeting its tolerance (on its iteration cap,
 *  or earlier by a stall rule: SDCA's gap falling too slowly, docs/sdca.rst;
 *  the primal solvers' flat objective window whose dual certificate refused
 *  the stop and whose decrease cannot close the gap within the cap,
 *  docs/stopping.rst) continues with a primal truncated Newton method
 *  (src/core/linear/newton.c) from the model the run returned, until the
 *  relative gap (P - D) / max(P, D) of the primal-dual map
 *  alpha_i = -c_i loss'(y_i, s_i) meets epsilon (status
 *  SS_SVM_STATUS_CONVERGED: P - P* <= epsilon max(P, D)) or 1000 Newton
 *  iterations ran (status SS_SVM_STATUS_MAX_ITERATIONS). SDCA's dual
 *  variables are then set by that map (the next train continues SDCA from
 *  them); the primal solvers keep their schedule's iteration, SGD-QN's
 *  diagonal and RES's curvature (src/core/linear/primal_finish.c). The
 *  statistics count the Newton iterations (num_newton_iterations) and report
 *  the map's duality gap. With the hinge and l1 the SGD family also hands
 *  over where its objective window fires (the window alone, uncertified for
 *  these losses, would read "converged"). Runs that converge certified, the
 *  custom loss, SDCA's l1, the scores-variation rule and epsilon = 0 are not
 *  affected.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL); SS_ERR_BAD_STATE (solver none). */
SS_API SsStatus ss_svm_set_newton_fallback(SsSvm *self, int mode);
/** @brief The mode in force: SS_SVM_NEWTON_FALLBACK_OFF (also for solver
 *  none), _ON (SDCA's default), or _AUTO (the primal solvers' default). */
SS_API int ss_svm_get_newton_fallback(const SsSvm *self);

#ifdef __cplusplus
}
#endif

/* The knobs of one solver family each (a setter returns SS_ERR_BAD_STATE on
 * an object of another solver). */
#include "sgd.h"
#include "sgdqn.h"
#include "sdca.h"
#include "res.h"

#endif /* STOCHSVM_SVM_H */

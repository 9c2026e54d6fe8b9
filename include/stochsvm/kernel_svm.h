/* kernel_svm.h -- the kernel SVM object: SBP, kernel Pegasos, kernel SDCA, Perceptron.
 *
 * The predictor is a kernel expansion over support vectors z_j:
 *
 *     f(x) = sum_j beta_j K(z_j, x) + b
 *
 * The regularized problem (kernel Pegasos, kernel SDCA), with C = 1/(lambda n):
 *
 *     P(w) = lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i <w, phi(x_i)>)
 *     D(alpha) = lambda (sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j K(x_i, x_j)),
 *                0 <= alpha_i <= c_i C,   w = sum_i alpha_i y_i phi(x_i)
 *
 * with per-example weights c_i >= 0 (default 1; ss_kernel_svm_set_weights).
 *
 * (D is the dual of P; P >= D, equal at the optimum.) The Stochastic Batch
 * Perceptron (Cotter, Shalev-Shwartz, Srebro 2012) solves the slack-
 * constrained problem instead (docs/kernel.rst):
 *
 *     max_{||w|| <= 1, b}  gamma  s.t.  y_i (<w, phi(x_i)> + b) >= gamma - xi_i,
 *                                      xi >= 0, sum_i xi_i <= n nu
 *
 * and returns w / gamma, b / gamma. The online Perceptron is the paper's
 * baseline and optimises nothing.
 *
 * Life cycle, as SsSvm: ss_kernel_svm_new -> ss_kernel_svm_set_* ->
 * ss_kernel_svm_train (repeatable) -> ss_kernel_svm_get_* -> ss_kernel_svm_delete.
 *
 * Repeated training continues: each solver keeps its state between train
 * calls (SBP: alpha, responses, norm, running averages; Pegasos and the
 * Perceptron: the counts alpha; SDCA: the dual variables), so training N
 * iterations equals training N/2 and then N/2 more, bit for bit. The model
 * (support vectors copied out of the training data, coefficients, bias) is
 * rebuilt from the solver state at every diagnostic and at the end of every
 * train call, and outlives the training data.
 */
#ifndef STOCHSVM_KERNEL_SVM_H
#define STOCHSVM_KERNEL_SVM_H

#include "kernel.h"
#include "kernel_budget.h"
#include "svm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SsKernelSvm, the opaque kernel SVM object, is declared in kernel_budget.h
 * (included above): a second typedef is an error before C11. */

/** @brief Solvers of the kernel SVM object. Values 5 and 6 are reserved for
 *  the budgeted solvers (SS_KSOLVER_BSCA, SS_KSOLVER_BSGD). */
typedef enum SsKernelSolver {
  SS_KSOLVER_NONE = 0,       /**< no training: train evaluates the set model */
  SS_KSOLVER_SBP = 1,        /**< Stochastic Batch Perceptron (src/core/kernel/sbp.c) */
  SS_KSOLVER_PEGASOS = 2,    /**< kernel Pegasos (src/core/kernel/kernel_pegasos.c) */
  SS_KSOLVER_SDCA = 3,       /**< kernel dual coordinate ascent (src/core/kernel/kernel_sdca.c;
                                  with a bias kernel_sdca_pair.c) */
  SS_KSOLVER_PERCEPTRON = 4, /**< online kernel Perceptron (src/core/kernel/perceptron.c) */
  SS_KSOLVER_BSCA = 5,       /**< budgeted stochastic coordinate ascent (src/core/budget/bsca.c, kernel_budget.h) */
  SS_KSOLVER_BSGD = 6        /**< budgeted stochastic gradient descent (src/core/budget/bsgd.c, kernel_budget.h) */
} SsKernelSolver;

/** @brief Statistics of the last diagnostic (filled at every diagnostic and
 *  at the end of every train call). Kernel evaluations made by diagnostics
 *  themselves are not counted. */
typedef struct SsKernelSvmStatistics {
  SsSvmStatus status;
  int64_t iteration;           /**< iterations done in total, warm-start offset included */
  int64_t epoch;               /**< iteration / n */
  double objective;            /**< what the solver optimises: SBP the margin gamma of the
                                    averaged iterate (maximised); Pegasos, SDCA: the primal
                                    P; Perceptron, none: P of the model */
  double primal_objective;     /**< P of the model (SBP: of w/gamma, with its bias) */
  double regularizer;          /**< lambda/2 ||w||^2 of the model */
  double loss;                 /**< 1/n sum_i hinge(y_i f(x_i)) of the model */
  double dual_objective;       /**< SDCA: D(alpha); BSCA: D(alpha) until budget maintenance
                                    first changes its model, NaN after (docs/budget.rst); BSGD:
                                    the same, D(alpha / r) where its alpha leaves the box by
                                    r = max_i alpha_i / (c_i C) > 1 (within an epoch); SBP:
                                    the dual bound that judged a window stop at this diagnostic
                                    (docs/stopping.rst); else NaN */
  double duality_gap;          /**< P - dual_objective; else NaN */
  double margin;               /**< SBP: gamma of the averaged iterate; else NaN */
  double training_error;       /**< fraction of training examples with y_i f(x_i) <= 0 */
  int64_t num_kernel_evaluations; /**< evaluations made by the solver, in total (warm start
                                    included; diagnostics excluded) */
  int64_t num_support_vectors; /**< entries of the model's expansion */
  double elapsed_time;         /**< wall-clock seconds since the start of this train call */
  double finish_epochs;        /**< epochs (iterations / n; pair steps with the bias) of the
                                    kernel SDCA finish in this train call, 0 if none ran
                                    (ss_kernel_svm_set_sdca_finish) */
  double exact_cost;           /**< the SBP with nu derived from lambda on more rows than its
                                    warm-up's sample: the predicted kernel evaluations of an
                                    exact kernel SDCA solve, against which its run races
                                    (src/core/kernel/sbp_race.c); Pegasos, BSGD and BSCA
                                    whose run may hand over to the finish, on 2,048 rows or
                                    more: the finish's predicted kernel evaluations, at which
                                    the run hands over if below n^2 (kernel_finish.c); 0
                                    otherwise */
} SsKernelSvmStatistics;

/** @brief Diagnostic callback (as SsSvmDiagnosticFunction): called every
 *  diagnostic_frequency iterations and at the end of a run; non-zero stops
 *  training. As there, it is called once more with the statistics of a
 *  finish (the exact solver's, after Pegasos or the SBP), its answer
 *  ignored. It may call any getter and ss_kernel_svm_decision_function; a
 *  setter or ss_kernel_svm_train called there returns SS_ERR_BAD_STATE. */
typedef int (*SsKernelSvmDiagnosticFunction)(const SsKernelSvm *svm, void *user);

/** Iterations between two calls of the interrupt callback of a kernel SVM
 *  (an SBP iteration costs n kernel evaluations, so this is smaller than
 *  SS_SVM_INTERRUPT_PERIOD). A run the callback stops makes no closing
 *  diagnostic where that is a pass of the n rows against the support
 *  vectors (Pegasos, SDCA without the bias, the Perceptron: seconds on large
 *  data): the model is written, the statistics give the status interrupted,
 *  the iteration, epoch, kernel evaluations, support vectors and time, and
 *  NaN for the objectives, loss, regularizer, gap, margin and training
 *  error; their runs' diagnostics poll the callback during their pass too
 *  (every 2^22 kernel evaluations), and a stop there ends the run so. The
 *  other solvers measure their model as at any diagnostic. */
#define SS_KERNEL_SVM_INTERRUPT_PERIOD 64

/* ------------------------------------------------------------------------ */
/*                             Create and destroy                           */
/* ------------------------------------------------------------------------ */

/** @brief Create a kernel SVM on a data set.
 *  @param solver one of SsKernelSolver.
 *  @param kernel a valid kernel (copied).
 *  @param data   descriptor (copied; the arrays are borrowed and must outlive
 *                training). No kernel map. A precomputed kernel needs an
 *                n x n Gram matrix (dimension == num_data).
 *  @param labels n labels in {-1, +1}, copied.
 *  @param lambda regularization, finite and > 0 (Pegasos, SDCA, and the
 *                primal reported for every solver).
 *  @return a new object or NULL (ss_kernel_svm_check_new tells why). */
SS_API SsKernelSvm *ss_kernel_svm_new(SsKernelSolver solver, const SsKernel *kernel,
                                      const SsData *data, const double *labels, double lambda);

/** @brief The status ss_kernel_svm_new would fail with (SS_OK if it would
 *  succeed, memory permitting): SS_ERR_BAD_ARG or SS_ERR_BAD_DATA (labels). */
SS_API SsStatus ss_kernel_svm_check_new(SsKernelSolver solver, const SsKernel *kernel,
                                        const SsData *data, const double *labels, double lambda);

/** @brief Create a kernel SVM without data, for a model of input dimension
 *  @p dimension (a precomputed kernel: the number of training examples the
 *  model's indices refer to). Setters, getters and the decision function
 *  work; train returns SS_ERR_BAD_STATE until ss_kernel_svm_set_data.
 *  @return a new object or NULL. */
SS_API SsKernelSvm *ss_kernel_svm_new_without_data(SsKernelSolver solver, const SsKernel *kernel,
                                                   int64_t dimension, double lambda);

/** @brief New data of the same dimension. The solver state restarts from
 *  zero (iteration number 0); the model is kept until the next train.
 *  @return SS_OK, SS_ERR_BAD_ARG (NULL, dimension mismatch, a precomputed
 *          matrix that is not square), SS_ERR_BAD_DATA (labels), SS_ERR_ALLOC. */
SS_API SsStatus ss_kernel_svm_set_data(SsKernelSvm *self, const SsData *data, const double *labels);

/** @brief Free the object and everything it owns. NULL is allowed. Called
 *  from the object's own diagnostic or interrupt function it does nothing
 *  (the run still uses the object): return non-zero there to stop the run,
 *  and delete the object after ss_kernel_svm_train returns. */
SS_API void ss_kernel_svm_delete(SsKernelSvm *self);

/** @brief Why the last call on the object failed, e.g.
 *  "set_nu: nu must be finite and > 0, got 0" -- as ss_svm_get_last_error:
 *  every function that takes a non-const object and returns a status sets it
 *  on failure and clears it (to "") on success.
 *  @return never NULL; "" for self = NULL. */
SS_API const char *ss_kernel_svm_get_last_error(const SsKernelSvm *self);

/* ------------------------------------------------------------------------ */
/*                                   Train                                  */
/* ------------------------------------------------------------------------ */

/** @brief Run the solver from its present state for max_num_iterations
 *  iterations, or until the stopping rule fires (ss_kernel_svm_set_epsilon).
 *
 *  One iteration: SBP one step of Algorithm 1 (n kernel evaluations);
 *  Pegasos, SDCA, Perceptron one visited example (one kernel evaluation per
 *  support vector); SDCA with a bias one pair step (two cached kernel rows).
 *  Pegasos, SDCA and the Perceptron visit the examples of epoch e in a
 *  permutation drawn from (seed, e); SBP samples its example at iteration t
 *  from (seed, t).
 *  @return SS_OK; SS_ERR_INTERRUPTED (a callback stopped it; the model is
 *          valid); SS_ERR_BAD_STATE (no data, or no room: the iteration number
 *          exceeds INT64_MAX minus the cap, so the run could not do its
 *          max_num_iterations iterations; nothing is trained); SS_ERR_BAD_DATA (SBP with a
 *          bias needs both classes, or a row's squared norm is not finite: values
 *          above about 1e154 overflow when squared; nothing is trained; or a row
 *          of the borrowed data changed since set_data, found before the run,
 *          or during it, found when it ends: the model is not reliable); SS_ERR_NUMERIC (a non-finite model:
 *          status SS_SVM_STATUS_ERROR; or the kernel's values overflow on the finite
 *          data, the last error naming the kernel: a K(x_i, x_i) that is not finite is
 *          refused before the run, nothing trained, model, state and statistics as they
 *          were; one found in the run, a step's value or a diagnostic's training score
 *          not finite, ends it with status SS_SVM_STATUS_ERROR and the model of that
 *          diagnostic, which cannot score the data; finite kernel values whose sum
 *          over the model overflows count, the model's own scores checked where
 *          sum_j |coef_j| max |K| + |b| overflows; SS_OK means the model of the
 *          last diagnostic scores every training row finitely); SS_ERR_DIVERGED (Pegasos, BSGD: the
 *          primal rose above 1e4 P(0), P(0) = 1/n sum_i c_i being its value at
 *          w = 0: status SS_SVM_STATUS_DIVERGED; lower eta0 or raise lambda);
 *          SS_ERR_ALLOC. A run that ends at the cap has status
 *          SS_SVM_STATUS_MAX_ITERATIONS unless its final diagnostic meets the rule. */
SS_API SsStatus ss_kernel_svm_train(SsKernelSvm *self);

/** @brief Scores f(x) = sum_j beta_j K(z_j, x) + b of the rows of @p data
 *  with the present model.
 *  @param data   m rows of the object's dimension (precomputed: m x n kernel
 *                values against the training examples).
 *  @param scores m doubles, written (all of them, unless SS_ERR_BAD_ARG or
 *                SS_ERR_ALLOC).
 *  @return SS_OK, SS_ERR_BAD_ARG (NULL, dimension mismatch, kernel map),
 *          SS_ERR_ALLOC; SS_ERR_NUMERIC (a score is not finite: the values are
 *          too large for the model, and the sum overflows); SS_ERR_BAD_DATA (a
 *          value of @p data is not finite: its array changed after the
 *          descriptor was made). Scan @p scores for the row. */
SS_API SsStatus ss_kernel_svm_decision_function(const SsKernelSvm *self, const SsData *data,
                                                double *scores);

/* ------------------------------------------------------------------------ */
/*                                  Setters                                 */
/* Each returns SS_ERR_BAD_ARG for a value out of range (NaN included) and  */
/* leaves the object unchanged. Not callable from a callback.               */
/* ------------------------------------------------------------------------ */

/** @brief lambda > 0, finite. Pegasos and SDCA restart from zero (their
 *  counts and dual variables depend on lambda); SBP only reports with it;
 *  BSCA and BSGD as kernel_budget.h says (BSCA without the bias: alpha
 *  into the new box, the model rebuilt to match; after budget maintenance,
 *  at a smaller C, a restart). */
SS_API SsStatus ss_kernel_svm_set_lambda(SsKernelSvm *self, double lambda);
/** @brief Per-example weights c_i (n values, each finite and >= 0), copied;
 *  NULL restores uniform weights (all 1, the default). The weighted problem
 *  of Pegasos, SDCA, BSCA and BSGD is
 *  P(w) = lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i <w, phi(x_i)>),
 *  whose dual box is 0 <= alpha_i <= c_i / (lambda n); the Perceptron scales
 *  its update of example i by c_i; the reported primal and loss are the
 *  weighted ones for every solver (the training error is not weighted). A
 *  weight of 0 removes the example from training. The solver state restarts
 *  from zero (iteration 0); ss_kernel_svm_set_data clears the weights.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL object, a negative or non-finite
 *          weight: weights unchanged); SS_ERR_BAD_STATE (no data, or non-NULL
 *          weights for SBP, which has no weighted formulation, see sbp.c);
 *          SS_ERR_ALLOC. */
SS_API SsStatus ss_kernel_svm_set_weights(SsKernelSvm *self, const double *weights);
/** @brief SBP's slack budget per example nu, finite and > 0. The total
 *  slack is n nu. Default: derived from lambda at the first train (see
 *  ss_kernel_svm_estimate_nu), so that the SBP solves the SVM of lambda;
 *  ss_kernel_svm_unset_nu restores that default.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, not finite, <= 0); SS_ERR_BAD_STATE
 *          (a solver other than the SBP, which has no nu: refused rather
 *          than ignored). */
SS_API SsStatus ss_kernel_svm_set_nu(SsKernelSvm *self, double nu);
/** @brief Forget a nu set by ss_kernel_svm_set_nu: the SBP derives nu from
 *  lambda again (the default).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL). */
SS_API SsStatus ss_kernel_svm_unset_nu(SsKernelSvm *self);
/** @brief SBP, BSCA and SDCA: learn an unregularized bias (non-zero) or not (0).
 *  Default: on for BSCA (the bias-free form of the paper oscillates on data
 *  such as a9a, docs/budget.rst), off for the SBP (the paper's form; nu
 *  derived from lambda follows the setting) and for SDCA. Other solvers have
 *  no bias and refuse a non-zero value with SS_ERR_BAD_STATE. Restarts the
 *  SBP averages. BSCA with a bias solves the dual with sum_i y_i alpha_i = 0
 *  (LIBSVM's problem) by pair steps and sets the bias to the minimiser of the
 *  primal for its model at each diagnostic; changing the setting restarts
 *  BSCA. SDCA with a bias is the exact pairwise solver of LIBSVM's dual
 *  (kernel_sdca_pair.c: second-order working sets, a kernel-row cache,
 *  shrinking; one iteration is one pair step; the bias is the KKT bias);
 *  changing the setting restarts SDCA. */
SS_API SsStatus ss_kernel_svm_set_unregularized_bias(SsKernelSvm *self, int enabled);
/** @brief SBP's eta_0 > 0, finite; default 1 / sqrt(max_i K(x_i, x_i)),
 *  computed at train time while unset.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, not finite, <= 0); SS_ERR_BAD_STATE
 *          (a solver other than the SBP). */
SS_API SsStatus ss_kernel_svm_set_eta0(SsKernelSvm *self, double eta0);
/** Default size of the kernel-row cache of SDCA with a bias, in MB (SVC's). */
#define SS_KERNEL_SVM_DEFAULT_CACHE_SIZE 200.0
/** @brief SDCA with a bias: the kernel-row cache in MB (2^20 bytes), finite
 *  and > 0; default SS_KERNEL_SVM_DEFAULT_CACHE_SIZE. It holds
 *  max(2, min(n, floor(size / (8 n)))) rows of n doubles, allocated as they
 *  are first needed and freed with the solver's state. The size changes the
 *  running time only, never the iterates. Accepted for every solver (others
 *  ignore it). @return SS_OK; SS_ERR_BAD_ARG (NULL, not finite, <= 0);
 *  SS_ERR_ALLOC (a trained state's cache could not be rebuilt). */
SS_API SsStatus ss_kernel_svm_set_cache_size(SsKernelSvm *self, double megabytes);
/** @brief The cache size in force, in MB. */
SS_API double ss_kernel_svm_get_cache_size(const SsKernelSvm *self);
/** @brief SDCA with a bias: take the kernel rows from a store shared with
 *  @p source (created on @p source if it has none), e.g. between the binary
 *  problems of a one-vs-rest fit: the rows do not depend on the labels.
 *  Each row is then computed once, by the first object that needs it, for
 *  all of them. Used while all n rows of n doubles fit in the object's
 *  cache size (otherwise its own cache works as before); it changes the
 *  running time and the kernel evaluations counted (each object counts the
 *  rows it computed), never the iterates. The objects may train at the same
 *  time in different threads. The store holds a reference per object and is
 *  freed with the last; set_data leaves it. @p source NULL: stop sharing.
 *  A core built without C11 atomics (docs/embedding.rst) has no store: the
 *  call checks that both objects have data and shares nothing.
 *  Not while either object trains. @return SS_OK; SS_ERR_BAD_ARG (NULL
 *  self; rows that differ: not the same values array, CSR structure (equal
 *  by value), kernel or kernel precision); SS_ERR_BAD_STATE (an object without data);
 *  SS_ERR_ALLOC. */
SS_API SsStatus ss_kernel_svm_share_kernel_rows(SsKernelSvm *self, SsKernelSvm *source);
/** @brief The precision of the kernel rows the solvers compute. */
typedef enum SsKernelPrecision {
  SS_KERNEL_ROWS_FLOAT64 = 0, /**< double throughout (the default) */
  SS_KERNEL_ROWS_FLOAT32 = 1  /**< rbf on float32 data: exp (and dense dots) in float */
} SsKernelPrecision;
/** @brief The precision of the kernel rows used in training (docs:
 *  "Float32 kernel rows"). SS_KERNEL_ROWS_FLOAT32 computes the rbf kernel
 *  of float32 data with a single-precision exp (and, for dense data, single
 *  precision dot products), each value within about 1e-7 of the float64
 *  one; solvers still sum in double. Prediction keeps the float64 rows.
 *  Changing the precision forgets a trained solver state (the next train
 *  starts afresh). @return SS_OK; SS_ERR_BAD_ARG (NULL, unknown precision,
 *  float32 for a kernel other than rbf or for the budgeted solvers bsca and
 *  bsgd); SS_ERR_BAD_DATA (float32 while the data set is float64; set_data
 *  then refuses float64 data too). */
SS_API SsStatus ss_kernel_svm_set_kernel_precision(SsKernelSvm *self, SsKernelPrecision precision);
/** @brief The kernel-row precision in force (default SS_KERNEL_ROWS_FLOAT64). */
SS_API SsKernelPrecision ss_kernel_svm_get_kernel_precision(const SsKernelSvm *self);
/** @brief SDCA with a bias: shrink the active set (non-zero, the default) or
 *  not (0). Both reach the same optimum. @return SS_OK; SS_ERR_BAD_ARG (NULL). */
SS_API SsStatus ss_kernel_svm_set_shrinking(SsKernelSvm *self, int enabled);
/** @brief 1 if SDCA with a bias shrinks, else 0. */
SS_API int ss_kernel_svm_get_shrinking(const SsKernelSvm *self);
/** @brief The row copies of CSR training data of the SBP and of exact
 *  SDCA (SS_KSOLVER_SDCA with the bias, and the kernel SDCA finishes and nu
 *  warm-ups, which inherit the setting): on (non-zero, the default) or
 *  none (0). The copy (0/1 rows as bits, other rows in slices summed as
 *  vectors) makes each kernel evaluation cheaper and gives the same values
 *  bit for bit, so the iterates do not depend on it; it is a second copy of
 *  X's stored values (8.7 bytes per stored entry on ijcnn1, at most 12.6;
 *  0/1 data with d <= 256: 8 ceil(d / 64) bytes a row), made at every train
 *  (exact SDCA: at its first kernel row) and freed with the solver's state;
 *  exact SDCA also copies its active rows, compacted, once shrinking leaves
 *  at most 3/4 of them active. Off, the next train frees them (docs:
 *  memory.rst). Kernel SDCA without the bias, kernel Pegasos and the
 *  Perceptron copy their support vectors' rows for the length of each
 *  scores pass (their diagnostics), unless it is off. Dense data has no
 *  copy.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, @p enabled neither 0 nor 1). */
SS_API SsStatus ss_kernel_svm_set_row_copy(SsKernelSvm *self, int enabled);
/** @brief 1 if the SBP and exact SDCA copy CSR training rows (the default), else 0. */
SS_API int ss_kernel_svm_get_row_copy(const SsKernelSvm *self);
/** @brief Relative stopping tolerance, finite and >= 0; default 1e-3; 0
 *  disables the rule. The rules are the linear object's (svm.h,
 *  ss_svm_set_epsilon), applied by the shared run driver at diagnostics:
 *  - SDCA and BSCA: relative duality gap P - D <= epsilon D. For SDCA this
 *    certifies P <= (1 + epsilon) P*. SDCA with a bias first runs its pair
 *    steps until the maximal KKT violation m - M <= epsilon, then the gap
 *    test decides (on failure its tolerance is divided by 10). BSCA's D is
 *    evaluated through the budgeted model: exact until budget maintenance
 *    first changes the model, after which it is only an estimate (not a
 *    bound: it can exceed P) and BSCA never stops "converged": where the
 *    estimate meets the test, or stops shrinking while the budget is full,
 *    the run ends with status SS_SVM_STATUS_BUDGET_LIMITED, uncertified.
 *  - Pegasos, BSGD, SBP: the objective window on the primal P of the model.
 *    The SBP's window never stops a run whose averaged margin (statistics
 *    margin) is not positive: that iterate is worse in the SBP's own
 *    objective than the zero model it started from (docs/stopping.rst).
 *  - Perceptron: none (it minimises no objective); it runs to the cap. */
SS_API SsStatus ss_kernel_svm_set_epsilon(SsKernelSvm *self, double epsilon);
/** Epochs of the default iteration cap. */
#define SS_KERNEL_SVM_DEFAULT_EPOCHS 100
/** @brief Iterations per train call, >= 1; default SS_KERNEL_SVM_DEFAULT_EPOCHS n
 *  (the stopping rule usually ends the run earlier). */
SS_API SsStatus ss_kernel_svm_set_max_num_iterations(SsKernelSvm *self, int64_t n);
/** @brief Iterations between diagnostics, >= 1, or 0 for the default. Default
 *  (never set, or set to 0): the ends of epochs 1, 2, 3, 4, 6, 9, 13, 19, ...
 *  (each a half more than the last; the getter returns n). Negative:
 *  SS_ERR_BAD_ARG. A diagnostic costs SBP O(n) and the other solvers
 *  n * (support vectors) kernel evaluations (not counted in the statistics). */
SS_API SsStatus ss_kernel_svm_set_diagnostic_frequency(SsKernelSvm *self, int64_t f);
/** @brief Seed of the object's random generator; default 0. */
SS_API SsStatus ss_kernel_svm_set_seed(SsKernelSvm *self, uint64_t seed);
/** @brief Threads for one model, >= 1; default 1. Kernel rows (SBP, kernel
 *  SDCA, kernel Pegasos, the Perceptron), the diagnostic passes and
 *  prediction split their rows over this many threads (a pool the object
 *  owns); the results are bit-identical for any count. A core built without
 *  POSIX threads accepts any count and runs serially (docs/embedding.rst).
 *  The budgeted solvers (BSCA, BSGD) split the scores of long expansions
 *  (1024 terms and more), their merges' searches and their diagnostics.
 *  A count above SS_MAX_NUM_THREADS is taken as SS_MAX_NUM_THREADS.
 *  SS_ERR_BAD_ARG below 1,
 *  SS_ERR_ALLOC. */
SS_API SsStatus ss_kernel_svm_set_num_threads(SsKernelSvm *self, int num_threads);
/** @brief Diagnostic callback and its user pointer (NULL to remove). */
SS_API SsStatus ss_kernel_svm_set_diagnostic_function(SsKernelSvm *self,
                                                      SsKernelSvmDiagnosticFunction f, void *user);
/** @brief Interrupt callback (polled every SS_KERNEL_SVM_INTERRUPT_PERIOD
 *  iterations) and its user pointer (NULL to remove). */
SS_API SsStatus ss_kernel_svm_set_interrupt_function(SsKernelSvm *self, SsSvmInterruptFunction f,
                                                     void *user);
/** Modes of the kernel SDCA finish (ss_kernel_svm_set_sdca_finish): the
 *  semantics of the linear Newton finish's (SS_SVM_NEWTON_FALLBACK_*). */
enum {
  SS_KERNEL_SDCA_FINISH_OFF = 0,  /**< never: a run ends where its own rule or cap ends it */
  SS_KERNEL_SDCA_FINISH_ON = 1,   /**< whenever a run ends on its cap, whoever set the cap */
  SS_KERNEL_SDCA_FINISH_AUTO = 2  /**< the default: ON under the object's default cap, OFF once
                                       set_max_num_iterations set one (a cheap, rough run the
                                       caller asked for) */
};

/** @brief The certified finish of kernel Pegasos, the SBP (nu derived from
 *  lambda) and, when their budget is at least n, BSGD and BSCA: a train
 *  call that ends on its iteration cap (status SS_SVM_STATUS_MAX_ITERATIONS),
 *  or on its objective window without a dual bound certifying
 *  min(epsilon, 1e-3) where the cache holds the whole kernel matrix
 *  (8 n^2 bytes <= cache size), continues on exact kernel SDCA (bias-free:
 *  the exact pair solver's bias-free mode, greedy steps of two examples
 *  with the kernel-row cache), on the same problem (lambda, weights, the bias form in
 *  force), from alpha = 0 the first time, then from the last finish's dual
 *  state, kept on the object (3 n doubles; scaled to the new box after
 *  set_lambda; forgotten by set_data, set_weights and a change of the bias
 *  form or kernel precision), until its relative
 *  duality gap meets min(epsilon, 1e-3) (status SS_SVM_STATUS_CONVERGED:
 *  P - P* <= epsilon D) or its cap ran (1000 epochs,
 *  up to 10,000 on small sets; status SS_SVM_STATUS_MAX_ITERATIONS).
 *  The model and statistics become the SDCA's (its P, D and gap); the
 *  statistics' finish_epochs counts its epochs; the solver's own state is
 *  kept (src/core/kernel/kernel_finish.c, docs/stopping.rst). @p mode:
 *  SS_KERNEL_SDCA_FINISH_OFF, _ON, or _AUTO (the default); any other value
 *  means ON. Runs that converge, the SDCA and the Perceptron, epsilon = 0
 *  and an SBP on a nu set by the caller are not affected.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL). */
SS_API SsStatus ss_kernel_svm_set_sdca_finish(SsKernelSvm *self, int mode);
/** @brief The mode in force (SS_KERNEL_SDCA_FINISH_AUTO by default). */
SS_API int ss_kernel_svm_get_sdca_finish(const SsKernelSvm *self);
/** @brief Copy a model: @p m support vectors, their coefficients and the bias
 *  (to restore a saved model; the solver state is not changed, the next
 *  train rebuilds the model from it).
 *  @param support_vectors m rows of the object's dimension, copied (NULL for a
 *                precomputed kernel, m = 0 allowed with NULL).
 *  @param indices m training indices in [0, dimension) for a precomputed kernel
 *                (required there); else optional (NULL: -1, not from training),
 *                each -1 or a row of the data in [0, n) (any >= -1 without data).
 *  @param coefficients m finite values, copied.  @param bias finite.
 *  @return SS_OK, SS_ERR_BAD_ARG, SS_ERR_ALLOC. */
SS_API SsStatus ss_kernel_svm_set_model(SsKernelSvm *self, const SsData *support_vectors,
                                        const int64_t *indices, const double *coefficients,
                                        int64_t m, double bias);

/* ------------------------------------------------------------------------ */
/*                                  Getters                                 */
/* ------------------------------------------------------------------------ */

/* Getters never fail. Given NULL for the object they read nothing and return
 * 0, NaN (a double), NULL (a pointer), "" (the last error), or for an enum its
 * "none" value or a new object's default (SS_KSOLVER_NONE, SS_KERNEL_ROWS_FLOAT64). */

/** @brief The solver given at creation. */
SS_API SsKernelSolver ss_kernel_svm_get_solver(const SsKernelSvm *self);
/** @brief The kernel (owned by the object). */
SS_API const SsKernel *ss_kernel_svm_get_kernel(const SsKernelSvm *self);
/** @brief lambda in force. */
SS_API double ss_kernel_svm_get_lambda(const SsKernelSvm *self);
/** @brief The copied per-example weights (n values owned by the object,
 *  valid until the next set_weights or set_data), or NULL for uniform weights. */
SS_API const double *ss_kernel_svm_get_weights(const SsKernelSvm *self);
/** @brief SBP's nu in force: the one set, else the one derived from lambda
 *  (0 until the first train of an SBP derives it). */
SS_API double ss_kernel_svm_get_nu(const SsKernelSvm *self);
/** @brief 1 if the solver (SBP, BSCA, SDCA) learns an unregularized bias, else 0. */
SS_API int ss_kernel_svm_get_unregularized_bias(const SsKernelSvm *self);
/** @brief The eta_0 in force (the default once data is known; 0 before). */
SS_API double ss_kernel_svm_get_eta0(const SsKernelSvm *self);
/** @brief SDCA's duality-gap threshold in force (default 1e-3). */
SS_API double ss_kernel_svm_get_epsilon(const SsKernelSvm *self);
/** @brief The cap in force (10 n by default; 0 without data and unset). */
SS_API int64_t ss_kernel_svm_get_max_num_iterations(const SsKernelSvm *self);
/** @brief The frequency in force (n by default; 0 without data and unset). */
SS_API int64_t ss_kernel_svm_get_diagnostic_frequency(const SsKernelSvm *self);
/** @brief The seed (default 0). */
SS_API uint64_t ss_kernel_svm_get_seed(const SsKernelSvm *self);
/** @brief The thread count set (default 1). */
SS_API int ss_kernel_svm_get_num_threads(const SsKernelSvm *self);
/** @brief Iterations done by the solver in total (0 after new data). */
SS_API int64_t ss_kernel_svm_get_iteration_number(const SsKernelSvm *self);
/** @brief The iteration number as a running ss_kernel_svm_train last
 *  published it (every SS_KERNEL_SVM_INTERRUPT_PERIOD iterations at most):
 *  safe to call from another thread while training runs, as
 *  ss_svm_poll_iteration_number. */
SS_API int64_t ss_kernel_svm_poll_iteration_number(const SsKernelSvm *self);
/** @brief The iterations the last ss_kernel_svm_train made: the iteration
 *  number now less the one its steps began from. A train at a new lambda
 *  restarts the count of some solvers (the SBP, BSCA with the bias, ...), so
 *  the iteration number before the call does not tell it. 0 before the
 *  first train, after a refused one and after new data. */
SS_API int64_t ss_kernel_svm_get_last_train_iterations(const SsKernelSvm *self);
/** @brief Input dimension (precomputed: training set size). */
SS_API int64_t ss_kernel_svm_get_dimension(const SsKernelSvm *self);
/** @brief n, or 0 without data. */
SS_API int64_t ss_kernel_svm_get_num_data(const SsKernelSvm *self);
/** @brief Kernel evaluations made by the solver so far (the counter). */
SS_API int64_t ss_kernel_svm_get_num_kernel_evaluations(const SsKernelSvm *self);
/** @brief Number of support vectors m of the model. */
SS_API int64_t ss_kernel_svm_get_num_support_vectors(const SsKernelSvm *self);
/** @brief The support vectors, a dense or CSR float64 descriptor of m rows
 *  owned by the object (CSR when the training data was CSR), valid until
 *  the next call on it; NULL when m = 0 or for a precomputed kernel. */
SS_API const SsData *ss_kernel_svm_get_support_vectors(const SsKernelSvm *self);
/** @brief The m training indices of the support vectors (-1 for a point
 *  that is not a training example), owned by the object; NULL when m = 0. */
SS_API const int64_t *ss_kernel_svm_get_support_indices(const SsKernelSvm *self);
/** @brief The m coefficients beta_j, owned by the object; NULL when m = 0. */
SS_API const double *ss_kernel_svm_get_coefficients(const SsKernelSvm *self);
/** @brief The model's bias b (0 unless the solver learns one or a model was set). */
SS_API double ss_kernel_svm_get_bias(const SsKernelSvm *self);
/** @brief The solver's per-example variables (n values owned by the object),
 *  NULL without data or before training: SDCA alpha in [0, c_i/(lambda n)];
 *  SBP the averaged alpha divided by gamma; Pegasos, Perceptron the counts. */
SS_API const double *ss_kernel_svm_get_dual_variables(const SsKernelSvm *self);
/** @brief Statistics of the last diagnostic, owned by the object. */
SS_API const SsKernelSvmStatistics *ss_kernel_svm_get_statistics(const SsKernelSvm *self);

/** @brief The paper's choice of nu for a lambda: nu = L(w) / ||w||, with L the
 *  mean hinge loss and w the present model of this object (trained to the
 *  optimum of P for that lambda, e.g. by SDCA). Costs n m + m^2 kernel
 *  evaluations (not counted).
 *  @return SS_OK; SS_ERR_BAD_STATE (no data, an empty model, or one whose
 *          expansion has norm 0); SS_ERR_ALLOC. */
SS_API SsStatus ss_kernel_svm_nu_from_model(const SsKernelSvm *self, double *nu);

/** @brief nu for this object's lambda (src/core/kernel/sbp_nu.c), the SBP's
 *  default: the slack budget at which the slack-constrained problem has the
 *  minimiser w* of P(w) (with the object's bias setting) as its solution is
 *  nu = L(w*) / ||w*||, L the mean hinge loss. w* is computed by exact
 *  kernel SDCA (the object's bias setting, kernel, seed, weights and
 *  threads) to a relative duality gap of 1e-3 or @p epochs epochs. Above
 *  4096 rows it solves a seeded sample of 4096 rows and its two halves of
 *  2048 at the same C (lambda n / m for m rows), and extrapolates their nu
 *  to n by its factor per doubling of the rows, kept in [1/2, 1] (see
 *  src/core/kernel/sbp_nu.c); the estimate is at least 1e-6 (separable
 *  data). Its kernel evaluations are not counted in this object (the SBP
 *  counts those of its own default warm-up). The interrupt callback is
 *  polled.
 *  @param epochs >= 0 (0: the default cap, 100).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, epochs < 0 or too large);
 *          SS_ERR_BAD_STATE (no data); SS_ERR_INTERRUPTED; SS_ERR_ALLOC. */
SS_API SsStatus ss_kernel_svm_estimate_nu(const SsKernelSvm *self, int64_t epochs, double *nu);

/* ------------------------------------------------------------------------ */
/*                     SBP water filling (src/core/kernel/sbp_gamma.c)             */
/* ------------------------------------------------------------------------ */

/** @brief The water level gamma of responses c: sum_i max(0, gamma - c_i) = volume.
 *  Expected O(n) (partition around random pivots, the paper's Algorithm 2).
 *  @param c      n finite responses (not modified).  @param n >= 1.
 *  @param volume n nu, finite and > 0.
 *  @param work   n doubles of scratch.
 *  @return SS_OK or SS_ERR_BAD_ARG. */
SS_API SsStatus ss_sbp_find_gamma(const double *c, int64_t n, double volume, double *work,
                                  double *gamma);

/** @brief Water level and unregularized bias (the paper's Algorithm 3): two
 *  basins, positives at c_i + b and negatives at c_i - b, filled with
 *  @p volume of water to one level gamma so that each covers the same number
 *  k of examples. gamma is unique; when b is not (the level lies on flat
 *  parts of both basins) the midpoint of its optimal interval is returned.
 *  Expected O(n).
 *  @param y n labels in {-1, +1} with both classes present.
 *  @param work 2 n doubles of scratch.
 *  @param covered if non-NULL, receives k.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, n < 2, volume <= 0); SS_ERR_BAD_DATA
 *          (a label not -1/+1, or one class absent). */
SS_API SsStatus ss_sbp_find_gamma_and_bias(const double *y, const double *c, int64_t n,
                                           double volume, double *work, double *gamma,
                                           double *bias, int64_t *covered);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_KERNEL_SVM_H */

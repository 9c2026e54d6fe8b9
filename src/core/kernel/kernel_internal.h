/* kernel_internal.h -- private definitions of the kernel SVM object; never installed.
 *
 * The object owns a model (copied support vectors, coefficients, bias) and a
 * solver-private state. A solver plugs in through an SsKernelSolverOps table
 * (ss_kernel_solver_ops in kernel_svm.c): it keeps whatever expansion it
 * likes in its state (all n examples for SBP and SDCA, a list of support
 * vectors for Pegasos and the Perceptron, a budget of B points for a
 * budgeted solver) and writes the model when asked (`evaluate`).
 */
#ifndef STOCHSVM_KERNEL_INTERNAL_H
#define STOCHSVM_KERNEL_INTERNAL_H

#include "../common/internal.h"
#include "../common/last_error.h"
#include "../driver/run.h"
#include "../common/threads.h"
#include "stochsvm/kernel_svm.h"

/* ------------------------------------------------------------------------ */
/*                           Kernel rows (kernel.c)                          */
/* ------------------------------------------------------------------------ */

/** zd[k] = x_i[k] for the stored entries of row i (dense: every entry). For
 *  CSR zd must be zero elsewhere; ss_data_clear_row puts it back to zero. */
void ss_data_scatter_row(const SsData *data, int64_t i, double *zd);
void ss_data_clear_row(const SsData *data, int64_t i, double *zd);
double ss_data_row_squared_norm(const SsData *data, int64_t i);

/** How the rows of ss_kernel_row_threads and ss_kernel_row_blocks are
 *  computed: an OR of these (0: the float64 path over the values). Every
 *  flag keeps the values independent of the thread count. */
typedef enum SsKernelRowFlags {
  /** X's stored values are all 1 (ss_data_unit_values): the dots skip
   *  loading them, with the same results. */
  SS_ROWS_UNIT_VALUES = 1,
  /** The rbf kernel on float32 X: the float path (kernel.c, "Float32
   *  rows"; SS_KERNEL_ROWS_FLOAT32). Ignored for other kernels and data. */
  SS_ROWS_FLOAT32 = 2
} SsKernelRowFlags;

/** out[k] = K(z, x_{rows[k]}) for k < m (rows NULL: x_k), z given scattered
 *  in zd (precomputed: zd holds K(z, x_1..x_n)) with squared norm z_norm2
 *  (read by rbf only); norms2 are X's squared norms. No allocation. */
void ss_kernel_row_from_scattered(const SsKernel *kernel, const SsData *X, const double *norms2,
                                  const int64_t *rows, int64_t m, const double *zd,
                                  double z_norm2, double *out);
/** The same on up to threads.count threads (threads.h), computed as
 *  @p flags (SsKernelRowFlags) say; the same values for any thread count. */
void ss_kernel_row_threads(const SsKernel *kernel, const SsData *X, const double *norms2,
                           const int64_t *rows, int64_t m, const double *zd, double z_norm2,
                           unsigned flags, double *out, SsThreads threads);

/** A row is cut into fixed blocks of this many entries (the last one
 *  shorter): the unit a thread takes, and the unit of ss_kernel_row_blocks.
 *  The partition depends on the row length only, never on the threads. */
#define SS_KERNEL_ROW_BLOCK 256
static inline int64_t ss_kernel_row_num_blocks(int64_t m)
{
  return (m + SS_KERNEL_ROW_BLOCK - 1) / SS_KERNEL_ROW_BLOCK;
}
/** Receives block @p block = [lo, hi) of a row, its values k[0..hi - lo)
 *  (valid during the call only). Called once per block, from any thread, in
 *  any order: it must write only outputs of its own block. */
typedef void (*SsKernelBlockFn)(void *context, int64_t block, int64_t lo, int64_t hi,
                               const double *k);
/** The row of ss_kernel_row_threads, handed block by block to @p consume
 *  instead of being stored: a solver folds its per-entry work (a response
 *  update, a partial sum) into the pass that computes the values, while
 *  they sit in L1, and that work runs on the row's threads too.
 *  @p flags: SsKernelRowFlags, as the object keeps them (row_flags). */
void ss_kernel_row_blocks(const SsKernel *kernel, const SsData *X, unsigned flags,
                          const double *norms2, const int64_t *rows, int64_t m, const double *zd,
                          double z_norm2, SsThreads threads, SsKernelBlockFn consume,
                          void *context);

/** A copy of CSR training rows laid out for fast dots with a training row
 *  (kernel.c, "Row copies"), refreshed by the solver that owns it at every
 *  train (ss_row_copy_update), so it never outlives a change of X. The dots
 *  over it are the CSR dots to the bit, so every iterate stays the same:
 *  - bits: 0/1 rows (SS_ROWS_UNIT_VALUES) of d <= SS_ROW_BITS_MAX_DIMENSION
 *    features as bit sets, ceil(d / 64) words a row; the dot of two rows is
 *    the popcount of their AND (an integer, as the CSR sum of ones is);
 *  - sliced: other CSR rows (d <= 65536). Each block of
 *    SS_KERNEL_ROW_BLOCK rows is sorted by column pattern and cut into
 *    slices of SS_ROW_SLICE rows; a slice keeps, for each column any of its
 *    rows holds, the rows' values (0 where absent) and which rows hold it
 *    at an even CSR position. The slice's dots are one vector, a lane a
 *    row, z_c the same for every lane, each lane keeping the CSR dot's two
 *    partial sums; an absent entry adds +-0, which changes no sum. Made
 *    only when the zeros add at most SS_ROW_SLICE_MAX_PAD of the entries.
 *  Memory: bits n ceil(d/64) 8 bytes (a9a: 0.5 MB); sliced 8 bytes a
 *  stored value plus 3 a column of a slice (ijcnn1: 5.7 MB, against its
 *  CSR arrays' 8.2 MB). */
typedef struct SsRowCopy {
  int64_t num_rows;            /**< n of the copy (0: no copy; the CSR dots) */
  int64_t words;               /**< bits: words a row; 0: not a bit copy */
  uint64_t *bits;              /**< bits: [n words] */
  int64_t *slice_start;        /**< sliced: [slices + 1] each slice's first column entry */
  uint16_t *columns;           /**< sliced: the columns of each slice, increasing */
  double *values;              /**< sliced: SS_ROW_SLICE values a column entry (0: absent),
                                    64-byte aligned: an entry is one cache line */
  double *values_memory;       /**< sliced: the allocation values lies in */
  int64_t num_entries;         /**< sliced: the column entries of all the slices (values,
                                    columns and even have SS_ROW_PREFETCH more: the
                                    prefetches' room) */
  uint8_t *even;               /**< sliced: bit l: row l holds the column at an even position
                                    (or lacks it, and every row that holds it does so) */
  uint8_t *lane;               /**< sliced: [slices SS_ROW_SLICE] each lane's row, as an
                                    offset from its block's first row */
  size_t bytes;                /**< the memory the copy holds */
} SsRowCopy;

#define SS_ROW_BITS_MAX_DIMENSION 256
#define SS_ROW_SLICE 8
#define SS_ROW_SLICE_MAX_PAD 0.5
/** How many column entries (cache lines) ahead the sliced dots prefetch. */
#define SS_ROW_PREFETCH 96

/** Make or refresh @p copy (zeroed, or from an earlier update) for X's rows,
 *  as @p flags (SsKernelRowFlags) will compute them: a bit copy, a sliced
 *  copy or none (num_rows 0: dense data, a kernel map, too many zeros), as
 *  the rules above say. SS_ERR_ALLOC leaves no copy (num_rows 0, freed). */
SsStatus ss_row_copy_update(SsRowCopy *copy, const SsData *X, unsigned flags);
void ss_row_copy_free(SsRowCopy *copy);

/** Some of X's CSR rows, list[0..m), copied one after the other (row q of
 *  data is X's row list[q]) with their squared norms and their own row
 *  copy, so that a kernel row over the list is a row over consecutive rows
 *  (ss_kernel_training_row_blocks over data): the same dots of the same
 *  rows, so the same values to the bit (kernel.c, "Row subsets"). */
typedef struct SsRowSubset {
  SsData data;      /**< CSR over the arrays below (num_data = m) */
  int64_t *indptr;  /**< [m + 1] */
  int32_t *indices; /**< [their stored values] */
  void *values;     /**< [their stored values], X's dtype */
  double *norms2;   /**< [m] their squared norms */
  SsRowCopy copy;   /**< data laid out for the dots, as @p flags said (none: the CSR dots) */
} SsRowSubset;

/** Make @p subset (zeroed, or made before: remade) of X's rows list[0..m),
 *  m >= 1, norms2 X's squared norms, its row copy as @p flags say. False,
 *  with nothing kept, for data it does not copy (dense, a kernel map) or
 *  out of memory. */
bool ss_row_subset_make(SsRowSubset *subset, const SsData *X, const int64_t *list, int64_t m,
                        const double *norms2, unsigned flags);
void ss_row_subset_free(SsRowSubset *subset);

/** ss_kernel_row_blocks of all of X's rows (rows NULL, m = n) against X's
 *  own row @p z (scattered in zd, squared norm z_norm2), the dots over
 *  @p copy when it has one (NULL or num_rows 0: the CSR dots): the same
 *  values, blocks and threads. */
void ss_kernel_training_row_blocks(const SsKernel *kernel, const SsData *X, unsigned flags,
                                   const SsRowCopy *copy, const double *norms2, int64_t z,
                                   const double *zd, double z_norm2, SsThreads threads,
                                   SsKernelBlockFn consume, void *context);

/** The same against a row z that need not be one of X's (a row subset's
 *  rows against any training row): its scatter zd and, where @p copy is a
 *  bit copy, its bits @p z_bits (ss_row_copy_bits_of; NULL: the CSR dots
 *  instead of the bits, the same values). */
void ss_kernel_copy_row_blocks(const SsKernel *kernel, const SsData *X, unsigned flags,
                               const SsRowCopy *copy, const double *norms2, const uint64_t *z_bits,
                               const double *zd, double z_norm2, SsThreads threads,
                               SsKernelBlockFn consume, void *context);

/** The bits of row @p i of @p X (CSR, 0/1 values, the copy's dimension) as
 *  @p copy's rows hold theirs, into bits[0..copy->words); false, writing
 *  nothing, where the copy is no bit copy (or X not CSR). */
bool ss_row_copy_bits_of(const SsRowCopy *copy, const SsData *X, int64_t i, uint64_t *bits);

/** The same row written whole into out[0..n), as ss_kernel_row_threads
 *  writes it (the same values, blocks and threads). */
void ss_kernel_training_row_threads(const SsKernel *kernel, const SsData *X, unsigned flags,
                                    const SsRowCopy *copy, const double *norms2, int64_t z,
                                    const double *zd, double z_norm2, SsThreads threads,
                                    double *out);

/** K(x_i, x_i) given ||x_i||^2 (precomputed: the diagonal entry). */
double ss_kernel_diagonal(const SsKernel *kernel, const SsData *X, int64_t i, double norm2);

/* ------------------------------------------------------------------------ */
/*                           The model (kernel_model.c)                      */
/* ------------------------------------------------------------------------ */

/** f(x) = sum_j coefficients[j] K(z_j, x) + bias, the z_j copied in float64
 *  (dense or CSR, as the data they came from), or referred to by training
 *  index for a precomputed kernel. */
typedef struct SsKernelModel {
  int64_t num_support_vectors; /**< m */
  int64_t capacity;            /**< rows allocated */
  int64_t dimension;
  SsLayout layout;
  double *values;              /**< dense: m x dimension; CSR: nnz values */
  int64_t *indptr;             /**< CSR: m + 1 */
  int32_t *indices;            /**< CSR: nnz */
  int64_t nnz_capacity;
  SsData view;                 /**< descriptor over the arrays above (valid when m > 0) */
  double *norms2;              /**< [m] squared norms of the z_j */
  double *coefficients;        /**< [m] */
  int64_t *source;             /**< [m] training index, or -1 */
  double bias;
} SsKernelModel;

void ss_kernel_model_free(SsKernelModel *model);
/** Replace the model by rows @p rows of @p data (m of them) with the given
 *  coefficients and bias. Precomputed kernels keep indices only. */
SsStatus ss_kernel_model_set_from_rows(SsKernelModel *model, const SsKernel *kernel,
                                       const SsData *data, const int64_t *rows,
                                       const double *coefficients, int64_t m, double bias);
/** scores[q] = f(z_q) for every row of @p queries (validated by the caller),
 *  each kernel row on up to threads.count threads. */
SsStatus ss_kernel_model_scores(const SsKernelModel *model, const SsKernel *kernel,
                                const SsData *queries, double *scores, SsThreads threads);

/* ------------------------------------------------------------------------ */
/*                               The object                                  */
/* ------------------------------------------------------------------------ */

typedef struct SsKernelSolverOps SsKernelSolverOps;

/** The dual state an exact kernel SDCA solve ended with (kernel_sdca_pair.c's
 *  alpha, v and gbar): the kernel SDCA finish keeps it on the object and
 *  starts the next finish of the same problem from it (kernel_finish.c,
 *  "The start"). All three arrays or none. */
typedef struct SsKernelDualState {
  double *alpha;               /**< [n] the dual variables, or NULL: none kept */
  double *v;                   /**< [n] -y_t g_t, g = Q alpha - e, exact for all n */
  double *gbar;                /**< [n] sum over alpha_j = C_j of C_j Q_kj */
  double box;                  /**< the C = 1/(lambda n) of their boxes C_i = c_i C */
  bool bias_free;              /**< solved without y'alpha = 0 */
} SsKernelDualState;

struct SsKernelSvm_ {
  SsKernelSolver solver;
  const SsKernelSolverOps *ops;
  SsKernel kernel;
  int64_t dimension;

  /* Data (borrowed arrays), labels copied, per-row caches. */
  bool has_data;
  SsData data;
  int64_t num_data;
  double *labels;              /**< [n] */
  double *weights;             /**< [n] per-example weights c_i (copied), NULL: all 1 */
  double *norms2;              /**< [n] ||x_i||^2 (precomputed: 0) */
  int64_t overflow_row;        /**< the first i with ||x_i||^2 not finite, or -1 (train refuses it) */
  double *diagonal;            /**< [n] K(x_i, x_i) */
  int64_t kernel_overflow_row; /**< the first i of finite ||x_i||^2 whose K(x_i, x_i) is not
                                    finite (the kernel's values overflow), or -1 (train refuses it) */
  unsigned row_flags;          /**< SsKernelRowFlags of the kernel rows: SS_ROWS_UNIT_VALUES
                                    when ss_data_unit_values(&data), SS_ROWS_FLOAT32 when
                                    kernel_precision is float32 */
  SsKernelPrecision kernel_precision; /**< ss_kernel_svm_set_kernel_precision */

  /* Parameters. */
  double lambda;
  double nu;                   /**< 0: derived from lambda at train time (sbp_nu.c) */
  /** The SBP's nu warm-up, ss_kernel_svm_nu_warmup (kernel_svm.c). The SBP
   *  (sbp.c) calls it through this pointer, the way the run driver calls the
   *  objects through SsRunOps: the warm-up trains a second object, so a call
   *  by name would make the solver call its object back. */
  SsStatus (*nu_warmup)(const SsKernelSvm *self, int64_t epochs, double *nu,
                        int64_t *kernel_evaluations, double *exact_cost);
  bool bias_enabled;
  double eta0;                 /**< 0: default 1/sqrt(max K_ii) */
  double epsilon;
  int64_t max_num_iterations;  /**< 0: default SS_KERNEL_SVM_DEFAULT_EPOCHS n */
  int64_t diagnostic_frequency;/**< 0: the driver's geometric schedule (run.c) */
  uint64_t seed;
  SsThreads threads;           /**< threads for kernel rows (threads.h); count <= 1: serial */
  bool sbp_full_levels;        /**< tests only: the SBP fills the whole basin every
                                    iteration instead of its window (sbp.c) */
  int64_t sbp_pass_levels;     /**< tests only: SBP iterations whose levels came from the
                                    window scan of the previous row pass (sbp.c) */
  int64_t sbp_filled_levels;   /**< tests only: SBP iterations that filled the whole basin
                                    (no window held the level, sbp.c) */
  bool no_row_copy;            /**< ss_kernel_svm_set_row_copy(0): the SBP's and exact SDCA's
                                    rows go without row copies (SsRowCopy, kernel_cache.c) */
  bool scalar_pair_passes;     /**< tests only: the exact SDCA's passes without vectors
                                    (kernel_sdca_pair.c), to compare with them */
  bool single_coordinate_steps; /**< tests only: the exact SDCA's bias-free mode moves one
                                    example a step, without its partner (kernel_sdca_pair.c) */
  int64_t pair_chunk;          /**< tests only: the exact SDCA's passes in chunks of this many
                                    visits, a multiple of 4 (0: PAIR_CHUNK), read by the first train */
  int64_t finish_sample_rows;  /**< tests only: the rows of the finish's predicted cost's sample
                                    (predict_finish_cost, kernel_svm.c; 0: SS_SBP_NU_WARMUP_ROWS,
                                    < 0: no prediction) */
  SsKernelSvmDiagnosticFunction diagnostic_fn;
  void *diagnostic_user;
  SsRunSeen notified;          /**< what the diagnostic function saw last (run.h) */
  SsSvmInterruptFunction interrupt_fn;
  void *interrupt_user;
  bool pass_polls;             /**< set by measure during a run's diagnostic: the scores pass
                                    (ss_kernel_svm_expansion_scores) polls interrupt_fn every
                                    SS_KERNEL_PASS_POLL_EVALUATIONS and stops when it says so */
  int64_t pass_poll_evaluations; /**< tests only: that period (0: SS_KERNEL_PASS_POLL_EVALUATIONS) */

  /* Budgeted solvers (kernel_svm_budget.c). */
  int64_t budget;              /**< B; 0: default 500 */
  int budget_maintenance;      /**< SsBudgetMaintenance; 0: AUTO */

  /* Exact SDCA with a bias (kernel_sdca_pair.c). */
  double cache_size;           /**< kernel-row cache in MB; 0: the default (kernel_svm.h) */
  bool no_shrinking;           /**< shrinking is on unless set off */
  bool sdca_bias_free;         /**< SDCA without a bias on the pair solver's machinery (single
                                    steps, cache, shrinking): the finish's, kernel_finish.c */

  /* The kernel SDCA finish (kernel_finish.c). */
  int finish_mode;             /**< SS_KERNEL_SDCA_FINISH_OFF, _ON or _AUTO (the default) */
  struct SsKernelRowStore *row_store; /**< kernel rows shared with other objects
                                    (ss_kernel_svm_share_kernel_rows, kernel_cache.c), or NULL */
  SsKernelDualState finish_state; /**< the last finish's dual state (kernel_finish.c); forgotten
                                    by set_data, set_weights, a change of the bias form or
                                    of the kernel precision */
  const SsKernelDualState *start_state; /**< the pair solver's next start (borrowed until its
                                    start: ss_kernel_sdca_pair_start_from), or NULL: alpha = 0 */

  /* Solver state, kept between train calls. */
  void *state;                 /**< owned by the solver (ops->free_state), NULL until train */
  int64_t iteration;
  SsRunProgress progress;      /**< iteration as published by a running train (run.h) */
  int64_t num_kernel_evaluations;
  double *dual;                /**< [n] ss_kernel_svm_get_dual_variables, or NULL */
  double *scores;              /**< [n] the last diagnostic's training scores (no bias), or NULL */
  int64_t nonfinite_score_row; /**< the first row whose score a diagnostic of this train call
                                    found not finite (the run then fails), or -1 */
  double score_bound;          /**< kernel_bound of this train call's data (check_model_scores), or NaN */
  int64_t certificate_at;      /**< num_kernel_evaluations after the last dual bound (0: none yet) */
  int64_t certificate_cost;    /**< and the kernel evaluations that bound cost */
  double constant_objective;   /**< P of the best constant model of this run's data (run_solver) */
  int64_t race_start;          /**< num_kernel_evaluations when this run's steps began (sbp_race.c) */
  int64_t race_start_iteration; /**< the iteration number when they began (sbp_race.c) */
  int64_t train_start_iteration; /**< where this train's steps began (after a restart it made) */
  int64_t last_train_iterations; /**< the iterations the last train made */
  bool race_lost;              /**< this run handed over to the exact finish before its cap: the race
                                    (sbp_race.c), or early (kernel_finish.c, "When") */
  double finish_cost;          /**< Pegasos, BSGD, BSCA on n >= 2048: the finish's kernel evaluations
                                    predicted from a sample at this run's start (kernel_finish.c,
                                    "When"); 0: none */

  /* Work shared by the solvers: a scattered row (dimension, zero between
   * uses for CSR), a kernel row (n) and the permutation of the epoch. */
  double *zd;
  double *krow;
  int64_t *perm;
  int64_t perm_epoch;          /**< the epoch perm belongs to; -1 none */

  SsKernelModel model;
  SsKernelSvmStatistics statistics;
  SsRunHistory history;        /**< objectives of past diagnostics (run.h) */
  double train_start_time;
  SsLastError last_error;      /**< ss_kernel_svm_get_last_error */
  bool training;               /**< inside ss_kernel_svm_train: setters and train refuse */
};

/** As ss_svm_refuse_while_training (svm_internal.h), for the kernel object. */
SsStatus ss_kernel_svm_refuse_while_training(SsKernelSvm *self, const char *call);

/** Whether @p self computes its rows over copies of X (SsRowCopy, row
 *  subsets): set_row_copy on (the default) and a kernel of X's rows (a
 *  precomputed kernel reads its row by X's row numbers). */
static inline bool ss_kernel_svm_copies_rows(const SsKernelSvm *self)
{
  return !self->no_row_copy && self->kernel.type != SS_KERNEL_PRECOMPUTED;
}

/** Record why a call on @p self failed and return @p status (as ss_svm_fail). */
SsStatus ss_kernel_svm_fail(SsKernelSvm *self, SsStatus status, const char *format, ...) SS_PRINTF_LIKE(3, 4);
/** Clear the last error and return SS_OK. */
SsStatus ss_kernel_svm_succeed(SsKernelSvm *self);
/** The name of a kernel solver, as the Python layer spells it. */
const char *ss_kernel_svm_solver_name(SsKernelSolver solver);

/** A solver: the driver (kernel_svm.c) calls start once per train call, then
 *  steps on consecutive ranges [t, t_end) of iterations (never across an
 *  epoch boundary; self->perm holds epoch t / n's permutation when
 *  uses_permutation), and evaluate at every diagnostic. */
struct SsKernelSolverOps {
  bool uses_permutation;
  SsRunCriterion criterion;    /**< the stopping rule the driver applies (run.h) */
  bool may_diverge;            /**< a step-size method: the driver tests for divergence */
  /** The window rule's stop needs a dual bound (kernel_certificate.c) that
   *  certifies it: the model's support vectors are training rows. */
  bool certified;
  /** The unit of the default diagnostic schedule (run.c) is n / this
   *  iterations, at least min(n, SS_KERNEL_SCHEDULE_MIN_UNIT); 0: an epoch.
   *  For a solver whose diagnostic costs O(n) against n kernel evaluations
   *  per step (the SBP). */
  int64_t schedule_divisor;
  /** Allocate the state if self->state is NULL (fresh object, new data). */
  SsStatus (*start)(SsKernelSvm *self);
  /** Run iterations [t, t_end), set self->iteration = t_end, count the
   *  kernel evaluations; SS_OK or SS_ERR_NUMERIC. */
  SsStatus (*steps)(SsKernelSvm *self, int64_t t, int64_t t_end);
  /** Write the model (ss_kernel_model_set_from_rows or directly) and the
   *  solver-specific statistics (objective, margin, dual objective); the
   *  driver then fills primal, loss, error, support vectors. The solver
   *  may pass the training scores (@p scores, n values, f(x_i) without the
   *  bias) and ||w||^2 (@p norm2) back and set *have_scores, to save the
   *  driver n m + m^2 kernel evaluations. */
  SsStatus (*evaluate)(SsKernelSvm *self, double *scores, double *norm2, bool *have_scores);
  /** Write the model alone, without evaluate's pass over the data (a run
   *  the interrupt poll stopped: kernel_svm.c, describe_interrupted); NULL
   *  where evaluate is cheap enough to make then (O(n) or a budget). */
  SsStatus (*write_model)(SsKernelSvm *self);
  /** Free the state and set self->state = NULL (NULL-safe). */
  void (*free_state)(SsKernelSvm *self);
};

/** The smallest sub-epoch unit of a diagnostic schedule (schedule_divisor). */
#define SS_KERNEL_SCHEDULE_MIN_UNIT 64
/** Below this many examples an epoch is cheap and the schedule stays in
 *  epochs: sub-epoch diagnostics only give the objective window more
 *  chances to read noise over a short stretch as a plateau (the SBP on iris
 *  at C = 1e3 stopped "converged" at 1.79x the optimum with them, and on its
 *  cap with a warning without). */
#define SS_KERNEL_SCHEDULE_MIN_N 4096

/** A certified window stop (kernel_svm.c, run_dual_bound): a dual bound's
 *  ascent may use this many kernel rows (the model's support vectors if
 *  more), and a bound comes at most once per this many times its cost of
 *  the solver's own kernel evaluations; the first of a run only once the
 *  run's work is this many times its cost (ss_kernel_dual_bound_cost). */
#define SS_KERNEL_CERTIFICATE_MIN_ROWS 64
#define SS_KERNEL_CERTIFICATE_SPACING 10.0
/** ... except a first bound that costs at most this many kernel evaluations
 *  (about 10 ms): on small sets a bound is cheap whatever the run so far
 *  (160 rows: 5e4; a9a: 1e9). */
#define SS_KERNEL_CERTIFICATE_FREE_COST 1e6

/** The closing ray of Pegasos and BSGD (kernel_ray.c): at the closing
 *  diagnostic of a run stopped on its cap (statistics status
 *  max_iterations), the bias-free model, its training @p scores and
 *  @p norm2 = ||f||^2 scaled by the t >= 0 of least primal objective, if
 *  below the model's own. */
void ss_kernel_close_on_ray(SsKernelSvm *self, double *scores, double *norm2);

/** The ops of a solver (NULL for SS_KSOLVER_NONE). */
const SsKernelSolverOps *ss_kernel_solver_ops(SsKernelSolver solver);

/** C = 1/(lambda n). */
double ss_kernel_svm_box(const SsKernelSvm *self);
/** The weight c_i of example i (1 without weights). */
/** ||w||^2 = sum_k coef_k f(x_k) of a diagnostic, floored at 0 against
 *  rounding; a sum that is not finite stays so (kernel values that overflow:
 *  the diagnostic then fails instead of reporting ||w|| = 0). */
static inline double ss_kernel_norm2_floor(double s)
{
  return isfinite(s) && !(s > 0) ? 0.0 : s;
}

static inline double ss_kernel_svm_weight(const SsKernelSvm *self, int64_t i)
{
  return self->weights ? self->weights[i] : 1.0;
}
/** The eta_0 in force. */
double ss_kernel_svm_effective_eta0(const SsKernelSvm *self);

/** f(x_i) = sum_k coef[k] K(x_{rows[k]}, x_i) for every training example
 *  (n m kernel evaluations through self->zd and self->krow). */
/** The kernel evaluations between two polls of the interrupt function in a
 *  run's diagnostic pass (self->pass_polls): 10-40 ms. */
#define SS_KERNEL_PASS_POLL_EVALUATIONS ((int64_t)1 << 22)
/** @return false when the interrupt function stopped the pass (pass_polls;
 *  the scores are then partly written), else true. */
bool ss_kernel_svm_expansion_scores(SsKernelSvm *self, const int64_t *rows, const double *coef,
                                    int64_t m, double *scores);
/** Make @p subset the copy of rows[0..m) that the object's scores read
 *  (set_row_copy on, CSR data, a kernel of X's rows); false, with nothing
 *  kept, otherwise or out of memory. */
bool ss_kernel_svm_row_subset(const SsKernelSvm *self, const int64_t *rows, int64_t m,
                              SsRowSubset *subset);
/** f(x_i) over the same expansion for one example i. With @p prefix (NULL:
 *  none), a row subset of rows[0..c) for c = m or a multiple of
 *  SS_KERNEL_ROW_BLOCK, those rows are read from it: the same blocks of the
 *  same values, so the same bits. */
double ss_kernel_svm_expansion_score(SsKernelSvm *self, const int64_t *rows, const double *coef,
                                     int64_t m, int64_t i, const SsRowSubset *prefix);

/** SBP water filling on scratch arrays (sbp_gamma.c): the level of
 *  sum_i max(0, gamma - a_i) = volume (a is reordered), and the two levels
 *  u (positives a) and v (negatives d) with k covered in each (scratch:
 *  n_pos + n_neg doubles). */
double ss_sbp_water_level(double *a, int64_t n, double volume);
/** The same with a lower set of @p count heights summing to @p sum, all
 *  below every a[k], already known to be covered (count >= 1 or m >= 1). */
double ss_sbp_water_level_from(double *a, int64_t m, double volume, int64_t count, double sum);
/** Tests only: one of the SBP's level search passes over heights a[0..m)
 *  (sbp_gamma.c) on one path: 0 the scalar definitions, 1 the code in
 *  vector extensions (GCC, Clang), 2 the AVX2 code (GCC on x86-64, CPUs
 *  with AVX2). keep false: the sizes at pivot, counts = {below, at} it,
 *  *sum = the sum of those below; keep true: a compacted in order to its
 *  heights strictly between pivot and hi, counts[0] = their number. Every
 *  path gives the same bits. Returns false, doing nothing, where this build
 *  or CPU has no such path. */
bool ss_sbp_level_pass(int path, bool keep, double *a, int64_t m, double pivot, double hi,
                       int64_t counts[2], double *sum);
/** Tests only: the three-way partition of the bias SBP's rank search
 *  (sbp_gamma.c, select_rank) of a[0..n) around pivot into out (the heights
 *  below, at and above it, each part in its order in a; counts = {below,
 *  at}) on one path: 0 the scalar loops, 2 the AVX2 code. The same output
 *  on every path; false, doing nothing, where there is no such path. */
bool ss_sbp_partition_pass(int path, const double *a, int64_t n, double pivot, double *out,
                           int64_t counts[2]);
/** Tests only: the value of rank @p at (from 0) among the 64 values of
 *  @p s (no NaN), as the bias SBP's rank search picks its sampled pivots
 *  (sbp_gamma.c, sample_of_rank): a sort's s[at], up to the sign of a zero.
 *  @p num_samples must be 64; else NaN. */
double ss_sbp_sample_of_rank(const double *s, int num_samples, int at);
/** Tests only: the SBP's window scan of c[0..m) (sbp.c; y NULL: every
 *  response, else those with y_k = cls), the row pass's vector code or
 *  (reference) its scalar two-lane loop: counts = {below lo, in [lo, hi),
 *  written to window in order}, values = {sum of those below, lowest at
 *  or above hi}. The two agree to the bit. */
void ss_sbp_window_scan(const double *c, const double *y, double cls, int64_t m, double lo,
                        double hi, bool reference, double *window, int64_t counts[2],
                        double values[2]);

/** ss_sbp_water_level_from with a guess of the level (e.g. the last one;
 *  not finite: none): the first passes bracket the level between the guess
 *  and the Newton step from it, so a close guess leaves few heights to
 *  search. The same level, to rounding. */
double ss_sbp_water_level_near(double *a, int64_t m, double volume, int64_t count, double sum,
                               double guess);
/** The two levels of a biased filling: u over the positives, v over the
 *  negatives, their floors a_k and d_k (the k-th lowest heights of each
 *  class), k = covered in each class. */
typedef struct SsSbpLevels {
  double u, v, floor_u, floor_v;
  int64_t covered;
} SsSbpLevels;
void ss_sbp_two_levels(double *a, int64_t n_pos, double *d, int64_t n_neg, double volume,
                       double *scratch, SsSbpLevels *out);
/** The same on windows of the heights (sbp_gamma.c, "Windowed search"):
 *  a[0, na) the positives' heights in a value window, ca of them below it
 *  summing to sa, a_above the lowest above it (INFINITY: none); d, nd, cd,
 *  sd, d_above the same for the negatives. The two classes' windows are
 *  sorted on the pool's threads (NULL: on the caller), with the same result
 *  for any number of threads. The arrays are reordered; scratch holds
 *  na + nd doubles. Returns false, and leaves @p out undefined, when the
 *  answer is not provably inside both windows. */
bool ss_sbp_two_levels_window(double *a, int64_t na, int64_t ca, double sa, double a_above,
                              double *d, int64_t nd, int64_t cd, double sd, double d_above,
                              double volume, SsThreadPool *pool, double *scratch,
                              SsSbpLevels *out);
/** Tests only: sort_heights, the sort of the windows (sbp_gamma.c):
 *  a[0, n) ascending, finite heights; scratch holds n doubles. False on bad
 *  arguments. */
bool ss_sbp_sort_heights(double *a, int64_t n, double *scratch);

/** The smallest nu the map from lambda returns (a hard margin in all but name). */
#define SS_SBP_NU_FLOOR 1e-6
/** A derived nu is refined when the diagnosed model's nu at its best scale
 *  is off by more than this factor (sbp_nu.c, "Refinement"). */
#define SS_SBP_NU_REFINE_FACTOR 10.0
/** The most refinements of a derived nu in one train call. */
#define SS_SBP_NU_MAX_REFINEMENTS 8
/** Refine a derived nu (sbp.c; the math: sbp_nu.c): when the last diagnosed
 *  model's nu at its best scale for lambda is off the nu in force by more
 *  than SS_SBP_NU_REFINE_FACTOR, take it (at least SS_SBP_NU_FLOOR) and
 *  restart the averages at the present iteration; true if it did. */
bool ss_sbp_refine_nu(SsKernelSvm *self);
/** True when ss_sbp_refine_nu would refine (sbp.c). */
bool ss_sbp_nu_is_off(const SsKernelSvm *self);
/** The nu of a model with margins z[0..n) (y_i f(x_i), bias included) and
 *  squared norm @p norm2, read at the scale s* that minimises lambda/2
 *  ||s w||^2 + mean hinge of s z (sbp_scale.c): L(s* w) / (s* ||w||). Sorts z
 *  in place. 0 for norm2 <= 0 or lambda <= 0. */
double ss_sbp_scaled_nu(double *z, int64_t n, double lambda, double norm2);
/** nu for this object's lambda (kernel_svm.c; the math: sbp_nu.c): the nu
 *  of the exact optimum (kernel SDCA, at most @p epochs epochs, 0: the
 *  default) on the object's data, or on large n of a sample and its halves
 *  at the same C, extrapolated to n; the warm-up's kernel evaluations into
 *  *kernel_evaluations, and on large n the predicted kernel evaluations of
 *  an exact solve of all n rows (ss_sbp_race_exact_cost; 0 when the whole
 *  data was solved) into *exact_cost (each if non-NULL). */
SsStatus ss_kernel_svm_nu_warmup(const SsKernelSvm *self, int64_t epochs, double *nu,
                                 int64_t *kernel_evaluations, double *exact_cost);
/** The race of the SBP against the exact finish (sbp_race.c): the kernel
 *  evaluations an exact kernel SDCA solve of @p n rows is predicted to cost,
 *  from the warm-up's solves of a sample of @p m rows (@p sample_evaluations)
 *  and of its halves (@p half_evaluations, their mean; 0: none). */
double ss_sbp_race_exact_cost(int64_t n, int64_t m, double sample_evaluations, double half_evaluations);
/** True when the SBP's run, at a diagnostic that did not stop it, should
 *  hand over to the exact finish: its work since the run began, at its rate
 *  so far, would pass the predicted cost of the exact solve before its next
 *  diagnostic, at iteration @p next_check (sbp_race.c). */
bool ss_sbp_race_lost(const SsKernelSvm *self, int64_t next_check);
/** True when a train call should hand over before its first SBP step: the
 *  race applies and the finish's kept dual state belongs to this very
 *  problem (sbp_race.c, "A warm start"). */
bool ss_sbp_race_lost_at_start(const SsKernelSvm *self);
/** The derived nu's warm-up prediction of an exact solve's kernel
 *  evaluations (0: none, e.g. a nu set by the caller or a whole-data
 *  warm-up) (sbp.c). */
double ss_sbp_exact_cost(const SsKernelSvm *self);
/** The SBP's nu in force: the one set, else the derived one (0 before the
 *  first train derives it) (sbp.c). */
double ss_sbp_nu_in_force(const SsKernelSvm *self);

/** The solvers' tables. */
extern const SsKernelSolverOps ss_sbp_ops;
extern const SsKernelSolverOps ss_kernel_sdca_ops;
extern const SsKernelSolverOps ss_kernel_sdca_pair_ops; /* SDCA with a bias (kernel_sdca_pair.c) */
/** Bias-free kernel SDCA (kernel_sdca.c) not yet started: start it from the
 *  dual variables @p alpha (clipped to the box), e.g. the solution of the
 *  same problem with a bias, which is feasible here. SS_ERR_BAD_STATE for
 *  another solver or a started one. */
SsStatus ss_kernel_sdca_start_from(SsKernelSvm *self, const double *alpha);
/** Bias-free kernel SDCA (kernel_sdca.c) takes @p alpha, the finish's dual
 *  variables, as its own (kernel_finish.c, "The write-back"): its support
 *  list is rebuilt from them and its iteration count kept, so that a
 *  further train call continues from the finish's optimum. */
SsStatus ss_kernel_sdca_adopt(SsKernelSvm *self, const double *alpha);
/** A bias-free SDCA object (no state yet) solves its dual by the exact
 *  solver of kernel_sdca_pair.c with the bias fixed at 0: greedy single
 *  steps, the kernel-row cache and shrinking (its bias-free mode). */
SsStatus ss_kernel_sdca_bias_free_pairs(SsKernelSvm *self);
/* The certified finish of a run that ended on its cap: exact kernel SDCA on
 * the same problem (kernel_finish.c says when and why; kernel_svm.c builds,
 * trains and deletes the SDCA object at the end of every train). */
/** Does the run that just ended hand over (mode, solver, status, cap)? */
bool ss_kernel_finish_wanted(const SsKernelSvm *self);
/** Would a run of this object on its cap hand over (mode, epsilon, solver,
 *  cap: ss_kernel_finish_wanted without the status)? */
bool ss_kernel_finish_allowed(const SsKernelSvm *self);
/** Does the run hand over now, at a training diagnostic that stopped
 *  nothing, the next one due at iteration @p next_check (bias-free
 *  coordinate SDCA: at once; Pegasos, BSGD and BSCA: once its kernel
 *  evaluations reached n^2 or the predicted finish_cost, below;
 *  kernel_finish.c, "When")? */
bool ss_kernel_finish_early(const SsKernelSvm *self, int64_t next_check);
/** Has this run's work since its steps began (race_start) reached
 *  @p predicted kernel evaluations, or would it pass them before the
 *  diagnostic at @p next_check at its rate so far (sbp_race.c, "The rule")? */
bool ss_kernel_race_lost(const SsKernelSvm *self, double predicted, int64_t next_check);
/** The finish's cap in iterations for @p n rows. */
int64_t ss_kernel_finish_cap(int64_t n);
/** The finish's relative gap: min(the object's epsilon, 1e-3). */
double ss_kernel_finish_epsilon(const SsKernelSvm *self);
/** The run's model and statistics become those of the trained finish
 *  @p sdca (its model and its dual state are swapped out of it: the state
 *  into self->finish_state). */
SsStatus ss_kernel_finish_write_back(SsKernelSvm *self, SsKernelSvm *sdca);
/** The finish @p sdca (built, not trained) starts from self->finish_state
 *  when that belongs to the same problem (kernel_finish.c, "The start"). */
void ss_kernel_finish_warm_start(const SsKernelSvm *self, SsKernelSvm *sdca);
/** The kept finish state belongs to this very problem: the same C (its box)
 *  and bias form (kernel_finish.c, "The start"). */
bool ss_kernel_finish_kept_for_this_C(const SsKernelSvm *self);
/** Forget self->finish_state (free its arrays): the problem changed. */
void ss_kernel_finish_forget(SsKernelSvm *self);
/** The pair solver @p self, not started, starts from @p from (borrowed
 *  until then) instead of alpha = 0: its alpha, v and gbar, scaled by
 *  C / from->box when lambda changed (kernel_sdca_pair.c, "Warm start").
 *  SS_ERR_BAD_STATE for another solver, a started one or another bias form. */
SsStatus ss_kernel_sdca_pair_start_from(SsKernelSvm *self, const SsKernelDualState *from);
/** Swap the solved dual state of the pair solver @p self into @p kept (the
 *  old arrays go to @p self, which is deleted next); false, and nothing
 *  swapped, when its v is not exact on all n. */
bool ss_kernel_sdca_pair_keep(SsKernelSvm *self, SsKernelDualState *kept);
/** Tests: what the exact solver's passes read (kernel_sdca_pair.c,
 *  PairView): v, the side bits (1: I_up, 2: I_low) and K_tt of each visit
 *  k < *num_active, whose example is active[k] (*active NULL: example k);
 *  false when it has no state. */
bool ss_kernel_sdca_pair_view(const SsKernelSvm *self, const int64_t **active, int64_t *num_active,
                              const double **v, const unsigned char **side, const double **K_diag);
extern const SsKernelSolverOps ss_kernel_pegasos_ops;
extern const SsKernelSolverOps ss_perceptron_ops;
extern const SsKernelSolverOps ss_bsca_ops; /* bsca.c */
extern const SsKernelSolverOps ss_bsgd_ops; /* bsgd.c */
/** The budgeted solvers need vectors: true for BSCA/BSGD with a precomputed kernel. */
bool ss_kernel_budget_solver_rejects(SsKernelSolver solver, const SsKernel *kernel);
/** Forget a budgeted solver's state (no-op for other solvers): the next train
 *  starts from alpha = 0 (kernel_svm_budget.c). */
void ss_kernel_budget_restart(SsKernelSvm *self);

/** The support vectors of an expansion over training examples (Pegasos,
 *  SDCA, Perceptron): rows[0..m) with coefficients coef[0..m), and
 *  position[i] the slot of example i (-1: not listed). support_list.c. */
typedef struct SsSupportList {
  int64_t *rows;
  double *coef;
  int64_t *position;
  int64_t m;
  SsRowSubset copy;            /**< a copy of the rows rows[0..copied) (support_list.c) */
  int64_t copied;              /**< a multiple of SS_KERNEL_ROW_BLOCK; 0: no copy */
  int64_t visits;              /**< scores since the copy was last made */
} SsSupportList;

SsStatus ss_support_list_init(SsSupportList *list, int64_t n);
void ss_support_list_free(SsSupportList *list);
/** coef of example i becomes @p value: listed if non-zero, removed if zero. */
void ss_support_list_set(SsSupportList *list, int64_t i, double value);
/** The start and free_state of a solver whose state is one SsSupportList
 *  (coef = alpha_j y_j) and whose per-example variables self->dual start at 0. */
SsStatus ss_support_solver_start(SsKernelSvm *self);
void ss_support_solver_free_state(SsKernelSvm *self);
/** The example i visited at iteration t (the epoch's permutation) and its
 *  response sum_k coef[k] K(x_rows[k], x_i); counts the m evaluations. */
double ss_support_list_visit(SsKernelSvm *self, SsSupportList *list, int64_t t, int64_t *i);
/** The model scale * sum_k coef[k] K(x_rows[k], .), written to self->model,
 *  with its training scores (n m kernel evaluations, not counted) and
 *  ||w||^2 for the driver's statistics. */
SsStatus ss_support_list_evaluate(SsKernelSvm *self, const SsSupportList *list, double scale,
                                  double *scores, double *norm2, bool *have_scores);
/** The model of ss_support_list_evaluate alone (O(m d), no score). */
SsStatus ss_support_list_write_model(SsKernelSvm *self, const SsSupportList *list, double scale);
/** write_model of a solver whose model is its support list (SDCA, Perceptron). */
SsStatus ss_support_solver_write_model(SsKernelSvm *self);

#if defined(__GNUC__)
/** Two doubles as one vector, and the mask of a comparison of two (GCC and
 *  Clang vector extensions): the SBP's scans hold their two fixed summation
 *  lanes in one (sbp.c scan_block, sbp_gamma.c sizes), so that they add in
 *  the scalar code's order, to the bit. */
typedef double SsLanePair __attribute__((vector_size(16)));
typedef int64_t SsLaneMask __attribute__((vector_size(16)));
/** Four doubles and their mask: the SBP's window scan compares four
 *  responses at once (sbp.c scan_lanes) and adds them as two pairs. */
typedef double SsLaneQuad __attribute__((vector_size(32)));
typedef int64_t SsLaneQuadMask __attribute__((vector_size(32)));
#endif

#endif /* STOCHSVM_KERNEL_INTERNAL_H */

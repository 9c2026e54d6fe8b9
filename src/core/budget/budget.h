/* budget.h -- private: the budgeted kernel expansion of BSCA and BSGD and its
 * budget maintenance (merging, removal, projection); never installed.
 *
 * The model is f(x) = sum_{j < size} beta_j k(z_j, x) with at most B terms.
 * Expansion points z_j are dense double vectors (merging moves them off the
 * data), stored row-major with their squared norms cached, so every kernel
 * value is a function of one inner product and two squared norms; and a
 * transposed copy, whose columns give the inner products with all points at
 * once (the Gaussian scores and merge's partner search, budget_rows.c).
 * docs/budget.rst gives the math; budget_merge.c, budget_projection.c
 * and budget_expansion.c implement it.
 */
#ifndef STOCHSVM_BUDGET_H
#define STOCHSVM_BUDGET_H

#include "stochsvm/stochsvm.h"
#include "../common/threads.h"

#include <stdbool.h>
#include <stdint.h>

/** Kernels of the expansion; each is g(<x, x'>, ||x||^2, ||x'||^2). */
typedef enum SsBudgetKernelKind {
  SS_BUDGET_KERNEL_LINEAR = 0,     /**< <x, x'> */
  SS_BUDGET_KERNEL_GAUSSIAN = 1,   /**< exp(-gamma ||x - x'||^2) */
  SS_BUDGET_KERNEL_POLYNOMIAL = 2, /**< (gamma <x, x'> + coef0)^degree */
  SS_BUDGET_KERNEL_SIGMOID = 3     /**< tanh(gamma <x, x'> + coef0) */
} SsBudgetKernelKind;

typedef struct SsBudgetKernel {
  SsBudgetKernelKind kind;
  double gamma, coef0, degree;
} SsBudgetKernel;

/** k(x, x') from dot = <x, x'>, nx = ||x||^2, nz = ||x'||^2. */
double ss_budget_kernel_value(const SsBudgetKernel *kernel, double dot, double nx, double nz);
/** A block of Gaussian values in place: v[j] = exp(-gamma max(0, norms2[j]
 *  + nx - 2 v[j])) from the inner products v[j] = <z_j, x>, ||x||^2 = nx
 *  (exp to within 1e-15 relative: common/vexp.h). */
void ss_budget_gaussian_of_dots(double *v, const double *norms2, int64_t len, double nx,
                                double gamma);
/** out[l] += x column[l], l < len: the Gaussian scores' inner products with
 *  all terms at once, one nonzero coordinate x of the other point at a time,
 *  over the transposed points (SsBudget.columns). */
void ss_budget_add_scaled(double *out, const double *column, int64_t len, double x);
/** The block length of the loops over the terms that keep their dots on the
 *  stack, and the chunk of those loops on the expansion's threads. */
#define SS_BUDGET_BLOCK 128
/** An expansion this long or longer splits a step's loops over its terms
 *  (the score's and the merge screen's blocks) across the owner's threads
 *  when it has them (SsBudget.threads; a lowered SsThreads.min_length, the
 *  tests', takes precedence): two blocks, so that B = 500, the default,
 *  splits. A block is about 1 us of work on a9a (128 Gaussian values of a
 *  14-nonzero row, or of a merged point's 30-60 nonzeros), a job's hand-over
 *  to a waiting worker a fraction of that; where the workers do not pay the
 *  pool runs the jobs alone (thread_pool.c). docs/budget.rst gives the
 *  measurements. A measuring build may set it. */
#ifndef SS_BUDGET_PARALLEL_MIN_TERMS
#define SS_BUDGET_PARALLEL_MIN_TERMS 256
#endif
/** The pool a step's loop over @p size terms runs on (NULL: the caller). */
static inline SsThreadPool *ss_budget_pool(SsThreads threads, int64_t size)
{
  if (threads.min_length <= 0) threads.min_length = SS_BUDGET_PARALLEL_MIN_TERMS;
  return ss_threads_pool(threads, size);
}
/** The number of SS_BUDGET_BLOCK blocks of @p size terms. */
static inline int64_t ss_budget_num_blocks(int64_t size)
{
  return (size + SS_BUDGET_BLOCK - 1) / SS_BUDGET_BLOCK;
}
/** The end of block b of @p size terms (its start is b SS_BUDGET_BLOCK). */
static inline int64_t ss_budget_block_end(int64_t b, int64_t size)
{
  return size - b * SS_BUDGET_BLOCK < SS_BUDGET_BLOCK ? size : (b + 1) * SS_BUDGET_BLOCK;
}

/** A training row's kernel values with the terms, kept by a step's score
 *  (ss_budget_score_row_kept) for the merge that may follow when the step
 *  appends that row: a fresh row is nearly always the term of least |beta|
 *  that the merge removes (13.9 of 14 nonzeros a merge on a9a, B = 500),
 *  and the screen's kernel values k(z_m, z_l) are then these values, the
 *  same numbers (budget_merge.c). */
typedef struct SsBudgetKeptRow {
  int64_t row;              /**< data row i, -1: none */
  int64_t size;             /**< the terms the values cover: 0 .. size - 1 */
  int64_t changes;          /**< SsBudget.changes when kept */
  double gamma, norm2;      /**< the kernel's gamma and ||x_i||^2 they were computed with */
  double *values;           /**< [capacity] k(z_l, x_i); NULL where no merge can run
                                 (B >= n): nothing is kept */
} SsBudgetKeptRow;
/** The rows kept: two, for BSCA with the bias, which scores a pair before
 *  it appends either. */
#define SS_BUDGET_KEPT_ROWS 2

/** Budget maintenance strategies (the public enum mirrors these values). */
typedef enum SsBudgetStrategy {
  SS_BUDGET_MERGE = 0,      /**< merge two same-sign points (Gaussian kernel only) */
  SS_BUDGET_REMOVE = 1,     /**< drop the point of smallest |beta| (any kernel) */
  SS_BUDGET_PROJECT = 2     /**< drop it and project its term onto the others (any kernel) */
} SsBudgetStrategy;

/** What maintenance did, accumulated over a run. */
typedef struct SsBudgetCounts {
  int64_t num_maintenance;  /**< calls of ss_budget_maintain that shrank the model */
  int64_t num_merges;       /**< of which merges */
  int64_t num_removals;     /**< of which plain removals (incl. fallbacks) */
  int64_t num_projections;  /**< of which projections */
  double weight_degradation;/**< sum of ||w_before - w_after||^2 over the calls */
} SsBudgetCounts;

/** The Cholesky factor of the expansion's Gram matrix (+ eps I) for
 *  projection, kept up to date on append/remove (budget_cholesky.c). */
typedef struct SsBudgetCholesky {
  SsBudgetKernel kernel;    /**< the kernel it was built with */
  int64_t size;             /**< p, its order (= the expansion's size while valid) */
  double eps;               /**< diagonal jitter */
  double *L;                /**< [capacity capacity] row-major lower factor, rows in factor order */
  int64_t *term;            /**< [capacity] expansion slot of factor row r */
  int64_t *row;             /**< [capacity] factor row of expansion slot j */
  double *work;             /**< [2 capacity + dimension] */
  bool valid;               /**< false: factor again before use */
} SsBudgetCholesky;

/** The expansion: `capacity` rows of dense points of `dimension` entries.
 *  capacity = B + 1 (one spare for the step that overflows), except when the
 *  terms are tracked against n = num_data >= 1 training points and B >= n:
 *  then no maintenance ever runs, every term holds a distinct training point
 *  (slot_of), so size <= n and capacity = n + 1 suffices. A budget far above
 *  n (say 10^9) therefore costs O(n d), not O(B d). */
typedef struct SsBudget {
  int64_t budget;           /**< B >= 1 */
  int64_t capacity;         /**< rows allocated: min(B, n) + 1 (see above) */
  int64_t size;             /**< number of terms, <= min(B + 1, capacity) */
  int64_t dimension;
  double *points;           /**< [capacity dimension] row-major z_j */
  double *columns;          /**< [dimension capacity] the same points transposed: coordinate
                                 k of z_j at k capacity + j (the Gaussian scores' layout) */
  double *norms2;           /**< [capacity] ||z_j||^2 */
  double *beta;             /**< [capacity] */
  int64_t *origin;          /**< [capacity] training index a term came from, -1 once merged/projected */
  int64_t *slot_of;         /**< [num_data] term holding training point i, -1; NULL: not tracked */
  int64_t num_data;
  SsBudgetCholesky *chol;   /**< projection's factor, allocated on first use, or NULL */
  double *scratch;          /**< [6 capacity] merge's kappa_j, bounds and searches; the
                                 threaded scores' kernel values */
  int64_t *block_scratch;   /**< [capacity / SS_BUDGET_BLOCK + 1] one integer per block, scratch
                                 shared by two loops that never overlap: the threaded
                                 smallest-|beta| search's first smallest term, the merge
                                 screen's count of partners listed */
  int64_t *partners;        /**< [capacity] the merge screen's partners, listed by block, then
                                 those within the bound gathered in order */
  SsThreads threads;        /**< the owner's threads (borrowed; zeroed: serial): a Gaussian
                                 expansion's scores and merges split their loops over the
                                 terms into SS_BUDGET_BLOCK blocks across them, the
                                 diagnostic its rows and ||w||^2 (budget_rows.c,
                                 budget_merge.c, budget_expansion.c) */
  double *merge_table;      /**< merge's table of r*(mu, kappa) and its per-cell error bounds,
                                 built on first use, or NULL */
  int64_t changes;          /**< count of writes that moved, removed or rewrote a term (not
                                 appends, not coefficients): a kept row is valid while it holds */
  SsBudgetKeptRow kept[SS_BUDGET_KEPT_ROWS]; /**< the last rows scored with their values kept */
  int next_kept;            /**< the entry of kept the next such score overwrites */
  int64_t merged_term;      /**< the last merge that removed the last term: the term it
                                 rewrote (-1: none yet), */
  int64_t merged_from, merged_to; /**< and the changes count before and after it */
} SsBudget;

/** Allocate an empty expansion of min(B, num_data) + 1 rows (B + 1 when
 *  num_data = 0). slot_of is allocated when num_data > 0.
 *  @return SS_OK, SS_ERR_ALLOC (nothing allocated; also when the rows' size
 *  does not fit in size_t), SS_ERR_BAD_ARG. */
SsStatus ss_budget_init(SsBudget *budget, int64_t B, int64_t dimension, int64_t num_data);
/** Free everything (safe on a zeroed or freed struct). */
void ss_budget_free(SsBudget *budget);
/** Empty the expansion (keeps the allocation). */
void ss_budget_clear(SsBudget *budget);

/** Append the term (beta, z) with z given dense; origin >= 0 is recorded in
 *  slot_of. Requires size <= B (there is always room for one more). */
void ss_budget_append_dense(SsBudget *budget, const double *z, double beta, int64_t origin);
/** Point j's row was written: copy it into the transposed points (and
 *  count a change: kept rows no longer cover the terms). */
void ss_budget_point_changed(SsBudget *budget, int64_t j);
/** Point j's row into the transposed points, nothing else (an append). */
static inline void ss_budget_copy_to_columns(SsBudget *budget, int64_t j)
{
  const int64_t d = budget->dimension, cap = budget->capacity;
  const double *row = budget->points + j * d;
  for (int64_t k = 0; k < d; ++k) budget->columns[k * cap + j] = row[k];
}
/** The kept Gaussian values (@p gamma) of term m with the terms before it,
 *  when m is the last term, appended from a row whose score kept them with
 *  the same squared norm, and the other terms have not changed since, or
 *  only by one merge that removed the last term (appended after the score)
 *  and rewrote one term: that term's value is then stale, its index written
 *  to *stale (else -1). NULL otherwise. */
const double *ss_budget_kept_values(const SsBudget *budget, int64_t m, double gamma,
                                    int64_t *stale);
/** Remove term j: the last term moves into its slot (slot_of follows). */
void ss_budget_remove_term(SsBudget *budget, int64_t j);
/** Index of the term of smallest |beta|, the first of them, a NaN beta
 *  counting as smallest (-1 only when empty); by blocks on the threads when
 *  the expansion is long. */
int64_t ss_budget_smallest(const SsBudget *budget);

/** <a, b> for dense vectors of length d. */
static inline double ss_budget_dot(const double *a, const double *b, int64_t d)
{
  double s0 = 0, s1 = 0;
  int64_t k = 0;
  for (; k + 2 <= d; k += 2) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
  }
  if (k < d) s0 += a[k] * b[k];
  return s0 + s1;
}

/** f(z) = sum_j beta_j k(z_j, z) for a dense z with ||z||^2 = nz. */
double ss_budget_score_dense(const SsBudget *budget, const SsBudgetKernel *kernel,
                             const double *z, double nz);

/** ||w||^2 = sum_j beta_j sum_l beta_l k(z_j, z_l), O(size^2 d): the rows of
 *  the Gram matrix times beta on the expansion's threads (into the scratch),
 *  then summed over j in order. */
double ss_budget_norm2(const SsBudget *budget, const SsBudgetKernel *kernel);

/* ---- the expansion against rows of a data descriptor (budget_rows.c) ---- */

/** f(x_i) = sum_j beta_j k(z_j, x_i) for row i of a valid descriptor without
 *  a kernel map (||x_i||^2 = norm2_i given). Costs size kernel evaluations;
 *  a Gaussian expansion of many terms fills its blocks' values on its
 *  threads, into the scratch, then sums them in order (the same bits). */
double ss_budget_score_row(const SsBudget *budget, const SsBudgetKernel *kernel,
                           const SsData *data, int64_t i, double norm2_i);
/** ss_budget_score_row, keeping the kernel values with the terms (a
 *  Gaussian kernel; other kernels keep nothing) for a merge of the term
 *  that appends row i next (SsBudgetKeptRow): the same score, bit for bit. */
double ss_budget_score_row_kept(SsBudget *budget, const SsBudgetKernel *kernel,
                                const SsData *data, int64_t i, double norm2_i);
/** scores[i] = f(x_i) for every row (norms2[i] = ||x_i||^2), each row alone
 *  as ss_budget_score_row computes it; on the expansion's threads, whole
 *  rows to a thread, when the n B kernel values are many. */
void ss_budget_score_rows(const SsBudget *budget, const SsBudgetKernel *kernel, const SsData *data,
                          const double *norms2, double *scores);
/** Append the term (beta, x_i), x_i made dense; origin as for append_dense.
 *  Requires size <= B. */
void ss_budget_append_row(SsBudget *budget, const SsData *data, int64_t i, double norm2_i,
                          double beta, int64_t origin);
/** <x_i, x_j> of two rows; scratch: `dimension` zeros on entry and on return. */
double ss_budget_row_dot_row(const SsData *data, int64_t i, int64_t j, double *scratch);
/** ||x_i||^2 of every row (n doubles written). */
void ss_budget_row_norms2(const SsData *data, double *norms2);

/* ---- merging (budget_merge.c), Gaussian kernel ---------------------------- *
 * Merging beta_m phi(z_m) + beta_j phi(z_j), kappa = k(z_m, z_j), into
 * beta_z phi(z), z = h z_m + (1 - h) z_j. With a = beta_m, b = beta_j:
 *   k(z_m, z) = kappa^((1-h)^2), k(z_j, z) = kappa^(h^2),
 *   beta_z(h) = a kappa^((1-h)^2) + b kappa^(h^2)        (best coefficient for z)
 *   WD(h)     = a^2 + b^2 + 2 a b kappa - beta_z(h)^2    (weight degradation). */

/** Golden-section search for the h in [0, 1] maximising |beta_z(h)| (so
 *  minimising WD) for same-sign a, b and kappa in [0, 1], to a bracket
 *  width below tol. Returns h; writes beta_z(h) to *beta_z when non-NULL. */
double ss_merge_golden_section(double a, double b, double kappa, double tol, double *beta_z);
/** beta_z(h) and WD(h) in closed form. */
double ss_merge_coefficient(double a, double b, double kappa, double h);
double ss_merge_degradation(double a, double b, double kappa, double h);
/** min_h WD(h) / mu^2 for the pair (mu, 1 - mu), mu in [0, 1/2] (the limit
 *  at mu = 0), kappa in [0, 1]: the merge's screening function. */
double ss_merge_relative_degradation(double mu, double kappa);
/** Tabulate r*(mu, kappa) for the partner screening of ss_budget_merge (once
 *  per expansion; see budget_merge.c). false if the allocation failed (the
 *  merge then searches every partner). */
bool ss_merge_table_build(SsBudget *budget);

/** Merge the smallest-|beta| term with the same-sign partner of least weight
 *  degradation (O(B d) inner products + O(B) searches). Falls back to
 *  removal when no partner has the same sign. Size drops by one.
 *  Adds to counts. Requires a Gaussian kernel and size >= 1. */
void ss_budget_merge(SsBudget *budget, const SsBudgetKernel *kernel, SsBudgetCounts *counts);

/* ---- the Gram matrix's Cholesky factor (budget_cholesky.c) -------------- */

/** Allocate budget->chol (invalid, empty) if absent; false on failure. */
bool ss_budget_cholesky_alloc(SsBudget *budget);
void ss_budget_cholesky_free(SsBudget *budget);
/** Factor K + eps I of all terms from scratch (eps grown until it succeeds);
 *  false if it never did (or no memory): the factor is then invalid. */
bool ss_budget_cholesky_build(SsBudget *budget, const SsBudgetKernel *kernel);
/** True when the factor is valid for the present terms and kernel. */
bool ss_budget_cholesky_ready(const SsBudget *budget, const SsBudgetKernel *kernel);
/** Mark the factor stale (a point moved). No-op without a factor. */
void ss_budget_cholesky_invalidate(SsBudget *budget);
/** Hooks of budget_expansion.c (no-ops unless the factor is valid): slot j
 *  was appended (O(p d + p^2)); slot j is about to be removed (O(p^2));
 *  slot `from` moved to slot `to`. */
void ss_budget_cholesky_append(SsBudget *budget, int64_t j);
void ss_budget_cholesky_remove(SsBudget *budget, int64_t j);
void ss_budget_cholesky_move(SsBudget *budget, int64_t from, int64_t to);
/** Solve (K + eps I) x = rhs in place, x in factor order. */
void ss_budget_cholesky_solve(const SsBudget *budget, double *x);

/* ---- removal and projection (budget_projection.c), any kernel ------------ */

/** Drop the smallest-|beta| term; WD = beta_m^2 k(z_m, z_m). */
void ss_budget_remove_smallest(SsBudget *budget, const SsBudgetKernel *kernel,
                               SsBudgetCounts *counts);
/** Drop the smallest-|beta| term m and add to the others' coefficients the
 *  projection of beta_m phi(z_m) onto their span: solve K d = beta_m k_m
 *  (K the Gram matrix of the others, k_m their kernel values with z_m) with
 *  the Cholesky factor of K + eps I kept by budget_cholesky.c (eps grown for
 *  singular K: duplicates, zero vectors); beta += d. O(B d + B^2) per call
 *  while the factor stays valid, O(B^2 d + B^3) when it is (re)built. Falls
 *  back to plain removal when no finite solution is found or it is worse. */
void ss_budget_project(SsBudget *budget, const SsBudgetKernel *kernel, SsBudgetCounts *counts);

/** Shrink an expansion of B + 1 terms back to B with the strategy (merge
 *  needs a Gaussian kernel: the caller checks). No-op when size <= B. */
void ss_budget_maintain(SsBudget *budget, SsBudgetStrategy strategy,
                        const SsBudgetKernel *kernel, SsBudgetCounts *counts);

#endif /* STOCHSVM_BUDGET_H */

/* internal.h -- private definitions of the C core; never installed.
 *
 * The bottom layer (common/): the per-object random generator, the monotonic
 * clock, the loss functions, the homogeneous kernel map and the data an
 * object reads. It includes public headers only; the SsSvm body is in
 * linear/svm_internal.h (docs/dev/architecture.md).
 */
#ifndef STOCHSVM_INTERNAL_H
#define STOCHSVM_INTERNAL_H

#include "stochsvm/homkermap.h"
#include "stochsvm/svm.h"
#include "threads.h"

#include <math.h>
#include <stdbool.h>

/** qsort's comparison of doubles, ascending (the sorted values hold no NaN). */
static inline int ss_compare_doubles(const void *p, const void *q)
{
  const double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

/* ------------------------------------------------------------------------ */
/*                           Random numbers (rng.c)                         */
/* ------------------------------------------------------------------------ */

/** xoshiro256** state; seeded through splitmix64 so any 64-bit seed works. */
typedef struct SsRng {
  uint64_t s[4];
} SsRng;

void ss_rng_seed(SsRng *rng, uint64_t seed, uint64_t stream);
uint64_t ss_rng_next(SsRng *rng);
/** Uniform integer in [0, bound), bound >= 1, without modulo bias. */
uint64_t ss_rng_below(SsRng *rng, uint64_t bound);
/** perm <- a uniformly random permutation of 0..n-1, a pure function of
 *  (seed, stream): Fisher-Yates on the identity. */
void ss_rng_permutation(int64_t *perm, int64_t n, uint64_t seed, uint64_t stream);
/** list[0..n) <- a uniformly random rearrangement of itself, a pure function
 *  of (seed, stream) and the entries' order: Fisher-Yates. On the identity
 *  it gives ss_rng_permutation's permutation. */
void ss_rng_shuffle(int64_t *list, int64_t n, uint64_t seed, uint64_t stream);
/** perm <- a block-wise random permutation of 0..n-1, a pure function of
 *  (seed, stream): the blocks [0, b), [b, 2b), ... of b rows are visited in
 *  a random order, the rows of each block in a random order. */
void ss_rng_block_permutation(int64_t *perm, int64_t n, int64_t b, uint64_t seed, uint64_t stream);

/* ------------------------------------------------------------------------ */
/*                          Monotonic clock (clock.c)                       */
/* ------------------------------------------------------------------------ */

/** Seconds from an arbitrary origin, monotonic, wall clock. */
double ss_clock_seconds(void);

/* ------------------------------------------------------------------------ */
/*                               Losses (loss.c)                            */
/* ------------------------------------------------------------------------ */

bool ss_loss_is_valid(int loss);
/** Classification losses need labels in {-1, +1}. */
bool ss_loss_needs_binary_labels(SsLoss loss, const SsLossFunctions *custom);
/** loss*(u, y), +INFINITY outside its domain. */
double ss_loss_conjugate(SsLoss loss, const SsLossFunctions *custom, double u, double y);
/** SDCA's coordinate step (see loss.c). */
double ss_loss_dual_update(SsLoss loss, const SsLossFunctions *custom, double alpha, double s,
                           double A, double y);
/** The curvature bound of the loss over rows of squared norm max_squared_norm (loss.c). */
double ss_loss_curvature_bound(SsLoss loss, double max_squared_norm);
/* ss_loss_value(loss, s, y) and ss_loss_derivative(loss, s, y) are inline, in loss.h. */

/* ------------------------------------------------------------------------ */
/*                   The homogeneous kernel map (homkermap.c)               */
/* ------------------------------------------------------------------------ */

/** <Psi(x), w[0 .. 2 order]> and w[0 .. 2 order] += a Psi(x). */
double ss_homkermap_dot(const SsHomKerMap *map, double x, const double *w);
void ss_homkermap_axpy(const SsHomKerMap *map, double x, double *w, double a);
/** <w, Psi(x_i)> and w += a Psi(x_i) for a descriptor with a map attached. */
double ss_data_mapped_inner_product(const SsData *data, int64_t i, const double *w);
void ss_data_mapped_accumulate(const SsData *data, int64_t i, double *w, double a);

/* ------------------------------------------------------------------------ */
/*                            The data of an object                          */
/* ------------------------------------------------------------------------ */

/** How an object reads its examples: a validated SsData, or two callbacks. */
typedef enum SsDataKind {
  SS_DATA_NONE = 0,
  SS_DATA_DESCRIPTOR = 1,
  SS_DATA_ABSTRACT = 2
} SsDataKind;

typedef struct SsDataSource {
  SsDataKind kind;
  SsData descriptor;                   /* SS_DATA_DESCRIPTOR */
  const void *user;                    /* SS_DATA_ABSTRACT */
  SsInnerProductFunction inner_product;
  SsAccumulateFunction accumulate;
  int64_t num_data;
  bool unit_values;                    /* the descriptor's stored values are all 1 (ss_data_unit_values),
                                          as last found (the linear object: ss_svm_find_unit_values) */
} SsDataSource;

/** The first row of @p data holding a value that is not finite, or -1. The
 *  descriptor was checked when made; a value can only have changed since in
 *  the caller's borrowed arrays. O(stored values): for error paths only. */
int64_t ss_data_first_nonfinite_row(const SsData *data);
/** The status of a decision function's @p count scores of the rows of
 *  @p data: SS_OK if every one is finite; else SS_ERR_BAD_DATA if a value of
 *  @p data is not finite (a borrowed array changed after the descriptor was
 *  made), SS_ERR_NUMERIC if finite values overflowed against the model. */
SsStatus ss_scores_status(const SsData *data, const double *scores, int64_t count);
/** Whether @p data is CSR (no map) with at least one stored value and
 *  every stored value 1 (0/1 features, as a9a's): its rows' dot products
 *  and updates need not load the values, with the same results (the
 *  kernel rows, kernel.c; the linear solvers' steps, steps_kinds.h). O(nnz). */
bool ss_data_unit_values(const SsData *data);
/** The first row of CSR @p data holding a stored value other than 1, or -1. */
int64_t ss_data_first_non_unit_row(const SsData *data);

/** <w, x_i> and w += a x_i, whatever the source. */
double ss_source_inner_product(const SsDataSource *src, int64_t i, const double *w);
void ss_source_accumulate(const SsDataSource *src, int64_t i, double *w, double a);
/** w += a x_i .* x_i (the squares of row i's values), for a descriptor
 *  without a kernel map; false (w unchanged) for the other sources. */
bool ss_source_accumulate_squares(const SsDataSource *src, int64_t i, double *w, double a);
/** scores[i] = <w, x_i> + b for every row of @p data (mapped rows with a
 *  homogeneous kernel map), in one pass whose rows are split over
 *  @p threads: the result does not depend on the thread count (data.c). */
void ss_data_scores(const SsData *data, const double *w, double b, double *scores, SsThreads threads);
/** The same for every example of a source; the user's callbacks of an
 *  abstract source run on the calling thread only. */
void ss_source_scores(const SsDataSource *src, const double *w, double b, double *scores, SsThreads threads);
/** w += a (diag .* x_i) whatever the source; scratch: [dimension] zeros,
 *  left zero (data.c). */
void ss_source_accumulate_diagonal(const SsDataSource *src, int64_t i, int64_t dimension, double *w,
                                   double a, const double *diag, double *scratch);

#endif /* STOCHSVM_INTERNAL_H */

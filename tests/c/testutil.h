/* testutil.h -- shared helpers of the C tests: a deterministic generator,
 * small data sets, and an independent reference for the primal objective. */
#ifndef STOCHSVM_TESTUTIL_H
#define STOCHSVM_TESTUTIL_H

#include <stdint.h>

#include "stochsvm/kernel.h"
#include "stochsvm/kernel_svm.h"
#include "stochsvm/svm.h"

/** A 64-bit LCG (Knuth's MMIX constants); deterministic across platforms. */
typedef struct TuRng { uint64_t state; } TuRng;
void tu_rng_init(TuRng *rng, uint64_t seed);
/** Uniform in [0, 1). */
double tu_rng_uniform(TuRng *rng);

/** Two overlapping classes in d dimensions, n rows, row-major with stride d.
 *  Class +1 is centred at +sep, class -1 at -sep (first coordinate only);
 *  noise uniform in [-1, 1). Every value is a multiple of 1/64 (exact in float32).
 *  Labels alternate +1, -1, +1, ... */
void tu_make_blobs(double *X, double *y, int64_t n, int64_t d, double sep, uint64_t seed);

/** Loss value of a built-in loss, written independently of the core (NaN for a custom one). */
double tu_loss(SsLoss loss, double y, double s);

/** Reference primal objective of svm.h on a dense double matrix:
 *  lambda/2 (||w||^2 + (b/B)^2 [B > 0 only]) + 1/n sum c_i loss(y_i, <w,x_i> + b).
 *  @p weights may be NULL (all 1). Writes the two parts when the pointers are non-NULL. */
double tu_objective(const double *X, int64_t n, int64_t d, int64_t stride, const double *y,
                    const double *w, double b, double B, double lambda, SsLoss loss,
                    const double *weights, double *regularizer, double *loss_part);

/** Create a dense float64 SGD/NONE object on X (stride d). NULL on failure. */
SsSvm *tu_new_dense(SsSolver solver, SsData *data, const double *X, const double *y,
                    int64_t n, int64_t d, double lambda);

/** The smallest problem every object accepts: four points on a line,
 *  x = 0, 1, 2, 3 with labels -1, -1, 1, 1 (static storage), as 1-d dense
 *  float64 data, and an rbf kernel (gamma 1). Returns the labels; NULL
 *  when the data or the kernel are refused. */
const double *tu_four_points(SsData *data, SsKernel *kernel);

/** 1 if two trained kernel objects on @p n examples hold bitwise identical
 *  dual variables and objectives. */
int tu_same_kernel_run(const SsKernelSvm *a, const SsKernelSvm *b, int64_t n);

/** Abstract data (ss_svm_new_with_abstract_data) over a dense row-major
 *  double matrix @p x of @p d columns: pass a TuRows as the user pointer and
 *  tu_rows_inner_product / tu_rows_accumulate as the callbacks. The
 *  callbacks count their calls (the test owns the struct). */
typedef struct TuRows {
  const double *x;
  int64_t d;
  int64_t inner_products; /**< calls of tu_rows_inner_product (rows read by it) */
  int64_t accumulates;    /**< calls of tu_rows_accumulate */
} TuRows;
double tu_rows_inner_product(const void *rows, int64_t i, const double *w);
void tu_rows_accumulate(const void *rows, int64_t i, double *w, double multiplier);

/** 1 if two model vectors are bitwise identical. */
int tu_same_bits(const double *a, const double *b, int64_t d);
/** The SBP's levels with the bias by sorting both classes (the largest k
 *  with V_k <= volume; gamma = (u + v) / 2, bias = (v - u) / 2). */
void tu_sbp_reference_levels(const double *y, const double *c, int64_t n, double volume,
                             double *gamma, double *bias, int64_t *covered);

/** POSIX: runs @p body(@p context) in a fork()ed child that exits with its
 *  return value, under an alarm of @p deadline seconds, and waits for it as
 *  long again; returns the exit code, -1 when the child died (a signal: the
 *  alarm of a hung child) or could not be forked or waited for, killed if
 *  still running. Elsewhere (no fork) returns 0 without running body. */
int tu_child_exit_code(int (*body)(void *context), void *context, unsigned deadline);

#endif /* STOCHSVM_TESTUTIL_H */

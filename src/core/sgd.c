/* sgd.c -- Pegasos-style stochastic gradient descent (VLFeat's SGD, seed 000;
 * Shalev-Shwartz et al., Pegasos; ALGORITHMS.md section 1).
 *
 * Minimises, with the bias b = B w_b of a constant feature B,
 *
 *     E(w, b) = lambda/2 (||w||^2 + w_b^2) + 1/n sum_i c_i loss(y_i, <w, x_i> + b).
 *
 * Iteration t (counted over the object's whole life, warm start included)
 * visits example i = perm_e[t mod n] of epoch e = t / n, where perm_e is a
 * permutation that depends on (seed, e) only, and with g = c_i loss'(s_i)
 * takes the step on E_i = lambda/2 ||w~||^2 + c_i loss_i:
 *
 *     eta_t = 1 / (lambda (t + t0))                 t0: see ss_svm_set_t0 in svm.h
 *     w    <- (1 - lambda eta_t) w - eta_t g x_i
 *     b    <- (1 - lambda eta_b) b - eta_b g B^2    eta_b = bias_learning_rate * eta_t
 *
 * (the bias line is the w_b step multiplied by B). The shrinkage of w is kept
 * in a scale factor, w = f u: since 1 - lambda eta_t = (t + t0 - 1)/(t + t0),
 *
 *     f <- f (t + t0 - 1)/(t + t0),    u <- u - (eta_t g / f) x_i   (only if g != 0)
 *
 * so an example with zero loss gradient costs one inner product. The bias is
 * a scalar and is updated directly (a second factor would save nothing). The
 * factor is folded into u (u <- f u, f <- 1) at every epoch boundary and
 * whenever f falls below SS_SGD_MIN_FACTOR; both depend on t only, so training
 * N iterations equals N/2 and then N/2 more, bit for bit.
 *
 * Stopping: at every diagnostic (each diagnostic_frequency iterations, counted
 * on t) the scores s_i of all examples are recomputed; training stops when
 * ||s - s_prev|| / n < epsilon, s_prev being the scores of the diagnostic
 * before (VLFeat's rule; it compares the scores at consecutive visits). The
 * cap is max_num_iterations iterations per call.
 */
#include "internal.h"
#include "loss.h"
#include "row_kernels.h"

#include <stdlib.h>

/** Fold the factor into u before it gets this small (precision of u). */
#define SS_SGD_MIN_FACTOR 1e-9

/** How many examples ahead the inner loop prefetches: the row's index
 *  entry (and label, weight) first, then, half as far ahead, the row itself. */
#define SS_SGD_PREFETCH 16

#if defined(__GNUC__)
#define SS_PREFETCH(address) __builtin_prefetch(address)
#else
#define SS_PREFETCH(address) ((void)(address))
#endif

/* Prefetch every cache line of a sparse row's values and indices. */
static inline void ss_prefetch_csr_row(const void *values, const int32_t *indices, int64_t nnz,
                                       size_t value_size)
{
  const char *v = values, *j = (const char *)indices;
  for (int64_t offset = 0; offset < nnz * (int64_t)value_size; offset += 64) SS_PREFETCH(v + offset);
  for (int64_t offset = 0; offset < nnz * (int64_t)sizeof(int32_t); offset += 64) SS_PREFETCH(j + offset);
}

/* Instantiate the inner loop, sgd_steps_<kind>(run, t_begin, t_end), once per
 * data kind, so that the row kernels are inlined. Each defines:
 *   ROW_DOT(i, w)       <w, x_i>
 *   ROW_AXPY(i, a, w)   w += a x_i
 *   ROW_PREFETCH(i)     start loading row i (its offsets must be loaded)
 *   INDEX_PREFETCH(i)   start loading what locates row i                   */
#define SGD_NAME sgd_steps_dense_f32
#define SGD_SETUP const float *X = run->svm->source.descriptor.values; \
                  const int64_t d = run->svm->dimension, stride = run->svm->source.descriptor.row_stride;
#define ROW_DOT(i, w) ss_dense_dot_f32(X + (i) * stride, d, w)
#define ROW_AXPY(i, a, w) ss_dense_axpy_f32(X + (i) * stride, d, w, a)
#define ROW_PREFETCH(i) SS_PREFETCH(X + (i) * stride)
#define INDEX_PREFETCH(i) ((void)(i))
#include "sgd_steps_t.h"

#define SGD_NAME sgd_steps_dense_f64
#define SGD_SETUP const double *X = run->svm->source.descriptor.values; \
                  const int64_t d = run->svm->dimension, stride = run->svm->source.descriptor.row_stride;
#define ROW_DOT(i, w) ss_dense_dot_f64(X + (i) * stride, d, w)
#define ROW_AXPY(i, a, w) ss_dense_axpy_f64(X + (i) * stride, d, w, a)
#define ROW_PREFETCH(i) SS_PREFETCH(X + (i) * stride)
#define INDEX_PREFETCH(i) ((void)(i))
#include "sgd_steps_t.h"

#define SGD_NAME sgd_steps_csr_f32
#define SGD_SETUP const float *V = run->svm->source.descriptor.values; \
                  const int32_t *J = run->svm->source.descriptor.indices; \
                  const int64_t *P = run->svm->source.descriptor.indptr;
#define ROW_DOT(i, w) ss_csr_dot_f32(V + P[i], J + P[i], P[(i) + 1] - P[i], w)
#define ROW_AXPY(i, a, w) ss_csr_axpy_f32(V + P[i], J + P[i], P[(i) + 1] - P[i], w, a)
#define ROW_PREFETCH(i) ss_prefetch_csr_row(V + P[i], J + P[i], P[(i) + 1] - P[i], sizeof *V)
#define INDEX_PREFETCH(i) SS_PREFETCH(P + (i))
#include "sgd_steps_t.h"

#define SGD_NAME sgd_steps_csr_f64
#define SGD_SETUP const double *V = run->svm->source.descriptor.values; \
                  const int32_t *J = run->svm->source.descriptor.indices; \
                  const int64_t *P = run->svm->source.descriptor.indptr;
#define ROW_DOT(i, w) ss_csr_dot_f64(V + P[i], J + P[i], P[(i) + 1] - P[i], w)
#define ROW_AXPY(i, a, w) ss_csr_axpy_f64(V + P[i], J + P[i], P[(i) + 1] - P[i], w, a)
#define ROW_PREFETCH(i) ss_prefetch_csr_row(V + P[i], J + P[i], P[(i) + 1] - P[i], sizeof *V)
#define INDEX_PREFETCH(i) SS_PREFETCH(P + (i))
#include "sgd_steps_t.h"

#define SGD_NAME sgd_steps_abstract
#define SGD_SETUP const SsDataSource *src = &run->svm->source;
#define ROW_DOT(i, w) src->inner_product(src->user, i, w)
#define ROW_AXPY(i, a, w) src->accumulate(src->user, i, w, a)
#define ROW_PREFETCH(i) ((void)(i))
#define INDEX_PREFETCH(i) ((void)(i))
#include "sgd_steps_t.h"

static SsStepsFunction select_steps(const SsDataSource *source)
{
  if (source->kind == SS_DATA_ABSTRACT) return sgd_steps_abstract;
  const SsData *data = &source->descriptor;
  bool f32 = data->dtype == SS_DTYPE_FLOAT32;
  if (data->layout == SS_LAYOUT_DENSE) return f32 ? sgd_steps_dense_f32 : sgd_steps_dense_f64;
  return f32 ? sgd_steps_csr_f32 : sgd_steps_csr_f64;
}

SsStatus ss_sgd_train(SsSvm *self)
{
  return ss_run_epochs(self, select_steps(&self->source));
}

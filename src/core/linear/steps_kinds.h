/* steps_kinds.h -- instantiate a solver's inner loop once per data kind, so
 * that the row kernels are inlined into it.
 *
 * Define, then include this file:
 *   SS_STEPS_TEMPLATE  the template's file name, a string ("sgd_steps_t.h")
 *   SS_STEPS_PREFIX    an identifier (sgd_steps)
 * It defines static SsStatus <prefix>_<kind>(SsEpochRun *, int64_t, int64_t)
 * for kind in dense_f32, dense_f64, csr_f32, csr_f64, csr_unit (CSR rows of
 * ones, either type) and generic (abstract
 * data, or data with a homogeneous kernel map: through ss_source_*), and
 * static SsStepsFunction <prefix>_select(const SsDataSource *).
 *
 * The template sees:
 *   STEPS_NAME          the function being defined
 *   STEPS_SETUP         declarations the macros below rely on
 *   ROW_DOT(i, w)       <w, x_i>
 *   ROW_AXPY(i, a, w)   w += a x_i
 *   ROW_AXPY_DIAG(i, a, diag, w)   w += a (diag .* x_i)   (generic: through
 *                       run->svm->scratch, which must hold zeros)
 *   ROW_PREFETCH(i)     start loading row i (its offsets must be loaded)
 *   INDEX_PREFETCH(i)   start loading what locates row i
 */
#include "../common/row_kernels.h"

#ifndef STOCHSVM_STEPS_KINDS_ONCE
#define STOCHSVM_STEPS_KINDS_ONCE

/** How many examples ahead the inner loops prefetch: the row's index entry
 *  (and label, weight) first, then, half as far ahead, the row itself.
 *
 *  Far enough to hide a memory access behind the visits in between (a visit
 *  of a short row takes 50-200 ns), and no farther: the visits touch pages
 *  at random, and a prefetch whose page entry is evicted from the first-level
 *  TLB before its visit comes pays the page walk again (on this project's
 *  virtual machine, a nested one): the likely cause of what was measured
 *  below (the machine has no hardware counters to confirm it). With 16 examples ahead (rows 8 ahead) a
 *  visit kept about 80 pages of the label, dual-variable, norm, offset and
 *  row arrays in flight, more than a 64-entry TLB holds; with 8, about 40.
 *  Measured (CPU time, builds alternating, load 8-20): 14 logistic SDCA
 *  epochs on ijcnn1 (13 of 22 features per row) took 160 ms at 16, 108 ms
 *  at 8 and 107 ms at 6; 20 epochs on a9a 158 -> 122 ms, on w8a 139 -> 127
 *  ms; 10 SGD hinge epochs on ijcnn1 57 -> 41 ms (docs/sdca.rst). The
 *  iterates do not depend on it. */
#define SS_STEPS_PREFETCH 8

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

/* Prefetch every cache line of a sparse row's indices (a row of ones). */
static inline void ss_prefetch_csr_indices(const int32_t *indices, int64_t nnz)
{
  const char *j = (const char *)indices;
  for (int64_t offset = 0; offset < nnz * (int64_t)sizeof(int32_t); offset += 64) SS_PREFETCH(j + offset);
}

/* The prefetches of position k of an epoch of n visits in perm, for the
 * primal solvers: index entry, label and weight SS_STEPS_PREFETCH visits
 * ahead, the row half as far (ROW_PREFETCH and INDEX_PREFETCH are the data
 * kind's, resolved where this is expanded). */
#define SS_STEPS_PREFETCH_AHEAD(perm, k, n, y, c)                                    \
  do {                                                                               \
    if ((k) + SS_STEPS_PREFETCH < (n)) {                                             \
      const int64_t ahead_ = (perm)[(k) + SS_STEPS_PREFETCH];                        \
      INDEX_PREFETCH(ahead_);                                                        \
      SS_PREFETCH((y) + ahead_);                                                     \
      if (c) SS_PREFETCH((c) + ahead_);                                              \
    }                                                                                \
    if ((k) + SS_STEPS_PREFETCH / 2 < (n)) ROW_PREFETCH((perm)[(k) + SS_STEPS_PREFETCH / 2]); \
  } while (0)

#define SS_STEPS_CAT2(a, b) a##_##b
#define SS_STEPS_CAT(a, b) SS_STEPS_CAT2(a, b)

#endif /* STOCHSVM_STEPS_KINDS_ONCE */

#define STEPS_NAME SS_STEPS_CAT(SS_STEPS_PREFIX, dense_f32)
#define STEPS_SETUP const float *X = run->svm->source.descriptor.values; \
                    const int64_t d = run->svm->source.descriptor.dimension, \
                                  stride = run->svm->source.descriptor.row_stride;
#define ROW_DOT(i, w) ss_dense_dot_f32(X + (i) * stride, d, w)
#define ROW_AXPY(i, a, w) ss_dense_axpy_f32(X + (i) * stride, d, w, a)
#define ROW_AXPY_DIAG(i, a, diag, w) ss_dense_axpy_diag_f32(X + (i) * stride, d, diag, w, a)
#define ROW_PREFETCH(i) SS_PREFETCH(X + (i) * stride)
#define INDEX_PREFETCH(i) ((void)(i))
#include SS_STEPS_TEMPLATE
#include "steps_kinds_end.h"

#define STEPS_NAME SS_STEPS_CAT(SS_STEPS_PREFIX, dense_f64)
#define STEPS_SETUP const double *X = run->svm->source.descriptor.values; \
                    const int64_t d = run->svm->source.descriptor.dimension, \
                                  stride = run->svm->source.descriptor.row_stride;
#define ROW_DOT(i, w) ss_dense_dot_f64(X + (i) * stride, d, w)
#define ROW_AXPY(i, a, w) ss_dense_axpy_f64(X + (i) * stride, d, w, a)
#define ROW_AXPY_DIAG(i, a, diag, w) ss_dense_axpy_diag_f64(X + (i) * stride, d, diag, w, a)
#define ROW_PREFETCH(i) SS_PREFETCH(X + (i) * stride)
#define INDEX_PREFETCH(i) ((void)(i))
#include SS_STEPS_TEMPLATE
#include "steps_kinds_end.h"

#define STEPS_NAME SS_STEPS_CAT(SS_STEPS_PREFIX, csr_f32)
#define STEPS_SETUP const float *V = run->svm->source.descriptor.values; \
                    const int32_t *J = run->svm->source.descriptor.indices; \
                    const int64_t *P = run->svm->source.descriptor.indptr;
#define ROW_DOT(i, w) ss_csr_dot_f32(V + P[i], J + P[i], P[(i) + 1] - P[i], w)
#define ROW_AXPY(i, a, w) ss_csr_axpy_f32(V + P[i], J + P[i], P[(i) + 1] - P[i], w, a)
#define ROW_AXPY_DIAG(i, a, diag, w) \
  ss_csr_axpy_diag_f32(V + P[i], J + P[i], P[(i) + 1] - P[i], diag, w, a)
#define ROW_PREFETCH(i) ss_prefetch_csr_row(V + P[i], J + P[i], P[(i) + 1] - P[i], sizeof *V)
#define INDEX_PREFETCH(i) SS_PREFETCH(P + (i))
#include SS_STEPS_TEMPLATE
#include "steps_kinds_end.h"

#define STEPS_NAME SS_STEPS_CAT(SS_STEPS_PREFIX, csr_f64)
#define STEPS_SETUP const double *V = run->svm->source.descriptor.values; \
                    const int32_t *J = run->svm->source.descriptor.indices; \
                    const int64_t *P = run->svm->source.descriptor.indptr;
#define ROW_DOT(i, w) ss_csr_dot_f64(V + P[i], J + P[i], P[(i) + 1] - P[i], w)
#define ROW_AXPY(i, a, w) ss_csr_axpy_f64(V + P[i], J + P[i], P[(i) + 1] - P[i], w, a)
#define ROW_AXPY_DIAG(i, a, diag, w) \
  ss_csr_axpy_diag_f64(V + P[i], J + P[i], P[(i) + 1] - P[i], diag, w, a)
#define ROW_PREFETCH(i) ss_prefetch_csr_row(V + P[i], J + P[i], P[(i) + 1] - P[i], sizeof *V)
#define INDEX_PREFETCH(i) SS_PREFETCH(P + (i))
#include SS_STEPS_TEMPLATE
#include "steps_kinds_end.h"

/* CSR rows of ones (0/1 features, SsDataSource.unit_values), whatever the
 * value type: the values are never loaded (half the bytes of an f64 row). */
#define STEPS_NAME SS_STEPS_CAT(SS_STEPS_PREFIX, csr_unit)
#define STEPS_SETUP const int32_t *J = run->svm->source.descriptor.indices; \
                    const int64_t *P = run->svm->source.descriptor.indptr;
#define ROW_DOT(i, w) ss_csr_dot_unit(J + P[i], P[(i) + 1] - P[i], w)
#define ROW_AXPY(i, a, w) ss_csr_axpy_unit(J + P[i], P[(i) + 1] - P[i], w, a)
#define ROW_AXPY_DIAG(i, a, diag, w) ss_csr_axpy_diag_unit(J + P[i], P[(i) + 1] - P[i], diag, w, a)
#define ROW_PREFETCH(i) ss_prefetch_csr_indices(J + P[i], P[(i) + 1] - P[i])
#define INDEX_PREFETCH(i) SS_PREFETCH(P + (i))
#include SS_STEPS_TEMPLATE
#include "steps_kinds_end.h"

#define STEPS_NAME SS_STEPS_CAT(SS_STEPS_PREFIX, generic)
#define STEPS_SETUP const SsDataSource *src = &run->svm->source;
#define ROW_DOT(i, w) ss_source_inner_product(src, i, w)
#define ROW_AXPY(i, a, w) ss_source_accumulate(src, i, w, a)
#define ROW_AXPY_DIAG(i, a, diag, w) \
  ss_source_accumulate_diagonal(src, i, run->svm->dimension, w, a, diag, run->svm->scratch)
#define ROW_PREFETCH(i) ((void)(i))
#define INDEX_PREFETCH(i) ((void)(i))
#include SS_STEPS_TEMPLATE
#include "steps_kinds_end.h"

static SsStepsFunction SS_STEPS_CAT(SS_STEPS_PREFIX, select)(const SsDataSource *source)
{
  if (source->kind != SS_DATA_DESCRIPTOR || source->descriptor.homkermap)
    return SS_STEPS_CAT(SS_STEPS_PREFIX, generic);
  const SsData *data = &source->descriptor;
  bool f32 = data->dtype == SS_DTYPE_FLOAT32;
  if (data->layout == SS_LAYOUT_DENSE)
    return f32 ? SS_STEPS_CAT(SS_STEPS_PREFIX, dense_f32) : SS_STEPS_CAT(SS_STEPS_PREFIX, dense_f64);
  if (source->unit_values) return SS_STEPS_CAT(SS_STEPS_PREFIX, csr_unit);
  return f32 ? SS_STEPS_CAT(SS_STEPS_PREFIX, csr_f32) : SS_STEPS_CAT(SS_STEPS_PREFIX, csr_f64);
}

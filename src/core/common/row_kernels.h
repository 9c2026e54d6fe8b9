/* row_kernels.h -- dot and axpy of one data row against a double vector, for
 * dense and CSR rows of float and double values (one template, two types). */
#ifndef STOCHSVM_ROW_KERNELS_H
#define STOCHSVM_ROW_KERNELS_H

#include <stdint.h>

#define SS_T float
#define SS_SFX f32
#include "row_kernels_t.h"
#undef SS_T
#undef SS_SFX

#define SS_T double
#define SS_SFX f64
#include "row_kernels_t.h"
#undef SS_T
#undef SS_SFX

/* Sparse rows whose stored values are all 1 (0/1 features, ss_data_unit_values):
 * the CSR kernels without loading the values. Each adds what the typed kernel
 * would, in the same order ((double)1 * w is w exactly), so the results are
 * bitwise those of ss_csr_*_f32/_f64 on the same rows. */

/** <w, x> for a sparse row of ones at the column indices j. */
static inline double ss_csr_dot_unit(const int32_t *j, int64_t nnz, const double *w)
{
  double s0 = 0, s1 = 0;
  int64_t k = 0;
  for (; k + 2 <= nnz; k += 2) {
    s0 += w[j[k]];
    s1 += w[j[k + 1]];
  }
  if (k < nnz) s0 += w[j[k]];
  return s0 + s1;
}

/** w += a x for a sparse row of ones. */
static inline void ss_csr_axpy_unit(const int32_t *j, int64_t nnz, double *w, double a)
{
  for (int64_t k = 0; k < nnz; ++k) w[j[k]] += a;
}

/** w += a (diag .* x) for a sparse row of ones. */
static inline void ss_csr_axpy_diag_unit(const int32_t *j, int64_t nnz, const double *diag, double *w,
                                         double a)
{
  for (int64_t k = 0; k < nnz; ++k) w[j[k]] += a * diag[j[k]];
}

#endif /* STOCHSVM_ROW_KERNELS_H */

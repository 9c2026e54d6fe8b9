/* row_kernels_t.h -- typed row kernels, a template included once per element
 * type by row_kernels.h with SS_T (float or double) and SS_SFX (f32 or f64).
 * Values may be float; products and sums are always double. */

#define SS_NAME2(a, b) a##_##b
#define SS_NAME(a, b) SS_NAME2(a, b)

/** <w, x> for a dense row x of length d. Four partial sums break the
 *  dependency chain of the accumulation. */
static inline double SS_NAME(ss_dense_dot, SS_SFX)(const SS_T *x, int64_t d, const double *w)
{
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t k = 0;
  for (; k + 4 <= d; k += 4) {
    s0 += (double)x[k] * w[k];
    s1 += (double)x[k + 1] * w[k + 1];
    s2 += (double)x[k + 2] * w[k + 2];
    s3 += (double)x[k + 3] * w[k + 3];
  }
  for (; k < d; ++k) s0 += (double)x[k] * w[k];
  return (s0 + s1) + (s2 + s3);
}

/** w += a x for a dense row x of length d. */
static inline void SS_NAME(ss_dense_axpy, SS_SFX)(const SS_T *x, int64_t d, double *w, double a)
{
  for (int64_t k = 0; k < d; ++k) w[k] += a * (double)x[k];
}

/** <w, x> for a sparse row: values v and column indices j, nnz entries. */
static inline double SS_NAME(ss_csr_dot, SS_SFX)(const SS_T *v, const int32_t *j, int64_t nnz,
                                                  const double *w)
{
  double s0 = 0, s1 = 0;
  int64_t k = 0;
  for (; k + 2 <= nnz; k += 2) {
    s0 += (double)v[k] * w[j[k]];
    s1 += (double)v[k + 1] * w[j[k + 1]];
  }
  if (k < nnz) s0 += (double)v[k] * w[j[k]];
  return s0 + s1;
}

/** w += a x for a sparse row. */
static inline void SS_NAME(ss_csr_axpy, SS_SFX)(const SS_T *v, const int32_t *j, int64_t nnz,
                                                 double *w, double a)
{
  for (int64_t k = 0; k < nnz; ++k) w[j[k]] += a * (double)v[k];
}

/** w += a (diag .* x) for a dense row (SGD-QN's rescaled step). */
static inline void SS_NAME(ss_dense_axpy_diag, SS_SFX)(const SS_T *x, int64_t d, const double *diag,
                                                       double *w, double a)
{
  for (int64_t k = 0; k < d; ++k) w[k] += a * diag[k] * (double)x[k];
}

/** w += a (diag .* x) for a sparse row. */
static inline void SS_NAME(ss_csr_axpy_diag, SS_SFX)(const SS_T *v, const int32_t *j, int64_t nnz,
                                                     const double *diag, double *w, double a)
{
  for (int64_t k = 0; k < nnz; ++k) w[j[k]] += a * diag[j[k]] * (double)v[k];
}

#undef SS_NAME
#undef SS_NAME2

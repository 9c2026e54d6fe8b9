/* dense_dots.c -- <x_r, z> for many dense float64 rows x_r and one z
 * (dense_dots.h): the dot products of a kernel row on dense data.
 *
 * ss_dense_dot_f64 (row_kernels_t.h) sums a row as four partial sums,
 *
 *     s_l = sum_{c < d4, c = l mod 4} x_c z_c   (l = 0..3, d4 = d - d mod 4),
 *     s_0 += x_c z_c for c = d4 .. d - 1 (in order),
 *     <x, z> = (s_0 + s_1) + (s_2 + s_3),
 *
 * which is one vector of four lanes, s, added to four columns at a time:
 * lane l of the vector computes s_l with the scalar code's operations (the
 * core is built with -ffp-contract=off: a product is rounded before its
 * sum), so the values are the same bits. Here four rows are summed side by
 * side, each in its own vector: a vector of z is loaded once for the four
 * rows, and the four sums are independent chains of additions, whose
 * latencies overlap. With GCC or Clang the vectors are their vector
 * extension (two SSE2 registers a vector in the baseline build; one AVX
 * register in the AVX2 and AVX-512 copies, SS_VECTOR_CLONES); elsewhere
 * each row calls ss_dense_dot_f64.
 */
#include "dense_dots.h"

#include "row_kernels.h"
#include "vexp.h" /* SS_VECTOR_CLONES */

#include <string.h>

#if defined(__GNUC__)
typedef double SsLanes4 __attribute__((vector_size(4 * sizeof(double))));

/* Four doubles from p, at any alignment (a macro: a function returning a
 * vector would change the ABI of the baseline build, GCC warns). */
#define LOAD4(v, p) memcpy(&(v), (p), sizeof(SsLanes4))

/* A row's dot from its four lanes over the first d4 columns: the tail
 * into lane 0, then (s0 + s1) + (s2 + s3). (The lanes by address: a vector
 * argument would change the ABI of the baseline build, GCC warns.) */
static inline double finish(const SsLanes4 *s, const double *x, const double *z, int64_t d4,
                            int64_t d)
{
  double s0 = (*s)[0];
  for (int64_t c = d4; c < d; ++c) s0 += x[c] * z[c];
  return (s0 + (*s)[1]) + ((*s)[2] + (*s)[3]);
}

SS_VECTOR_CLONES static void dense_dots_f64(const double *base, int64_t stride, int64_t d,
                                            const int64_t *rows, int64_t first, int64_t len,
                                            const double *z, double *out)
{
  const int64_t d4 = d - d % 4;
  int64_t k = 0;
  for (; k + 4 <= len; k += 4) {
    const double *x0 = base + (rows ? rows[k] : first + k) * stride;
    const double *x1 = base + (rows ? rows[k + 1] : first + k + 1) * stride;
    const double *x2 = base + (rows ? rows[k + 2] : first + k + 2) * stride;
    const double *x3 = base + (rows ? rows[k + 3] : first + k + 3) * stride;
    SsLanes4 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    for (int64_t c = 0; c < d4; c += 4) {
      SsLanes4 zc, v0, v1, v2, v3;
      LOAD4(zc, z + c);
      LOAD4(v0, x0 + c);
      LOAD4(v1, x1 + c);
      LOAD4(v2, x2 + c);
      LOAD4(v3, x3 + c);
      s0 += v0 * zc;
      s1 += v1 * zc;
      s2 += v2 * zc;
      s3 += v3 * zc;
    }
    out[k] = finish(&s0, x0, z, d4, d);
    out[k + 1] = finish(&s1, x1, z, d4, d);
    out[k + 2] = finish(&s2, x2, z, d4, d);
    out[k + 3] = finish(&s3, x3, z, d4, d);
  }
  for (; k < len; ++k) {
    const double *x = base + (rows ? rows[k] : first + k) * stride;
    SsLanes4 s = {0};
    for (int64_t c = 0; c < d4; c += 4) {
      SsLanes4 zc, v;
      LOAD4(zc, z + c);
      LOAD4(v, x + c);
      s += v * zc;
    }
    out[k] = finish(&s, x, z, d4, d);
  }
}

void ss_dense_dots_f64(const double *base, int64_t stride, int64_t d, const int64_t *rows,
                       int64_t first, int64_t len, const double *z, double *out)
{
  dense_dots_f64(base, stride, d, rows, first, len, z, out);
}
#else
void ss_dense_dots_f64(const double *base, int64_t stride, int64_t d, const int64_t *rows,
                       int64_t first, int64_t len, const double *z, double *out)
{
  for (int64_t k = 0; k < len; ++k) {
    out[k] = ss_dense_dot_f64(base + (rows ? rows[k] : first + k) * stride, d, z);
  }
}
#endif

/* test_dense_dots.c -- the dot products of many dense float64 rows with one
 * vector (common/dense_dots.c): each value is ss_dense_dot_f64's, bit for
 * bit, and close to the exact dot (a long double sum), for every dimension
 * 1..70 (every tail d mod 4), strides longer than d, consecutive rows from
 * any first row and listed rows, any count (every remainder mod 4); the
 * kernel rows built on them are the same on 1 and 2 threads. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/common/dense_dots.h"
#include "../../src/core/common/row_kernels.h"
#include "../../src/core/kernel/kernel_internal.h"
#include "minitest.h"
#include "testutil.h"

/* DD_N rows of up to DD_MAX_D values at strides up to DD_MAX_STRIDE */
enum { DD_N = 23, DD_MAX_D = 70, DD_MAX_STRIDE = DD_MAX_D + 3 };

/* <x, z> summed in long double, and sum |x_c z_c| (for the bound). */
static long double exact_dot(const double *x, const double *z, int64_t d, double *abs_sum)
{
  long double s = 0;
  double a = 0;
  for (int64_t c = 0; c < d; ++c) {
    s += (long double)x[c] * z[c];
    a += fabs(x[c] * z[c]);
  }
  *abs_sum = a;
  return s;
}

void test_dense_dots_match_reference(void)
{
  static double X[DD_N * DD_MAX_STRIDE], z[DD_MAX_D], out[DD_N];
  static int64_t list[DD_N];
  TuRng rng;
  tu_rng_init(&rng, 2026);
  /* values of mixed signs and sizes (cancellation), z too */
  for (int64_t k = 0; k < DD_N * DD_MAX_STRIDE; ++k) {
    X[k] = (tu_rng_uniform(&rng) - 0.5) * pow(2.0, floor(tu_rng_uniform(&rng) * 12) - 6);
  }
  for (int64_t c = 0; c < DD_MAX_D; ++c) z[c] = tu_rng_uniform(&rng) * 4 - 2;
  for (int64_t k = 0; k < DD_N; ++k) list[k] = (k * 7 + 3) % DD_N; /* a permutation */
  list[5] = list[6];                                             /* and a repeat */
  int checked = 0;
  for (int64_t d = 1; d <= DD_MAX_D; ++d) {
    const int64_t strides[3] = {d, d + 1, d + 3};
    for (int s = 0; s < 3; ++s) {
      const int64_t stride = strides[s];
      for (int listed = 0; listed < 2; ++listed) {
        const int64_t *rows = listed ? list : NULL;
        for (int64_t first = 0; first < (listed ? 1 : 3); ++first) {
          /* counts from 0 to the rows left, every remainder mod 4 */
          for (int64_t len = 0; first + len <= DD_N; len += 1 + len / 8) {
            for (int64_t k = 0; k < DD_N; ++k) out[k] = -7.0;
            ss_dense_dots_f64(X, stride, d, rows, first, len, z, out);
            for (int64_t k = 0; k < len; ++k) {
              const int64_t r = rows ? rows[k] : first + k;
              const double *x = X + r * stride;
              double abs_sum;
              const long double exact = exact_dot(x, z, d, &abs_sum);
              /* the contract: ss_dense_dot_f64's bits */
              const double want = ss_dense_dot_f64(x, d, z);
              CHECK(memcmp(&out[k], &want, sizeof want) == 0);
              /* and a dot: a lane adds at most d/4 + 1 rounded products,
               * two more additions join the lanes */
              const double bound = ((double)d / 4 + 4) * DBL_EPSILON / 2 * abs_sum;
              CHECK(fabs((double)((long double)out[k] - exact)) <= bound);
              ++checked;
            }
            for (int64_t k = len; k < DD_N; ++k) CHECK(out[k] == -7.0); /* nothing past len */
          }
        }
      }
    }
  }
  CHECK(checked > 10000);
}

/* Dense float64 kernel rows (rbf, polynomial, linear) with a stride longer
 * than d, over all rows and over a list, on 1 and 2 threads (the pool
 * forced to split every row): the same bits, each value the kernel of
 * ss_dense_dot_f64's dot. */
void test_dense_dots_rows_threads(void)
{
  enum { N = 1203, D = 37, STRIDE = 41 };
  static double X[N * STRIDE], norms2[N], zd[D], want[N], got[N];
  static int64_t list[N];
  TuRng rng;
  tu_rng_init(&rng, 77);
  for (int64_t k = 0; k < N * STRIDE; ++k) X[k] = tu_rng_uniform(&rng) * 2 - 1;
  for (int64_t k = 0; k < N; ++k) list[k] = (k * 389) % N;
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, N, D, STRIDE) == SS_OK);
  for (int64_t i = 0; i < N; ++i) norms2[i] = ss_data_row_squared_norm(&data, i);
  const int64_t q = 101;
  ss_data_scatter_row(&data, q, zd);
  SsThreads two = {0};
  REQUIRE(ss_threads_set_count(&two, 2) == SS_OK);
  two.min_length = 16;
  ss_thread_pool_set_adaptive(two.pool, false); /* the workers take part in every row */
  const SsThreads one = {.count = 1};
  const SsKernelType types[3] = {SS_KERNEL_RBF, SS_KERNEL_POLYNOMIAL, SS_KERNEL_LINEAR};
  for (int t = 0; t < 3; ++t) {
    SsKernel kernel;
    REQUIRE(ss_kernel_init(&kernel, types[t], 0.2, 1.0, 3) == SS_OK);
    for (int listed = 0; listed < 2; ++listed) {
      const int64_t *rows = listed ? list : NULL;
      ss_kernel_row_threads(&kernel, &data, norms2, rows, N, zd, norms2[q], 0, want, one);
      for (int64_t k = 0; k < N; ++k) {
        const int64_t r = rows ? rows[k] : k;
        const double dot = ss_dense_dot_f64(X + r * STRIDE, D, zd);
        const double value = ss_kernel_value(&kernel, dot, norms2[q], norms2[r]);
        CHECK(memcmp(&want[k], &value, sizeof value) == 0);
      }
      for (int repeat = 0; repeat < 3; ++repeat) {
        ss_kernel_row_threads(&kernel, &data, norms2, rows, N, zd, norms2[q], 0, got, two);
        CHECK(tu_same_bits(got, want, N));
      }
    }
  }
  ss_threads_free(&two);
}

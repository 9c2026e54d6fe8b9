/* test_sbp_sort.c -- the sort behind the SBP's two levels with the bias
 * (sbp_gamma.c, sort_heights), and the windowed search's two classes on a
 * pool's threads.
 *
 * The sort must give qsort's order for any finite heights: spread, tied,
 * clustered within a few ulps, spanning more than the largest double (the
 * bucket map's scale overflows), signed zeros; at the lengths where its
 * paths change (insertion, buckets, the bucket cap, the crowded buckets'
 * recursion). The windowed search must give the same bits with and without
 * a pool, and the levels of a sorting reference. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "testutil.h"
#include "../../src/core/common/thread_pool.h"
#include "../../src/core/kernel/kernel_internal.h"

/* Heights of kind @p kind into h[0, n). */
static void make_heights(TuRng *rng, double *h, int64_t n, int kind)
{
  for (int64_t i = 0; i < n; ++i) {
    const double u = tu_rng_uniform(rng);
    switch (kind) {
    case 0: h[i] = 4 * u - 2; break;                              /* spread */
    case 1: h[i] = floor(u * 5) - 2; break;                       /* five values, many ties */
    case 2: h[i] = u < 0.9 ? 1.0 + floor(u * 40) * DBL_EPSILON : 3 * u; break; /* a cluster of ulps */
    case 3: h[i] = (u < 0.5 ? -1 : 1) * DBL_MAX * (0.5 + u / 2); break;       /* span overflows */
    case 4: h[i] = u < 0.3 ? 0.0 : (u < 0.6 ? -0.0 : u - 0.8); break;         /* signed zeros */
    case 5: h[i] = exp(40 * u - 20); break;                       /* magnitudes 1e-9 .. 5e8 */
    default: h[i] = u < 0.99 ? 0.5 : u; break;                    /* one crowded bucket */
    }
  }
}

void test_sbp_sort_heights_matches_qsort(void)
{
  enum { LONGEST = 9000 };
  static double h[LONGEST], ref[LONGEST], scratch[LONGEST];
  const int64_t lengths[] = {0, 1, 2, 31, 32, 33, 64, 100, 720, 2047, 2048, 2049, 5000, LONGEST};
  TuRng rng;
  tu_rng_init(&rng, 71);
  int64_t mismatches = 0, trials = 0;
  for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; ++l) {
    for (int kind = 0; kind < 7; ++kind) {
      const int64_t n = lengths[l];
      make_heights(&rng, h, n, kind);
      memcpy(ref, h, (size_t)n * sizeof(double));
      qsort(ref, (size_t)n, sizeof(double), ss_compare_doubles);
      REQUIRE(ss_sbp_sort_heights(h, n, scratch));
      for (int64_t i = 0; i < n; ++i) mismatches += !(h[i] == ref[i]); /* +0 == -0 */
      ++trials;
    }
  }
  CHECK_EQ_INT(mismatches, 0);
  CHECK_EQ_INT(trials, 14 * 7);
  CHECK(!ss_sbp_sort_heights(NULL, 3, scratch));
  CHECK(!ss_sbp_sort_heights(h, -1, scratch));
  CHECK(ss_sbp_sort_heights(NULL, 0, NULL));
}

void test_sbp_two_levels_window_pool_matches_serial(void)
{
  enum { N = 6000 };
  static double c[N], y[N], h[2][N], scratch[2][N];
  SsThreadPool *pool = NULL;
  REQUIRE(ss_thread_pool_new(2, &pool) == SS_OK);
  ss_thread_pool_set_adaptive(pool, false); /* every job offered to the worker */
  TuRng rng;
  tu_rng_init(&rng, 72);
  int accepted = 0, differ = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t n = 600 + (int64_t)(tu_rng_uniform(&rng) * (N - 600));
    const double positives = 0.1 + 0.8 * tu_rng_uniform(&rng);
    for (int64_t i = 0; i < n; ++i) {
      y[i] = tu_rng_uniform(&rng) < positives ? 1.0 : -1.0;
      c[i] = trial % 3 == 1 ? floor(tu_rng_uniform(&rng) * 30) / 7 : 3 * tu_rng_uniform(&rng) - 1;
    }
    y[0] = 1.0;
    y[n - 1] = -1.0;
    const double volume = (double)n * (0.002 + 0.3 * tu_rng_uniform(&rng));
    double gamma, bias;
    int64_t ref_k;
    tu_sbp_reference_levels(y, c, n, volume, &gamma, &bias, &ref_k);
    const double ref_u = gamma - bias, ref_v = gamma + bias;
    /* windows: each class's heights within +-width of the reference floor's
     * neighbourhood, the rest below (count, sum) or above (lowest) */
    const double width = 0.2 + tu_rng_uniform(&rng);
    SsSbpLevels got[2];
    bool ok[2];
    for (int run = 0; run < 2; ++run) {
      int64_t len[2] = {0, 0}, below[2] = {0, 0};
      double sum[2] = {0, 0}, above[2] = {INFINITY, INFINITY};
      const double centre[2] = {ref_u, ref_v};
      for (int64_t i = 0; i < n; ++i) {
        const int cl = y[i] < 0;
        if (c[i] < centre[cl] - width) {
          below[cl]++;
          sum[cl] += c[i];
        } else if (c[i] < centre[cl] + width) {
          h[cl][len[cl]++] = c[i];
        } else if (c[i] < above[cl]) {
          above[cl] = c[i];
        }
      }
      ok[run] = ss_sbp_two_levels_window(h[0], len[0], below[0], sum[0], above[0], h[1], len[1],
                                         below[1], sum[1], above[1], volume, run ? pool : NULL,
                                         scratch[0], &got[run]);
    }
    CHECK(ok[0] == ok[1]);
    if (!ok[0] || !ok[1]) continue;
    ++accepted;
    differ += memcmp(&got[0], &got[1], sizeof got[0]) != 0;
    CHECK_EQ_INT(got[0].covered, ref_k);
    CHECK_CLOSE(got[0].u, ref_u, 1e-9 * (1 + fabs(ref_u)));
    CHECK_CLOSE(got[0].v, ref_v, 1e-9 * (1 + fabs(ref_v)));
  }
  CHECK_EQ_INT(differ, 0);
  CHECK(accepted > 150);
  ss_thread_pool_delete(pool);
}

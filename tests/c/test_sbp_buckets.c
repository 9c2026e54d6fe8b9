/* test_sbp_buckets.c -- the SBP's window cut into buckets (sbp_buckets.h):
 * a height's bucket is the count of boundaries at or below it, on windows
 * of every width (even ones, ones at the edge of the 64-ulp rule, too
 * narrow, empty, reversed, infinite) and on the boundaries themselves; a
 * block's sort is stable with the running counts and sums of a plain
 * count; and the SBP with many tied responses (repeated rows) takes its
 * levels from the buckets, to the iterates of the filling of all of c, the
 * same on one and two threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"
#include "../../src/core/common/thread_pool.h"
#include "../../src/core/kernel/kernel_internal.h"
#include "../../src/core/kernel/sbp_buckets.h"

/* #{j in 1..H-1 : t_j <= x}, by counting. */
static int counted_bucket(const SsSbpBuckets *bk, double x)
{
  int h = 0;
  for (int j = 1; j < SS_SBP_BUCKETS; ++j) h += bk->t[j] <= x;
  return h;
}

static uint64_t next_state(uint64_t *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state >> 11;
}

/* A height of [low, high): uniform, a boundary, or a neighbour of one. */
static double height_in(const SsSbpBuckets *bk, double low, double high, uint64_t *state)
{
  const double u = (double)next_state(state) / 9007199254740992.0;
  const int j = (int)(next_state(state) % (SS_SBP_BUCKETS + 1));
  double x;
  switch (next_state(state) % 4) {
  case 0: x = low + u * (high - low); break;
  case 1: x = bk->t[j]; break;
  case 2: x = nextafter(bk->t[j], -INFINITY); break;
  default: x = nextafter(bk->t[j], INFINITY); break;
  }
  return x >= low && x < high ? x : low;
}

void test_sbp_bucket_of_counts_boundaries(void)
{
  /* (centre, half width): widths of many ulps, of about 64 ulps of the
   * ends (the edge of equal widths), of a few, and none */
  const double eps = 2.220446049250313e-16;
  const double windows[][2] = {
    {0.0, 1.0},       {0.37, 1e-3},      {-5.0, 0.25},       {1e6, 1e-3},
    {1e6, 1e6 * 64 * eps * SS_SBP_BUCKETS / 2 * 1.01},
    {1e6, 1e6 * 64 * eps * SS_SBP_BUCKETS / 2 * 0.99},
    {-3.0, 3.0 * 64 * eps * SS_SBP_BUCKETS / 2 * 1.5},
    {1.0, 4 * eps},   {1e300, 1e299},    {0.0, 1e-300},      {2.5, 0.0},
  };
  uint64_t state = 99;
  for (size_t w = 0; w < sizeof windows / sizeof windows[0]; ++w) {
    const double low = windows[w][0] - windows[w][1], high = windows[w][0] + windows[w][1];
    SsSbpBuckets bk;
    ss_sbp_buckets_cut(&bk, low, high);
    CHECK(bk.t[0] == low && bk.t[SS_SBP_BUCKETS] == high);
    for (int h = 1; h < SS_SBP_BUCKETS; ++h) CHECK(bk.t[h] >= bk.t[h - 1]);
    int wrong = 0;
    for (int k = 0; k < 20000 && low < high; ++k) {
      const double x = height_in(&bk, low, high, &state);
      wrong += ss_sbp_bucket_of(&bk, x) != counted_bucket(&bk, x);
    }
    CHECK_EQ_INT(wrong, 0);
  }
  /* the windows wide enough have equal buckets; the narrow ones, one */
  SsSbpBuckets bk;
  ss_sbp_buckets_cut(&bk, -1.0, 1.0);
  CHECK(bk.scale > 0 && bk.t[SS_SBP_BUCKETS / 2] == 0.0);
  ss_sbp_buckets_cut(&bk, 1.0 - 4 * eps, 1.0 + 4 * eps);
  CHECK(bk.scale == 0 && isinf(bk.t[1]));
  const double bad[][2] = {{1.0, 1.0}, {2.0, 1.0}, {-INFINITY, 0.0}, {0.0, INFINITY}, {NAN, 1.0}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    ss_sbp_buckets_cut(&bk, bad[k][0], bad[k][1]);
    CHECK(bk.scale == 0 && isinf(bk.t[1]) && isinf(bk.t[SS_SBP_BUCKETS - 1]));
  }
}

void test_sbp_buckets_sort_is_stable_with_running_sums(void)
{
  enum { M = 256 };
  double found[M], window[M], sum[SS_SBP_BUCKETS + 1];
  int64_t count[SS_SBP_BUCKETS + 1];
  uint64_t state = 5;
  for (int trial = 0; trial < 200; ++trial) {
    const double low = trial % 3 == 0 ? -2.0 : 0.5, high = trial % 5 == 0 ? low + 1e-9 : 3.0;
    SsSbpBuckets bk;
    ss_sbp_buckets_cut(&bk, low, high);
    const int64_t m = trial % 7 == 0 ? trial % 3 : (int64_t)(next_state(&state) % (M + 1));
    for (int64_t k = 0; k < m; ++k) {
      found[k] = height_in(&bk, low, high, &state);
      if (trial % 2 && k > 0 && next_state(&state) % 3 == 0) found[k] = found[k - 1]; /* ties */
    }
    ss_sbp_buckets_sort(&bk, found, m, window, count, sum);
    /* bucket by bucket, each in index order: the stable order and the sums */
    int64_t at = 0;
    int misplaced = 0;
    CHECK(count[0] == 0 && sum[0] == 0.0);
    for (int h = 0; h < SS_SBP_BUCKETS; ++h) {
      double part = 0.0;
      for (int64_t k = 0; k < m; ++k) {
        if (counted_bucket(&bk, found[k]) != h) continue;
        misplaced += memcmp(&window[at++], &found[k], sizeof(double)) != 0;
        part += found[k];
      }
      CHECK_EQ_INT(count[h + 1], at);
      CHECK(sum[h + 1] == sum[h] + part);
    }
    CHECK_EQ_INT(at, m);
    CHECK_EQ_INT(misplaced, 0);
  }
}

/* Many responses tied (each row eight times): the levels from the buckets
 * in most iterations, the iterates of the filling of all of c to rounding,
 * and those of two threads to the bit. */
void test_sbp_buckets_with_ties_match_full_filling(void)
{
  enum { DISTINCT = 500, COPIES = 8, N = DISTINCT * COPIES, D = 3, T = 600, RUNS = 3 };
  double *base = malloc(sizeof(double) * DISTINCT * D), *yb = malloc(sizeof(double) * DISTINCT);
  double *X = malloc(sizeof(double) * N * D), *y = malloc(sizeof(double) * N);
  REQUIRE(base && yb && X && y);
  tu_make_blobs(base, yb, DISTINCT, D, 0.3, 11);
  for (int64_t i = 0; i < N; ++i) {
    memcpy(X + i * D, base + (i % DISTINCT) * D, sizeof(double) * D);
    y[i] = yb[i % DISTINCT];
  }
  SsData data;
  SsKernel kernel;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, N, D, D) == SS_OK);
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  SsKernelSvm *svm[RUNS]; /* buckets, one thread; the whole basin; buckets, two threads */
  for (int run = 0; run < RUNS; ++run) {
    svm[run] = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, 1e-3);
    REQUIRE(svm[run]);
    CHECK_EQ_INT(ss_kernel_svm_set_nu(svm[run], 0.05), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_seed(svm[run], 7), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm[run], T), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm[run], T), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm[run], 1e-300), SS_OK);
    if (run == 2) {
      CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm[run], 2), SS_OK);
      svm[run]->threads.min_length = 16;
      ss_thread_pool_set_adaptive(svm[run]->threads.pool, false);
    }
    svm[run]->sbp_full_levels = run == 1;
    CHECK_EQ_INT(ss_kernel_svm_train(svm[run]), SS_OK);
  }
  CHECK(svm[0]->sbp_pass_levels >= T * 8 / 10);
  CHECK(tu_same_kernel_run(svm[0], svm[2], N));
  const double *a = ss_kernel_svm_get_dual_variables(svm[0]);
  const double *b = ss_kernel_svm_get_dual_variables(svm[1]);
  double scale = 0, diff = 0;
  for (int64_t i = 0; i < N; ++i) {
    scale = fmax(scale, fabs(b[i]));
    diff = fmax(diff, fabs(a[i] - b[i]));
  }
  CHECK(scale > 0);
  CHECK(diff <= 1e-12 * scale);
  for (int run = 0; run < RUNS; ++run) ss_kernel_svm_delete(svm[run]);
  free(base), free(yb), free(X), free(y);
}

/* test_sbp_rescan.c -- the SBP's level when it falls outside the window of
 * the row pass (sbp.c, level_rescanned): c scanned again with a wider
 * window, the blocks on the object's threads; with the bias, the classes'
 * windows around the floors, scanned in the row pass, widened and scanned
 * again. The same iterates as the filling of the whole basin every
 * iteration (to rounding: the lower sets are summed by blocks), bit for bit
 * the same on one, two and three threads, the levels mostly from the row
 * pass's scan and the whole basin rarely filled.
 * The filling from a guess of the level (sbp_gamma.c,
 * ss_sbp_water_level_near): the level of the filling without one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"
#include "../../src/core/common/thread_pool.h"
#include "../../src/core/kernel/kernel_internal.h"

enum { RN = 6000, RD = 4, RUNS = 4, RITERATIONS = 1000 };

/* run 0: windows, one thread; 1: windows, two threads (every job of two
 * blocks or more offered to the worker); 2: the whole basin every time;
 * 3: windows, three threads. bias: the SBP with the unregularized bias (its
 * windows around the floors scanned in the row pass, widened and scanned
 * again on a miss, sbp_steps). */
static SsKernelSvm *rescan_run(const SsKernel *kernel, const SsData *data, const double *y,
                               int run, bool bias)
{
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SBP, kernel, data, y, 1e-4);
  if (!svm) return NULL;
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, bias), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_nu(svm, 0.05), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_seed(svm, 3), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, RITERATIONS), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm, RITERATIONS), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm, 1e-300), SS_OK);
  if (run == 1 || run == 3) {
    CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, run == 1 ? 2 : 3), SS_OK);
    svm->threads.min_length = 16;
    ss_thread_pool_set_adaptive(svm->threads.pool, false);
  }
  svm->sbp_full_levels = run == 2;
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  return svm;
}

static void check_rescan_matches_full_filling(bool bias)
{
  double *X = malloc(sizeof(double) * RN * RD), *y = malloc(sizeof(double) * RN);
  REQUIRE(X && y);
  tu_make_blobs(X, y, RN, RD, 0.4, 17);
  SsData data;
  SsKernel kernel;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, RN, RD, RD) == SS_OK);
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  SsKernelSvm *svm[RUNS];
  for (int run = 0; run < RUNS; ++run) {
    svm[run] = rescan_run(&kernel, &data, y, run, bias);
    REQUIRE(svm[run]);
  }
  CHECK(tu_same_kernel_run(svm[0], svm[1], RN));
  CHECK(tu_same_kernel_run(svm[0], svm[3], RN));
  /* the levels came from the row pass's own scan in most iterations (the
   * rest: rescans and fillings of the whole basin), on any thread count */
  CHECK(svm[0]->sbp_pass_levels >= RITERATIONS * 8 / 10);
  CHECK_EQ_INT(svm[1]->sbp_pass_levels, svm[0]->sbp_pass_levels);
  CHECK_EQ_INT(svm[3]->sbp_pass_levels, svm[0]->sbp_pass_levels);
  CHECK_EQ_INT(svm[2]->sbp_pass_levels, 0);
  /* the whole basin filled only where no rescan held the level: the first
   * iteration here (without the bias too); one rescan instead of
   * SS_SBP_RESCANS with the bias filled 13 times */
  CHECK(svm[0]->sbp_filled_levels <= RITERATIONS / 200);
  CHECK_EQ_INT(svm[1]->sbp_filled_levels, svm[0]->sbp_filled_levels);
  CHECK_EQ_INT(svm[3]->sbp_filled_levels, svm[0]->sbp_filled_levels);
  CHECK_EQ_INT(svm[2]->sbp_filled_levels, RITERATIONS);
  const double *a = ss_kernel_svm_get_dual_variables(svm[0]);
  const double *b = ss_kernel_svm_get_dual_variables(svm[2]);
  double scale = 0, diff = 0;
  int64_t support = 0;
  for (int64_t i = 0; i < RN; ++i) {
    scale = fmax(scale, fabs(b[i]));
    diff = fmax(diff, fabs(a[i] - b[i]));
    support += a[i] != 0;
  }
  CHECK(support > 100);
  CHECK(diff <= 1e-12 * scale);
  for (int run = 0; run < RUNS; ++run) ss_kernel_svm_delete(svm[run]);
  free(X), free(y);
}

void test_sbp_rescan_matches_full_filling(void)
{
  check_rescan_matches_full_filling(false);
}

void test_sbp_bias_rescan_matches_full_filling(void)
{
  check_rescan_matches_full_filling(true);
}

/* The level of heights (with a lower set) from guesses below, at and above
 * it, near and far, not finite, and on an element; with ties; and on fewer
 * heights than the bracket is tried for: the filling's without a guess, to
 * rounding. */
void test_sbp_water_level_near_matches(void)
{
  enum { M = 5000 };
  double *h = malloc(sizeof(double) * M), *a = malloc(sizeof(double) * M);
  REQUIRE(h && a);
  uint64_t state = 12345;
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t m = trial % 5 == 4 ? 40 : M - 97 * trial;
    for (int64_t k = 0; k < m; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const double u = (double)(state >> 11) / 9007199254740992.0;
      h[k] = trial % 3 == 0 ? floor(20 * u) / 4 : 3 * u - 1; /* ties, or none */
    }
    const int64_t count = trial % 2 ? 0 : 30;
    const double sum = count ? -2.5 * (double)count : 0.0; /* below every height */
    const double volume = 0.05 * (double)m * (1 + trial % 4);
    memcpy(a, h, sizeof(double) * (size_t)m);
    const double level = ss_sbp_water_level_from(a, m, volume, count, sum);
    const double guesses[] = {level, level - 1e-3, level + 1e-3, level - 0.3, level + 0.3,
                              level - 50, level + 50, h[m / 2], NAN, INFINITY};
    for (size_t g = 0; g < sizeof guesses / sizeof guesses[0]; ++g) {
      memcpy(a, h, sizeof(double) * (size_t)m);
      const double near = ss_sbp_water_level_near(a, m, volume, count, sum, guesses[g]);
      if (!(fabs(near - level) <= 1e-12 * fmax(1.0, fabs(level)))) {
        CHECK_CLOSE(near, level, 1e-12 * fmax(1.0, fabs(level)));
        break;
      }
    }
  }
  free(h), free(a);
}

/* The row pass's window scan (sbp.c, four responses a step, the last one
 * to three as a step of four) against its scalar two-lane loop, to the
 * bit: every length to 41 (each tail), with and without classes, heights
 * that tie the bounds, signed zeros and infinities. */
void test_sbp_window_scan_matches_scalar(void)
{
  enum { M = 41 };
  const double pool[] = {-2.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, INFINITY, -INFINITY,
                         0.1, 0.3, 0.7, -0.3, 1e-300, 3.0};
  const int pool_size = (int)(sizeof pool / sizeof pool[0]);
  uint64_t state = 12345;
  int64_t mismatches = 0, checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    double c[M], y[M], window[2][M];
    for (int k = 0; k < M; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      /* half the heights from the pool (ties), half uniform in [-2, 2) */
      c[k] = (state >> 63) ? pool[(state >> 33) % (uint64_t)pool_size]
                           : (double)((state >> 11) & ((1ULL << 40) - 1)) * 0x1p-38 - 2.0;
      y[k] = (state >> 20) & 1 ? 1.0 : -1.0;
    }
    for (int64_t m = 0; m <= M; ++m) {
      for (int classes = 0; classes < 2; ++classes) {
        int64_t counts[2][2];
        double values[2][2];
        for (int ref = 0; ref < 2; ++ref) {
          ss_sbp_window_scan(c, classes ? y : NULL, -1.0, m, -0.0, 0.5, ref == 1, window[ref],
                             counts[ref], values[ref]);
        }
        ++checked;
        mismatches += counts[0][0] != counts[1][0] || counts[0][1] != counts[1][1] ||
                      memcmp(values[0], values[1], sizeof values[0]) != 0 ||
                      memcmp(window[0], window[1], (size_t)counts[0][1] * sizeof(double)) != 0;
      }
    }
  }
  CHECK(checked == 300 * (M + 1) * 2);
  CHECK_EQ_INT(mismatches, 0);
}

/* Heights for the passes' tests: half from POOL (ties, signed zeros,
 * infinities, NaN), half uniform in [-2, 2); returns a pivot, drawn from
 * the heights every third trial, else from the pool. */
static const double POOL[] = {-2.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, INFINITY, -INFINITY,
                              NAN, 0.3, 1e-300, 3.0};
enum { POOL_SIZE = sizeof POOL / sizeof POOL[0], PASS_M = 41 };

static double pass_heights(double h[PASS_M], int trial, uint64_t *state)
{
  for (int k = 0; k < PASS_M; ++k) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    h[k] = (*state >> 63) ? POOL[(*state >> 33) % POOL_SIZE]
                          : (double)((*state >> 11) & ((1ULL << 40) - 1)) * 0x1p-38 - 2.0;
  }
  return trial % 3 == 0 ? h[trial % PASS_M] : POOL[trial % POOL_SIZE];
}

/* The level searches' passes (sbp_gamma.c): the sizes at a pivot (eight
 * fixed summation lanes), the compaction to the heights strictly between
 * two bounds, and the bias search's three-way partition around a pivot
 * (select_rank), on every path this build and CPU have (the
 * vector-extension sizes; the AVX2 sizes, compaction and partition)
 * against the scalar definitions, to the bit: every length to 41 (each tail
 * of the groups of eight and four, and the ends of the partition's parts,
 * where a step's heights are stored one by one), pivots drawn from the
 * heights and from a pool with ties, signed zeros (equal to each other:
 * the partition must keep their order), infinities and NaN. A sum must be
 * the same bits (a NaN one: NaN). */
void test_sbp_level_passes_match_scalar(void)
{
  enum { M = PASS_M };
  uint64_t state = 7;
  int64_t mismatches = 0, compared = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    double h[M];
    const double pivot = pass_heights(h, trial, &state);
    const double hi = trial % 11 == 0 ? INFINITY : POOL[(trial / POOL_SIZE) % POOL_SIZE];
    for (int64_t m = 0; m <= M; ++m) {
      for (int keep = 0; keep < 2; ++keep) {
        double ref[M], a[M], ref_sum = 0, sum = 0;
        int64_t ref_counts[2] = {0, 0}, counts[2] = {0, 0};
        memcpy(ref, h, sizeof h);
        REQUIRE(ss_sbp_level_pass(0, keep, ref, m, pivot, hi, ref_counts, &ref_sum));
        for (int path = 1; path <= 2; ++path) {
          memcpy(a, h, sizeof h);
          if (!ss_sbp_level_pass(path, keep, a, m, pivot, hi, counts, &sum)) continue;
          ++compared;
          if (keep) {
            mismatches += counts[0] != ref_counts[0] ||
                          memcmp(a, ref, (size_t)ref_counts[0] * sizeof(double)) != 0;
          } else {
            /* a NaN height makes the sum NaN on every path, its sign
             * bit not always the same */
            const bool same_sum = isnan(ref_sum) ? isnan(sum)
                                                 : memcmp(&sum, &ref_sum, sizeof sum) == 0;
            mismatches += counts[0] != ref_counts[0] || counts[1] != ref_counts[1] || !same_sum;
          }
        }
      }
      double ref[M], out[M];
      int64_t ref_counts[2], counts[2];
      REQUIRE(ss_sbp_partition_pass(0, h, m, pivot, ref, ref_counts));
      if (!ss_sbp_partition_pass(2, h, m, pivot, out, counts)) continue;
      ++compared;
      mismatches += counts[0] != ref_counts[0] || counts[1] != ref_counts[1] ||
                    memcmp(out, ref, (size_t)m * sizeof(double)) != 0;
    }
  }
  CHECK_EQ_INT(mismatches, 0);
#if defined(__GNUC__)
  CHECK(compared >= 3000 * (M + 1)); /* at least the vector-extension sizes ran */
#endif
}

static int by_value(const void *x, const void *y)
{
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The sampled pivots' rank (sbp_gamma.c, sample_of_rank): the value a sort
 * puts at each rank of 64 samples, with ties, signed zeros and infinities
 * (no NaN: the windows' heights are finite), for every rank. */
void test_sbp_sample_of_rank_matches_sorting(void)
{
  enum { S = 64 };
  uint64_t state = 11;
  int64_t mismatches = 0;
  for (int trial = 0; trial < 400; ++trial) {
    double s[S], sorted[S];
    for (int k = 0; k < S; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const double v = POOL[(state >> 33) % POOL_SIZE];
      s[k] = trial % 4 == 0 ? (double)((state >> 40) % 5) /* many ties */
             : (state >> 63) && !isnan(v) ? v
                                          : (double)((state >> 11) & ((1ULL << 40) - 1)) * 0x1p-38 - 2.0;
    }
    memcpy(sorted, s, sizeof s);
    qsort(sorted, S, sizeof(double), by_value);
    for (int at = 0; at < S; ++at) mismatches += ss_sbp_sample_of_rank(s, S, at) != sorted[at];
  }
  CHECK_EQ_INT(mismatches, 0);
  double s[S] = {0};
  CHECK(isnan(ss_sbp_sample_of_rank(s, S - 1, 0)));
  CHECK(isnan(ss_sbp_sample_of_rank(s, S, S)));
}

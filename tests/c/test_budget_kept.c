/* test_budget_kept.c -- a step's score keeps its row's Gaussian values with
 * the terms (ss_budget_score_row_kept) and the merge that follows the row's
 * append takes them instead of computing them again (budget.h,
 * SsBudgetKeptRow). The merges and the scores must be those of an expansion
 * that keeps nothing, bit for bit, in every layout and on two threads; and
 * the values are offered only while they describe the terms. */
#include <string.h>

#include "../../src/core/budget/budget.h"
#include "minitest.h"
#include "testutil.h"

#define KN 600
#define KD 7
#define KB 150 /* above SS_BUDGET_BLOCK: the screen has two blocks */

/* KN rows of KD features, a third of them 0, as dense and CSR float64; an
 * odd row is its even predecessor's near twin (the same zeros, each value
 * moved by at most 0.05). */
typedef struct KeptData {
  double X[KN * KD], Xcsr[KN * KD], norms2[KN];
  int64_t indptr[KN + 1];
  int32_t indices[KN * KD];
  SsData dense, csr;
} KeptData;

static void kept_data(KeptData *kd, uint64_t seed)
{
  TuRng rng;
  tu_rng_init(&rng, seed);
  int64_t nnz = 0;
  kd->indptr[0] = 0;
  for (int i = 0; i < KN; ++i) {
    kd->norms2[i] = 0;
    for (int k = 0; k < KD; ++k) {
      const double fresh = tu_rng_uniform(&rng) < 1.0 / 3 ? 0.0 : 2 * tu_rng_uniform(&rng) - 1;
      const double move = 0.05 * (2 * tu_rng_uniform(&rng) - 1);
      double v = fresh;
      if (i % 2 == 1) v = kd->X[(i - 1) * KD + k] == 0 ? 0.0 : kd->X[(i - 1) * KD + k] + move;
      kd->X[i * KD + k] = v;
      kd->norms2[i] += v * v;
      if (v != 0) {
        kd->Xcsr[nnz] = v;
        kd->indices[nnz++] = k;
      }
    }
    kd->indptr[i + 1] = nnz;
  }
  REQUIRE(ss_data_init_dense(&kd->dense, SS_DTYPE_FLOAT64, kd->X, KN, KD, KD) == SS_OK);
  REQUIRE(ss_data_init_csr(&kd->csr, SS_DTYPE_FLOAT64, kd->Xcsr, kd->indptr, kd->indices, KN, KD) ==
          SS_OK);
}

/* c phi(x_row) added to an expansion as BSCA adds it: to the row's own term
 * when present, else appended. True when appended. */
static bool add_term(SsBudget *bud, const SsData *data, const double *norms2, int64_t row, double c)
{
  const int64_t slot = bud->slot_of[row];
  if (slot < 0) {
    ss_budget_append_row(bud, data, row, norms2[row], c, row);
    return true;
  }
  bud->beta[slot] += c;
  if (bud->beta[slot] == 0) ss_budget_remove_term(bud, slot);
  return false;
}

/* Two expansions step by step, as BSCA with the bias steps: score row i and
 * a second row, then add row i's term and maintain, then (every other step:
 * i's near twin) the second row's and maintain again. The first expansion
 * keeps its scores' values, the second does not. Every few steps a
 * coefficient changes, a term is removed between the scores and the
 * appends, or a third row is scored in between. Scores, terms and counts
 * must agree bit for bit, and most merges must have taken the kept values:
 * a fresh row's, and the twin's with the one value that the first merge
 * made stale computed again (the twin's best partner is often the point
 * that absorbed row i, so a stale value would change the merge). */
static void run_pair(const SsData *data, const double *norms2, int threads)
{
  const SsBudgetKernel kernel = {SS_BUDGET_KERNEL_GAUSSIAN, 0.4, 0, 0};
  SsBudget bud[2];
  SsBudgetCounts counts[2] = {{0}, {0}};
  for (int k = 0; k < 2; ++k) REQUIRE(ss_budget_init(&bud[k], KB, KD, KN) == SS_OK);
  if (threads > 1) {
    REQUIRE(ss_threads_set_count(&bud[0].threads, threads) == SS_OK);
    bud[0].threads.min_length = 16; /* every loop over the terms split */
    ss_thread_pool_set_adaptive(bud[0].threads.pool, false);
  }
  TuRng rng;
  tu_rng_init(&rng, 5);
  int reused = 0, reused_stale = 0, merges_expected_fresh = 0;
  int64_t stale;
  for (int t = 0; t < KN; ++t) {
    const int64_t i = t, other = t % 2 == 0 ? t + 1 : (t * 7 + 3) % KN;
    const double beta = (tu_rng_uniform(&rng) < 0.5 ? -1.0 : 1.0) * (0.05 + tu_rng_uniform(&rng));
    const double f0 = ss_budget_score_row_kept(&bud[0], &kernel, data, i, norms2[i]);
    const double f1 = ss_budget_score_row(&bud[1], &kernel, data, i, norms2[i]);
    CHECK(tu_same_bits(&f0, &f1, 1));
    const double g0 = ss_budget_score_row_kept(&bud[0], &kernel, data, other, norms2[other]);
    const double g1 = ss_budget_score_row(&bud[1], &kernel, data, other, norms2[other]);
    CHECK(tu_same_bits(&g0, &g1, 1));
    bool removed = false, evicted = false; /* a change between the scores and the appends */
    if (t % 11 == 5 && bud[0].size > 2) {
      const int64_t j = (int64_t)(tu_rng_uniform(&rng) * (double)bud[0].size);
      for (int k = 0; k < 2; ++k) ss_budget_remove_term(&bud[k], j);
      removed = true;
    } else if (t % 13 == 7) { /* a third row evicts i's values (two are kept) */
      const int64_t third = (t * 5 + 1) % KN;
      ss_budget_score_row_kept(&bud[0], &kernel, data, third, norms2[third]);
      evicted = true;
    } else if (t % 3 == 1 && bud[0].size > 0) { /* coefficients do not matter */
      for (int k = 0; k < 2; ++k) bud[k].beta[0] *= 1.5;
    }
    bool appended = false;
    for (int k = 0; k < 2; ++k) appended = add_term(&bud[k], data, norms2, i, beta);
    if (appended) {
      const bool offered = ss_budget_kept_values(&bud[0], bud[0].size - 1, kernel.gamma, &stale) != NULL;
      CHECK(offered == !(removed || evicted) && stale == -1);
      CHECK(ss_budget_kept_values(&bud[1], bud[1].size - 1, kernel.gamma, &stale) == NULL);
      if (bud[0].size > KB) {
        if (offered && ss_budget_smallest(&bud[0]) == bud[0].size - 1) reused++;
        if (removed || evicted) merges_expected_fresh++;
      }
    }
    for (int k = 0; k < 2; ++k) ss_budget_maintain(&bud[k], SS_BUDGET_MERGE, &kernel, &counts[k]);
    /* the second row, whose values describe the terms before that merge */
    if (t % 2 == 0) {
      for (int k = 0; k < 2; ++k) appended = add_term(&bud[k], data, norms2, other, 0.5 * beta);
      if (appended) {
        const bool again = ss_budget_kept_values(&bud[0], bud[0].size - 1, kernel.gamma, &stale) != NULL;
        CHECK(!(again && removed));
        CHECK(stale < bud[0].size - 1);
        if (again && stale >= 0 && ss_budget_smallest(&bud[0]) == bud[0].size - 1) reused_stale++;
      }
      for (int k = 0; k < 2; ++k) ss_budget_maintain(&bud[k], SS_BUDGET_MERGE, &kernel, &counts[k]);
    }
    REQUIRE(bud[0].size == bud[1].size);
    CHECK(tu_same_bits(bud[0].points, bud[1].points, bud[0].size * KD));
    CHECK(tu_same_bits(bud[0].beta, bud[1].beta, bud[0].size));
    CHECK(tu_same_bits(bud[0].norms2, bud[1].norms2, bud[0].size));
  }
  CHECK_EQ_INT(counts[0].num_merges, counts[1].num_merges);
  CHECK(tu_same_bits(&counts[0].weight_degradation, &counts[1].weight_degradation, 1));
  CHECK(counts[0].num_merges > 300);
  CHECK(reused > 100); /* the new row is the least term of most merges */
  CHECK(reused_stale > 30);
  CHECK(merges_expected_fresh > 20);
  if (threads > 1) ss_threads_free(&bud[0].threads);
  for (int k = 0; k < 2; ++k) ss_budget_free(&bud[k]);
}

void test_budget_merge_takes_kept_values_bitwise(void)
{
  static KeptData kd;
  kept_data(&kd, 21);
  run_pair(&kd.dense, kd.norms2, 1);
  run_pair(&kd.csr, kd.norms2, 1);
  run_pair(&kd.csr, kd.norms2, 2);
}

/* The rules under which the kept values are offered, one at a time. */
void test_budget_kept_values_offered_only_while_valid(void)
{
  static KeptData kd;
  kept_data(&kd, 22);
  const SsBudgetKernel kernel = {SS_BUDGET_KERNEL_GAUSSIAN, 0.4, 0, 0};
  const SsBudgetKernel linear = {SS_BUDGET_KERNEL_LINEAR, 0, 0, 0};
  const SsData *data = &kd.csr;
  const double *n2 = kd.norms2;
  SsBudget bud;
  int64_t stale;
  REQUIRE(ss_budget_init(&bud, 50, KD, KN) == SS_OK);
  for (int i = 0; i < 10; ++i) ss_budget_append_row(&bud, data, i, n2[i], 0.5, i);
  const int64_t last = 10;
  /* scored, then appended: offered, with the values the score used */
  ss_budget_score_row_kept(&bud, &kernel, data, 20, n2[20]);
  ss_budget_append_row(&bud, data, 20, n2[20], 0.1, 20);
  const double *values = ss_budget_kept_values(&bud, last, kernel.gamma, &stale);
  CHECK(values != NULL);
  for (int64_t j = 0; values && j < last; ++j) {
    const double want = ss_budget_kernel_value(
        &kernel, ss_budget_dot(bud.points + j * KD, bud.points + last * KD, KD), bud.norms2[j], n2[20]);
    CHECK_CLOSE(values[j], want, 1e-13);
  }
  /* another gamma, or a term that is not the last: not offered */
  CHECK(ss_budget_kept_values(&bud, last, 0.5, &stale) == NULL);
  CHECK(ss_budget_kept_values(&bud, last - 1, kernel.gamma, &stale) == NULL);
  /* a coefficient moved: still offered */
  bud.beta[3] = -2;
  CHECK(ss_budget_kept_values(&bud, last, kernel.gamma, &stale) != NULL);
  ss_budget_remove_term(&bud, last);

  /* a term removed between the score and the append */
  ss_budget_score_row_kept(&bud, &kernel, data, 21, n2[21]);
  ss_budget_remove_term(&bud, 2);
  ss_budget_append_row(&bud, data, 21, n2[21], 0.1, 21);
  CHECK(ss_budget_kept_values(&bud, bud.size - 1, kernel.gamma, &stale) == NULL);
  ss_budget_remove_term(&bud, bud.size - 1);

  /* a point rewritten in between */
  ss_budget_score_row_kept(&bud, &kernel, data, 22, n2[22]);
  bud.points[0] += 1;
  ss_budget_point_changed(&bud, 0);
  ss_budget_append_row(&bud, data, 22, n2[22], 0.1, 22);
  CHECK(ss_budget_kept_values(&bud, bud.size - 1, kernel.gamma, &stale) == NULL);
  ss_budget_remove_term(&bud, bud.size - 1);

  /* another row appended than the one scored; then the one scored after it */
  ss_budget_score_row_kept(&bud, &kernel, data, 23, n2[23]);
  ss_budget_append_row(&bud, data, 24, n2[24], 0.1, 24);
  CHECK(ss_budget_kept_values(&bud, bud.size - 1, kernel.gamma, &stale) == NULL);
  ss_budget_append_row(&bud, data, 23, n2[23], 0.1, 23);
  CHECK(ss_budget_kept_values(&bud, bud.size - 1, kernel.gamma, &stale) == NULL); /* covers one term less */
  ss_budget_remove_term(&bud, bud.size - 1);
  ss_budget_remove_term(&bud, bud.size - 1);

  /* two rows kept: the older of two is offered, the oldest of three is not */
  ss_budget_score_row_kept(&bud, &kernel, data, 25, n2[25]);
  ss_budget_score_row_kept(&bud, &kernel, data, 26, n2[26]);
  ss_budget_append_row(&bud, data, 25, n2[25], 0.1, 25);
  CHECK(ss_budget_kept_values(&bud, bud.size - 1, kernel.gamma, &stale) != NULL);
  ss_budget_remove_term(&bud, bud.size - 1);
  ss_budget_score_row_kept(&bud, &kernel, data, 27, n2[27]);
  ss_budget_score_row_kept(&bud, &kernel, data, 28, n2[28]);
  ss_budget_score_row_kept(&bud, &kernel, data, 29, n2[29]);
  ss_budget_append_row(&bud, data, 27, n2[27], 0.1, 27);
  CHECK(ss_budget_kept_values(&bud, bud.size - 1, kernel.gamma, &stale) == NULL);
  ss_budget_remove_term(&bud, bud.size - 1);

  /* a squared norm other than the score's, and a kernel that keeps nothing */
  ss_budget_score_row_kept(&bud, &kernel, data, 30, n2[30]);
  ss_budget_append_row(&bud, data, 30, n2[30] + 1, 0.1, 30);
  CHECK(ss_budget_kept_values(&bud, bud.size - 1, kernel.gamma, &stale) == NULL);
  ss_budget_remove_term(&bud, bud.size - 1);
  const double f = ss_budget_score_row_kept(&bud, &linear, data, 31, n2[31]);
  const double want = ss_budget_score_row(&bud, &linear, data, 31, n2[31]);
  CHECK(tu_same_bits(&f, &want, 1));
  ss_budget_append_row(&bud, data, 31, n2[31], 0.1, 31);
  CHECK(ss_budget_kept_values(&bud, bud.size - 1, linear.gamma, &stale) == NULL);

  /* scored against an empty expansion: offered, unless emptied again */
  ss_budget_clear(&bud);
  ss_budget_score_row_kept(&bud, &kernel, data, 32, n2[32]);
  ss_budget_append_row(&bud, data, 32, n2[32], 0.1, 32);
  CHECK(ss_budget_kept_values(&bud, 0, kernel.gamma, &stale) != NULL);
  ss_budget_clear(&bud);
  ss_budget_score_row_kept(&bud, &kernel, data, 33, n2[33]);
  ss_budget_clear(&bud);
  ss_budget_append_row(&bud, data, 33, n2[33], 0.1, 33);
  CHECK(ss_budget_kept_values(&bud, 0, kernel.gamma, &stale) == NULL);
  ss_budget_free(&bud);

  /* A full expansion of 12 terms of one sign. Rows 40 and 41 scored; 40's
   * term (the least) appended and merged away: 41's values are offered with
   * the merged term stale. After two merges, or a merge that moved a term,
   * they are not. */
  SsBudgetCounts counts = {0};
  REQUIRE(ss_budget_init(&bud, 12, KD, KN) == SS_OK);
  for (int i = 0; i < 12; ++i) ss_budget_append_row(&bud, data, i, n2[i], 1.0 + i, i);
  ss_budget_score_row_kept(&bud, &kernel, data, 40, n2[40]);
  ss_budget_score_row_kept(&bud, &kernel, data, 41, n2[41]);
  ss_budget_append_row(&bud, data, 40, n2[40], 1e-3, 40);
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kernel, &counts);
  CHECK_EQ_INT(counts.num_merges, 1);
  CHECK_EQ_INT(bud.slot_of[40], -1);
  ss_budget_append_row(&bud, data, 41, n2[41], 2e-3, 41);
  CHECK(ss_budget_kept_values(&bud, 12, kernel.gamma, &stale) != NULL);
  CHECK_EQ_INT(stale, bud.merged_term);
  CHECK(stale >= 0 && stale < 12 && bud.origin[stale] == -1); /* the point the merge moved */
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kernel, &counts);
  CHECK_EQ_INT(counts.num_merges, 2);
  ss_budget_score_row_kept(&bud, &kernel, data, 42, n2[42]);
  ss_budget_score_row_kept(&bud, &kernel, data, 43, n2[43]);
  ss_budget_append_row(&bud, data, 42, n2[42], 1e-3, 42);
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kernel, &counts);
  ss_budget_append_row(&bud, data, 44, n2[44], 1e-3, 44);
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kernel, &counts);
  ss_budget_append_row(&bud, data, 43, n2[43], 2e-3, 43);
  CHECK(ss_budget_kept_values(&bud, 12, kernel.gamma, &stale) == NULL); /* two merges */
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kernel, &counts);
  ss_budget_score_row_kept(&bud, &kernel, data, 45, n2[45]);
  ss_budget_score_row_kept(&bud, &kernel, data, 46, n2[46]);
  ss_budget_append_row(&bud, data, 45, n2[45], 50.0, 45); /* not the least: an old term goes */
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kernel, &counts);
  CHECK(bud.slot_of[45] >= 0 && bud.slot_of[45] < 12); /* moved into the removed term's place */
  ss_budget_append_row(&bud, data, 46, n2[46], 2e-3, 46);
  CHECK(ss_budget_kept_values(&bud, 12, kernel.gamma, &stale) == NULL);
  CHECK_EQ_INT(counts.num_merges, 6);
  ss_budget_free(&bud);

  /* B >= n: no merge can run, and nothing is kept (no memory for it) */
  REQUIRE(ss_budget_init(&bud, KN, KD, KN) == SS_OK);
  CHECK(bud.kept[0].values == NULL && bud.kept[1].values == NULL);
  for (int i = 0; i < 10; ++i) ss_budget_append_row(&bud, data, i, n2[i], 0.5, i);
  const double g = ss_budget_score_row_kept(&bud, &kernel, data, 50, n2[50]);
  const double g_plain = ss_budget_score_row(&bud, &kernel, data, 50, n2[50]);
  CHECK(tu_same_bits(&g, &g_plain, 1));
  ss_budget_append_row(&bud, data, 50, n2[50], 0.1, 50);
  CHECK(ss_budget_kept_values(&bud, 10, kernel.gamma, &stale) == NULL);
  ss_budget_free(&bud);
}

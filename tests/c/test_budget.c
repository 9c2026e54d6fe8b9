/* test_budget.c -- budget maintenance of the budgeted expansion (budget.h):
 * the merge's golden-section h and closed-form coefficient against a dense
 * grid search and against the weight degradation computed from the points;
 * partner choice against brute force; removal and projection against their
 * definitions and on adversarial points (duplicates, zero vectors). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/budget/budget.h"
#include "minitest.h"
#include "testutil.h"

/* |beta_z(h)| on a grid of G + 1 points of [0, 1], the best value and its h. */
static double grid_best(double a, double b, double kappa, int G, double *h_best)
{
  double best = -1;
  for (int g = 0; g <= G; ++g) {
    double h = (double)g / G;
    double v = fabs(a * pow(kappa, (1 - h) * (1 - h)) + b * pow(kappa, h * h));
    if (v > best) {
      best = v;
      *h_best = h;
    }
  }
  return best;
}

/* ||sum_t c_t phi(p_t)||^2 for a Gaussian kernel, from the points. */
static double rkhs_norm2(const double *P, const double *c, int T, int d, double gamma)
{
  double s = 0;
  for (int t = 0; t < T; ++t)
    for (int u = 0; u < T; ++u) {
      double d2 = 0;
      for (int k = 0; k < d; ++k) d2 += (P[t * d + k] - P[u * d + k]) * (P[t * d + k] - P[u * d + k]);
      s += c[t] * c[u] * exp(-gamma * d2);
    }
  return s;
}

void test_merge_golden_section_vs_grid(void)
{
  TuRng rng;
  tu_rng_init(&rng, 7);
  int worse = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    double a = 0.01 + 2 * tu_rng_uniform(&rng), b = 0.01 + 2 * tu_rng_uniform(&rng);
    /* kappa from nearly identical to far apart (log-uniform down to 1e-12) */
    double kappa = trial % 10 == 0 ? 1.0 : exp(-27.6 * tu_rng_uniform(&rng));
    double sgn = (trial & 1) ? -1.0 : 1.0;
    double bz, hg = 0;
    double h = ss_merge_golden_section(sgn * a, sgn * b, kappa, 1e-10, &bz);
    double best = grid_best(a, b, kappa, 20000, &hg);
    CHECK(h >= 0 && h <= 1);
    CHECK(sgn * bz > 0);
    /* never worse than the dense grid (up to its resolution), at most slightly better */
    if (!(fabs(bz) >= best - 1e-9 * (a + b))) {
      if (!worse) CHECK_CLOSE(fabs(bz), best, 1e-9 * (a + b));
      worse++;
    }
    CHECK(fabs(bz) <= a + b + 1e-12);
    /* the closed-form coefficient at that h is what the search returned */
    CHECK_CLOSE(ss_merge_coefficient(sgn * a, sgn * b, kappa, h), bz, 1e-12 * (a + b));
    /* where the optimum is unique and interior, h agrees with the grid */
    if (kappa > 0.5 && kappa < 1) CHECK_CLOSE(h, hg, 2e-3);
  }
  CHECK_EQ_INT(worse, 0);
}

void test_merge_relative_degradation(void)
{
  /* r*(mu, kappa) mu^2 is the optimal degradation of the pair (mu, 1 - mu)
   * found by a dense grid; its limit at mu = 0 is finite and continuous. */
  TuRng rng;
  tu_rng_init(&rng, 13);
  for (int trial = 0; trial < 400; ++trial) {
    double mu = 0.5 * tu_rng_uniform(&rng), kappa = tu_rng_uniform(&rng), hg = 0, best = INFINITY;
    if (mu < 1e-3) mu = 1e-3;
    for (int g = 0; g <= 20000; ++g) {
      double wd = ss_merge_degradation(mu, 1 - mu, kappa, g / 20000.0);
      if (wd < best) {
        best = wd;
        hg = g / 20000.0;
      }
    }
    /* refine the grid around its best point */
    const double lo = fmax(0, hg - 5e-5);
    for (int g = 0; g <= 2000; ++g) {
      double wd = ss_merge_degradation(mu, 1 - mu, kappa, lo + g * 1e-4 / 2000);
      if (wd < best) best = wd;
    }
    const double r = ss_merge_relative_degradation(mu, kappa);
    CHECK(r * mu * mu <= best + 1e-15);              /* never worse than the grid */
    CHECK(r * mu * mu >= best * (1 - 1e-9) - 1e-15); /* better only by its resolution */
  }
  for (int k = 0; k <= 10; ++k) {
    const double kappa = k / 10.0;
    CHECK(isfinite(ss_merge_relative_degradation(0, kappa)));
    CHECK_CLOSE(ss_merge_relative_degradation(0, kappa), ss_merge_relative_degradation(1e-3, kappa),
                1e-2);
  }
}

void test_merge_degradation_matches_points(void)
{
  /* WD(h) and beta_z from the closed forms equal the RKHS distance computed
   * from explicit points z_m, z_j and z = h z_m + (1 - h) z_j. */
  TuRng rng;
  tu_rng_init(&rng, 11);
  const int d = 3;
  const double gamma = 0.7;
  for (int trial = 0; trial < 200; ++trial) {
    double P[9], c[3];
    for (int k = 0; k < 2 * d; ++k) P[k] = 3 * tu_rng_uniform(&rng) - 1.5;
    double a = 0.1 + tu_rng_uniform(&rng), b = 0.1 + tu_rng_uniform(&rng);
    double d2 = 0;
    for (int k = 0; k < d; ++k) d2 += (P[k] - P[d + k]) * (P[k] - P[d + k]);
    double kappa = exp(-gamma * d2), bz;
    double h = ss_merge_golden_section(a, b, kappa, 1e-10, &bz);
    for (int k = 0; k < d; ++k) P[2 * d + k] = h * P[k] + (1 - h) * P[d + k];
    /* the best coefficient for z is <a phi(z_m) + b phi(z_j), phi(z)> */
    double kmz = 0, kjz = 0;
    for (int k = 0; k < d; ++k) {
      kmz += (P[k] - P[2 * d + k]) * (P[k] - P[2 * d + k]);
      kjz += (P[d + k] - P[2 * d + k]) * (P[d + k] - P[2 * d + k]);
    }
    CHECK_CLOSE(bz, a * exp(-gamma * kmz) + b * exp(-gamma * kjz), 1e-12);
    c[0] = a;
    c[1] = b;
    c[2] = -bz;
    CHECK_CLOSE(ss_merge_degradation(a, b, kappa, h), rkhs_norm2(P, c, 3, d, gamma), 1e-10);
    /* no other coefficient for that z does better */
    c[2] = -bz * 1.01;
    CHECK(rkhs_norm2(P, c, 3, d, gamma) >= ss_merge_degradation(a, b, kappa, h) - 1e-12);
  }
}

/* A budget of B = n - 1 with n random points, all of one sign except some. */
static void fill(SsBudget *bud, TuRng *rng, int n, int d, const double *signs)
{
  double z[8];
  for (int t = 0; t < n; ++t) {
    for (int k = 0; k < d; ++k) z[k] = 2 * tu_rng_uniform(rng) - 1;
    ss_budget_append_dense(bud, z, signs[t] * (0.05 + tu_rng_uniform(rng)), t);
  }
}

void test_merge_chooses_least_degradation(void)
{
  TuRng rng;
  tu_rng_init(&rng, 3);
  const int n = 12, d = 4;
  const double gamma = 1.3;
  SsBudgetKernel kern = {SS_BUDGET_KERNEL_GAUSSIAN, gamma, 0, 0};
  SsBudget bud; /* one expansion for all trials: the merge's table is built once */
  REQUIRE(ss_budget_init(&bud, n - 1, d, n) == SS_OK);
  for (int trial = 0; trial < 100; ++trial) {
    ss_budget_clear(&bud);
    double signs[12];
    for (int t = 0; t < n; ++t) signs[t] = tu_rng_uniform(&rng) < 0.6 ? 1 : -1;
    fill(&bud, &rng, n, d, signs);
    double before[12 * 4], bbefore[12];
    memcpy(before, bud.points, sizeof(before));
    memcpy(bbefore, bud.beta, sizeof(bbefore));
    int64_t m = ss_budget_smallest(&bud);
    /* brute force: every same-sign partner, h on a dense grid */
    double best_wd = INFINITY;
    for (int j = 0; j < n; ++j) {
      if (j == m || bbefore[j] * bbefore[m] <= 0) continue;
      double d2 = 0;
      for (int k = 0; k < d; ++k) d2 += pow(before[m * d + k] - before[j * d + k], 2);
      double kappa = exp(-gamma * d2), hg;
      double v = grid_best(bbefore[m], bbefore[j], kappa, 4000, &hg);
      double wd = bbefore[m] * bbefore[m] + bbefore[j] * bbefore[j] +
                  2 * bbefore[m] * bbefore[j] * kappa - v * v;
      if (wd < best_wd) best_wd = wd;
    }
    SsBudgetCounts counts = {0};
    ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kern, &counts);
    CHECK_EQ_INT(bud.size, n - 1);
    CHECK_EQ_INT(counts.num_maintenance, 1);
    if (isfinite(best_wd)) {
      CHECK_EQ_INT(counts.num_merges, 1);
      CHECK_CLOSE(counts.weight_degradation, best_wd, 1e-6 * (1 + best_wd));
    } else {
      CHECK_EQ_INT(counts.num_removals, 1);
    }
    /* the recorded degradation is the true distance between old and new models */
    double P[2 * 12 * 4], c[24];
    memcpy(P, before, sizeof(before));
    for (int t = 0; t < n; ++t) c[t] = bbefore[t];
    for (int t = 0; t < n - 1; ++t) {
      memcpy(P + (n + t) * d, bud.points + t * d, d * sizeof(double));
      c[n + t] = -bud.beta[t];
      double n2 = 0;
      for (int k = 0; k < d; ++k) n2 += bud.points[t * d + k] * bud.points[t * d + k];
      CHECK_CLOSE(bud.norms2[t], n2, 1e-12);
    }
    CHECK_CLOSE(rkhs_norm2(P, c, 2 * n - 1, d, gamma), counts.weight_degradation, 1e-9);
    /* slot_of follows the terms */
    for (int t = 0; t < n - 1; ++t)
      if (bud.origin[t] >= 0) CHECK_EQ_INT(bud.slot_of[bud.origin[t]], t);
    int tracked = 0;
    for (int i = 0; i < n; ++i)
      if (bud.slot_of[i] >= 0) {
        CHECK_EQ_INT(bud.origin[bud.slot_of[i]], i);
        tracked++;
      }
    CHECK_EQ_INT(tracked, counts.num_merges ? n - 2 : n - 1);
  }
  ss_budget_free(&bud);
}

void test_merge_without_partner_removes(void)
{
  SsBudgetKernel kern = {SS_BUDGET_KERNEL_GAUSSIAN, 1.0, 0, 0};
  SsBudget bud;
  REQUIRE(ss_budget_init(&bud, 2, 2, 0) == SS_OK);
  double z0[2] = {0, 0}, z1[2] = {1, 0}, z2[2] = {0, 1};
  ss_budget_append_dense(&bud, z0, 0.1, -1);
  ss_budget_append_dense(&bud, z1, -1.0, -1);
  ss_budget_append_dense(&bud, z2, -2.0, -1);
  SsBudgetCounts counts = {0};
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kern, &counts);
  CHECK_EQ_INT(bud.size, 2);
  CHECK_EQ_INT(counts.num_removals, 1);
  CHECK_CLOSE(counts.weight_degradation, 0.01, 1e-15);
  CHECK_CLOSE(bud.beta[0] + bud.beta[1], -3.0, 1e-15);
  /* no-op at or below the budget */
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kern, &counts);
  CHECK_EQ_INT(counts.num_maintenance, 1);
  ss_budget_free(&bud);
}

/* ||f_before - f_after||^2 in the RKHS of a general kernel. */
static double model_distance(const SsBudgetKernel *kern, const double *P0, const double *b0, int n0,
                             const SsBudget *bud, int d)
{
  double s = 0;
  for (int t = 0; t < n0 + bud->size; ++t)
    for (int u = 0; u < n0 + bud->size; ++u) {
      const double *pt = t < n0 ? P0 + t * d : bud->points + (t - n0) * d;
      const double *pu = u < n0 ? P0 + u * d : bud->points + (u - n0) * d;
      double ct = t < n0 ? b0[t] : -bud->beta[t - n0], cu = u < n0 ? b0[u] : -bud->beta[u - n0];
      double dot = 0, nt = 0, nu = 0;
      for (int k = 0; k < d; ++k) {
        dot += pt[k] * pu[k];
        nt += pt[k] * pt[k];
        nu += pu[k] * pu[k];
      }
      s += ct * cu * ss_budget_kernel_value(kern, dot, nt, nu);
    }
  return s;
}

void test_projection_is_least_squares(void)
{
  /* The projected model is no farther from the old one than removal, and no
   * small change of the new coefficients gets closer (normal equations). */
  TuRng rng;
  tu_rng_init(&rng, 5);
  const int n = 8, d = 3;
  SsBudgetKernel kernels[3] = {{SS_BUDGET_KERNEL_GAUSSIAN, 0.8, 0, 0},
                               {SS_BUDGET_KERNEL_POLYNOMIAL, 0.5, 1.0, 2},
                               {SS_BUDGET_KERNEL_LINEAR, 0, 0, 0}};
  for (int kk = 0; kk < 3; ++kk)
    for (int trial = 0; trial < 20; ++trial) {
      SsBudget bud;
      REQUIRE(ss_budget_init(&bud, n - 1, d, 0) == SS_OK);
      double signs[8] = {1, -1, 1, 1, -1, 1, -1, 1}, P0[24], b0[8];
      fill(&bud, &rng, n, d, signs);
      memcpy(P0, bud.points, sizeof(P0));
      memcpy(b0, bud.beta, sizeof(b0));
      int64_t m = ss_budget_smallest(&bud);
      SsBudgetCounts counts = {0};
      ss_budget_maintain(&bud, SS_BUDGET_PROJECT, &kernels[kk], &counts);
      CHECK_EQ_INT(bud.size, n - 1);
      double dist = model_distance(&kernels[kk], P0, b0, n, &bud, d);
      CHECK_CLOSE(dist, counts.weight_degradation, 1e-8 * (1 + dist));
      double nm = 0;
      for (int k = 0; k < d; ++k) nm += P0[m * d + k] * P0[m * d + k];
      CHECK(dist <= b0[m] * b0[m] * ss_budget_kernel_value(&kernels[kk], nm, nm, nm) + 1e-12);
      if (kk == 2) CHECK_CLOSE(dist, 0, 1e-8); /* 7 points span R^3: exact */
      for (int t = 0; t < n - 1; ++t) {
        for (int s = -1; s <= 1; s += 2) {
          bud.beta[t] += s * 1e-3;
          CHECK(model_distance(&kernels[kk], P0, b0, n, &bud, d) >= dist - 1e-9);
          bud.beta[t] -= s * 1e-3;
        }
      }
      ss_budget_free(&bud);
    }
}

void test_removal_definition(void)
{
  SsBudgetKernel kern = {SS_BUDGET_KERNEL_POLYNOMIAL, 1.0, 1.0, 2};
  SsBudget bud;
  REQUIRE(ss_budget_init(&bud, 2, 2, 3) == SS_OK);
  double z0[2] = {1, 2}, z1[2] = {0, 1}, z2[2] = {3, 0};
  ss_budget_append_dense(&bud, z0, 0.5, 0);
  ss_budget_append_dense(&bud, z1, -0.2, 1);
  ss_budget_append_dense(&bud, z2, 1.5, 2);
  SsBudgetCounts counts = {0};
  ss_budget_maintain(&bud, SS_BUDGET_REMOVE, &kern, &counts);
  CHECK_EQ_INT(bud.size, 2);
  CHECK_EQ_INT(counts.num_removals, 1);
  CHECK_CLOSE(counts.weight_degradation, 0.04 * 4.0, 1e-14); /* (1 + 1)^2 */
  CHECK_EQ_INT(bud.slot_of[1], -1);
  CHECK_EQ_INT(bud.slot_of[0], 0);
  CHECK_EQ_INT(bud.slot_of[2], 1);
  ss_budget_free(&bud);
}

void test_maintenance_adversarial_points(void)
{
  /* Duplicate points and zero vectors make the Gram matrix singular (and the
   * linear kernel's zero rows vanish); every strategy must keep the model
   * finite, never exceed the budget and never degrade more than removal. */
  const int d = 3, B = 6;
  SsBudgetKernel kernels[3] = {{SS_BUDGET_KERNEL_GAUSSIAN, 2.0, 0, 0},
                               {SS_BUDGET_KERNEL_LINEAR, 0, 0, 0},
                               {SS_BUDGET_KERNEL_POLYNOMIAL, 1.0, 0.0, 3}};
  SsBudgetStrategy strategies[3] = {SS_BUDGET_MERGE, SS_BUDGET_REMOVE, SS_BUDGET_PROJECT};
  TuRng rng;
  tu_rng_init(&rng, 9);
  for (int kk = 0; kk < 3; ++kk)
    for (int ss = 0; ss < 3; ++ss) {
      if (strategies[ss] == SS_BUDGET_MERGE && kk != 0) continue;
      SsBudget bud;
      REQUIRE(ss_budget_init(&bud, B, d, 0) == SS_OK);
      SsBudgetCounts counts = {0};
      double zero[3] = {0, 0, 0}, dup[3] = {0.5, -0.25, 1};
      for (int step = 0; step < 200; ++step) {
        double z[3];
        int kind = step % 4;
        if (kind == 0) memcpy(z, zero, sizeof(z));
        else if (kind == 1 || kind == 2) memcpy(z, dup, sizeof(z));
        else
          for (int k = 0; k < d; ++k) z[k] = tu_rng_uniform(&rng) < 0.5 ? 0.0 : 1e-8;
        double beta = (step % 3 == 0 ? -1 : 1) * (step % 5 == 0 ? 0.0 : 1e-3 + tu_rng_uniform(&rng));
        ss_budget_append_dense(&bud, z, beta, -1);
        ss_budget_maintain(&bud, strategies[ss], &kernels[kk], &counts);
        CHECK(bud.size <= B);
        for (int t = 0; t < bud.size; ++t) {
          CHECK(isfinite(bud.beta[t]));
          CHECK(isfinite(bud.norms2[t]));
          for (int k = 0; k < d; ++k) CHECK(isfinite(bud.points[t * d + k]));
        }
        if (mt_current_failed) break;
      }
      CHECK(isfinite(counts.weight_degradation));
      CHECK(counts.num_maintenance == 200 - B);
      ss_budget_free(&bud);
    }
}

/* sum_j beta_j exp(-gamma ||z_j - x||^2) from the row-major points. */
static double direct_score(const SsBudget *bud, const double *x, double gamma, double *scale)
{
  const int64_t d = bud->dimension;
  double f = 0;
  *scale = 0;
  for (int64_t j = 0; j < bud->size; ++j) {
    double d2 = 0;
    for (int64_t k = 0; k < d; ++k) d2 += (bud->points[j * d + k] - x[k]) * (bud->points[j * d + k] - x[k]);
    f += bud->beta[j] * exp(-gamma * d2);
    *scale += fabs(bud->beta[j]);
  }
  return f;
}

#define GN 400
#define GD 6
#define GB 150 /* above SS_BUDGET_BLOCK: more than one block of terms */

/* The Gaussian scores of rows (by blocks over the transposed points, with
 * the vectorised exp) against the direct sum over the row-major points, in
 * the four layouts of the data, while appends, merges and removals move and
 * rewrite the points: a transposed copy left stale by any of them fails. */
void test_gaussian_scores_track_the_points(void)
{
  static double X[GN * GD], Xcsr[GN * GD];
  static float X32[GN * GD], Xcsr32[GN * GD];
  static int64_t indptr[GN + 1];
  static int32_t indices[GN * GD];
  double norms2[GN];
  TuRng rng;
  tu_rng_init(&rng, 11);
  int64_t nnz = 0;
  for (int i = 0; i < GN; ++i) {
    norms2[i] = 0;
    for (int k = 0; k < GD; ++k) {
      /* multiples of 1/8 in [-2, 2] (exact in float32), a third of them zero */
      double v = tu_rng_uniform(&rng) < 1.0 / 3 ? 0.0 : floor(32 * tu_rng_uniform(&rng) - 16) / 8;
      X[i * GD + k] = v;
      X32[i * GD + k] = (float)v;
      norms2[i] += v * v;
      if (v != 0) {
        Xcsr[nnz] = v;
        Xcsr32[nnz] = (float)v;
        indices[nnz++] = k;
      }
    }
    indptr[i + 1] = nnz;
  }
  SsData data[4];
  REQUIRE(ss_data_init_dense(&data[0], SS_DTYPE_FLOAT64, X, GN, GD, GD) == SS_OK);
  REQUIRE(ss_data_init_dense(&data[1], SS_DTYPE_FLOAT32, X32, GN, GD, GD) == SS_OK);
  REQUIRE(ss_data_init_csr(&data[2], SS_DTYPE_FLOAT64, Xcsr, indptr, indices, GN, GD) == SS_OK);
  REQUIRE(ss_data_init_csr(&data[3], SS_DTYPE_FLOAT32, Xcsr32, indptr, indices, GN, GD) == SS_OK);
  const SsBudgetKernel kernel = {SS_BUDGET_KERNEL_GAUSSIAN, 0.3, 0, 0};
  SsBudget bud;
  SsBudgetCounts counts = {0};
  REQUIRE(ss_budget_init(&bud, GB, GD, GN) == SS_OK);
  int checks = 0;
  for (int t = 0; t < GN; ++t) {
    const double beta = (tu_rng_uniform(&rng) < 0.5 ? -1.0 : 1.0) * (0.1 + tu_rng_uniform(&rng));
    ss_budget_append_row(&bud, &data[t % 4], t, norms2[t], beta, t);
    ss_budget_maintain(&bud, SS_BUDGET_MERGE, &kernel, &counts);
    if (t % 7 == 3 && bud.size > 2) ss_budget_remove_term(&bud, (int64_t)(tu_rng_uniform(&rng) * (double)bud.size));
    if (t % 25 != 24) continue;
    for (int q = 0; q < 5; ++q) {
      const int i = (int)(tu_rng_uniform(&rng) * GN);
      double scale;
      const double want = direct_score(&bud, X + i * GD, kernel.gamma, &scale);
      for (int l = 0; l < 4; ++l) {
        CHECK_CLOSE(ss_budget_score_row(&bud, &kernel, &data[l], i, norms2[i]), want, 1e-12 * scale);
        checks++;
      }
    }
  }
  CHECK(counts.num_merges > 100 && bud.size == GB);
  CHECK_EQ_INT(checks, 16 * 5 * 4);
  ss_budget_free(&bud);
}

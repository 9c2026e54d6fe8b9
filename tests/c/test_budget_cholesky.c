/* test_budget_cholesky.c -- the incrementally updated Cholesky factor of the
 * expansion's Gram matrix (budget_cholesky.c) against a factorisation from
 * scratch of K + eps I in the same order, after every append and removal:
 * random Gaussian points (the factors agree entry by entry), and
 * nearly-degenerate ones (duplicate points, zero vectors, 1e-8 vectors, more
 * points than dimensions under the linear kernel: the product L L^T
 * reproduces K + eps I and the solves agree). End to end, maintenance by
 * projection with the kept factor gives the coefficients of projection with
 * a factor built anew at every step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/budget/budget.h"
#include "minitest.h"
#include "testutil.h"

#define CD 3
#define CAP 16

static double kval(const SsBudget *b, const SsBudgetKernel *k, int64_t i, int64_t j)
{
  const int64_t d = b->dimension;
  return ss_budget_kernel_value(k, ss_budget_dot(b->points + i * d, b->points + j * d, d),
                                b->norms2[i], b->norms2[j]);
}

/* Reference: A = K + eps I in factor order, its Cholesky factor R (0 if it
 * failed), the largest |L - R| and |L L^T - A| (A's scale). */
static int compare_factor(const SsBudget *b, const SsBudgetKernel *k, double *diff_L,
                          double *diff_A)
{
  const SsBudgetCholesky *c = b->chol;
  const int64_t p = c->size, S = b->capacity;
  static double A[CAP * CAP], R[CAP * CAP];
  int ok = 1;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j <= i; ++j) A[i * CAP + j] = kval(b, k, c->term[i], c->term[j]) + (i == j ? c->eps : 0);
  for (int64_t i = 0; i < p && ok; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double s = A[i * CAP + j];
      for (int64_t q = 0; q < j; ++q) s -= R[i * CAP + q] * R[j * CAP + q];
      if (i == j) {
        if (!(s > 0)) { ok = 0; break; }
        R[i * CAP + i] = sqrt(s);
      } else {
        R[i * CAP + j] = s / R[j * CAP + j];
      }
    }
  *diff_L = *diff_A = 0;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      if (ok) *diff_L = fmax(*diff_L, fabs(c->L[i * S + j] - R[i * CAP + j]));
      double s = 0;
      for (int64_t q = 0; q <= j; ++q) s += c->L[i * S + q] * c->L[j * S + q];
      *diff_A = fmax(*diff_A, fabs(s - A[i * CAP + j]));
    }
  return ok;
}

static void check_mapping(const SsBudget *b)
{
  const SsBudgetCholesky *c = b->chol;
  CHECK_EQ_INT(c->size, b->size);
  for (int64_t r = 0; r < c->size; ++r) {
    CHECK(c->term[r] >= 0 && c->term[r] < b->size);
    CHECK_EQ_INT(c->row[c->term[r]], r);
  }
}

/* Random appends and removals; kind 0: random points, 1: degenerate ones. */
static void run_sequence(const SsBudgetKernel *kernel, int kind, uint64_t seed, double tol_L,
                         double tol_A)
{
  TuRng rng;
  tu_rng_init(&rng, seed);
  SsBudget b;
  REQUIRE(ss_budget_init(&b, CAP - 1, CD, 0) == SS_OK);
  double z[CD];
  for (int t = 0; t < 6; ++t) {
    for (int q = 0; q < CD; ++q) z[q] = 2 * tu_rng_uniform(&rng) - 1;
    ss_budget_append_dense(&b, z, 1.0, -1);
  }
  REQUIRE(ss_budget_cholesky_build(&b, kernel));
  int checked = 0, rebuilt = 0;
  for (int op = 0; op < 400; ++op) {
    const bool add = b.size < 2 || (b.size < CAP && tu_rng_uniform(&rng) < 0.5);
    if (add) {
      const double u = tu_rng_uniform(&rng);
      if (kind == 1 && u < 0.3) { /* a duplicate of a present point */
        memcpy(z, b.points + (int64_t)(tu_rng_uniform(&rng) * b.size) * CD, sizeof(z));
      } else if (kind == 1 && u < 0.45) {
        memset(z, 0, sizeof(z));
      } else if (kind == 1 && u < 0.55) {
        for (int q = 0; q < CD; ++q) z[q] = 1e-8 * (2 * tu_rng_uniform(&rng) - 1);
      } else {
        for (int q = 0; q < CD; ++q) z[q] = 2 * tu_rng_uniform(&rng) - 1;
      }
      ss_budget_append_dense(&b, z, 1.0, -1);
    } else {
      ss_budget_remove_term(&b, (int64_t)(tu_rng_uniform(&rng) * b.size));
    }
    if (!b.chol->valid) { /* an update gave up (a pivot <= 0): factor again */
      REQUIRE(ss_budget_cholesky_build(&b, kernel));
      ++rebuilt;
    }
    check_mapping(&b);
    double dL, dA;
    const int ok = compare_factor(&b, kernel, &dL, &dA);
    if (ok && tol_L > 0) CHECK(dL <= tol_L);
    CHECK(dA <= tol_A);
    /* a solve against the reference: (K + eps I) x = 1 */
    double x[CAP], res = 0;
    for (int64_t r = 0; r < b.chol->size; ++r) x[r] = 1;
    ss_budget_cholesky_solve(&b, x);
    double xmax = 0;
    for (int64_t r = 0; r < b.chol->size; ++r) xmax = fmax(xmax, fabs(x[r]));
    for (int64_t i = 0; i < b.chol->size; ++i) {
      double s = b.chol->eps * x[i];
      for (int64_t j = 0; j < b.chol->size; ++j) s += kval(&b, kernel, b.chol->term[i], b.chol->term[j]) * x[j];
      res = fmax(res, fabs(s - 1));
    }
    CHECK(res <= 1e-12 * (1 + xmax)); /* backward stable: ~ p u ||A|| ||x|| */
    ++checked;
  }
  CHECK(checked == 400);
  if (kind == 0) CHECK_EQ_INT(rebuilt, 0);
  ss_budget_free(&b);
}

void test_cholesky_updates_match_full_factor(void)
{
  const SsBudgetKernel gauss = {SS_BUDGET_KERNEL_GAUSSIAN, 0.7, 0, 0};
  const SsBudgetKernel poly = {SS_BUDGET_KERNEL_POLYNOMIAL, 0.5, 1.0, 3};
  const SsBudgetKernel lin = {SS_BUDGET_KERNEL_LINEAR, 0, 0, 0};
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    /* accumulated over 400 updates: ||L L^T - (K + eps I)||_max ~ 1e-13 */
    run_sequence(&gauss, 0, seed, 1e-9, 1e-12);
    run_sequence(&poly, 0, seed + 10, 0, 1e-11);
    run_sequence(&gauss, 1, seed + 20, 0, 1e-12);
    run_sequence(&lin, 1, seed + 30, 0, 1e-12);
  }
}

/* ||sum_j (beta_j - gamma_j) phi(z_j)||^2 over the same points. */
static double coef_distance(const SsBudget *b, const SsBudgetKernel *k, const double *g)
{
  double s = 0;
  for (int64_t i = 0; i < b->size; ++i)
    for (int64_t j = 0; j < b->size; ++j)
      s += (b->beta[i] - g[i]) * (b->beta[j] - g[j]) * kval(b, k, i, j);
  return s;
}

void test_projection_kept_factor_equals_new_factor(void)
{
  /* Each step: append the same point to both expansions, make `fresh` an
   * exact copy of `kept` with no factor (the old way: factor from scratch),
   * project in both. Well-conditioned Gram matrices (gamma = 5): the same
   * coefficients to 1e-9, the function to 1e-12 of ||w||^2 and the weight
   * degradation to 1e-11 (1 + ||w||^2). Ill-conditioned or singular ones (gamma = 0.9; the degree-2
   * polynomial kernel has a 10-dimensional feature space, so 11 points have
   * a singular Gram matrix and the coefficients are not unique): the same
   * function, ||w_kept - w_fresh||^2 <= 1e-8 ||w||^2, and the same weight
   * degradation to 1e-7 (1 + ||w||^2) (it is a difference of terms of order
   * ||w||^2 and tends to 0 there). */
  TuRng rng;
  tu_rng_init(&rng, 77);
  const SsBudgetKernel kernels[3] = {{SS_BUDGET_KERNEL_GAUSSIAN, 5.0, 0, 0},
                                     {SS_BUDGET_KERNEL_GAUSSIAN, 0.9, 0, 0},
                                     {SS_BUDGET_KERNEL_POLYNOMIAL, 0.5, 1.0, 2}};
  for (int kk = 0; kk < 3; ++kk) {
    SsBudget kept, fresh;
    REQUIRE(ss_budget_init(&kept, 10, CD, 0) == SS_OK);
    REQUIRE(ss_budget_init(&fresh, 10, CD, 0) == SS_OK);
    SsBudgetCounts ck = {0};
    double z[CD], g[CAP];
    int kept_valid = 0;
    for (int step = 0; step < 200; ++step) {
      for (int q = 0; q < CD; ++q) z[q] = 2 * tu_rng_uniform(&rng) - 1;
      const double beta = (tu_rng_uniform(&rng) < 0.5 ? -1 : 1) * (0.05 + tu_rng_uniform(&rng));
      ss_budget_append_dense(&kept, z, beta, -1);
      ss_budget_clear(&fresh);
      for (int64_t j = 0; j < kept.size; ++j)
        ss_budget_append_dense(&fresh, kept.points + j * CD, kept.beta[j], -1);
      const bool had_factor = ss_budget_cholesky_ready(&kept, &kernels[kk]);
      SsBudgetCounts c1 = {0}, c2 = {0};
      ss_budget_maintain(&kept, SS_BUDGET_PROJECT, &kernels[kk], &c1);
      ss_budget_maintain(&fresh, SS_BUDGET_PROJECT, &kernels[kk], &c2);
      ck.num_projections += c1.num_projections;
      kept_valid += had_factor;
      REQUIRE(kept.size == fresh.size);
      CHECK_EQ_INT(c1.num_projections, c2.num_projections);
      /* the slots agree: both removed the same smallest term */
      for (int64_t j = 0; j < kept.size; ++j)
        CHECK(memcmp(kept.points + j * CD, fresh.points + j * CD, sizeof(z)) == 0);
      for (int64_t j = 0; j < kept.size; ++j) g[j] = fresh.beta[j];
      double w2 = 0;
      for (int64_t i = 0; i < kept.size; ++i)
        for (int64_t j = 0; j < kept.size; ++j) w2 += g[i] * g[j] * kval(&kept, &kernels[kk], i, j);
      const double tol = kk == 0 ? 1e-12 : 1e-8;
      CHECK(coef_distance(&kept, &kernels[kk], g) <= tol * w2);
      CHECK_CLOSE(c1.weight_degradation, c2.weight_degradation, 10 * tol * (1 + w2));
      if (kk == 0)
        for (int64_t j = 0; j < kept.size; ++j)
          CHECK_CLOSE(kept.beta[j], g[j], 1e-9 * (1 + fabs(g[j])));
    }
    CHECK(ck.num_projections > 150);
    CHECK(kept_valid > 150); /* the factor was kept, not rebuilt, on most steps */
    ss_budget_free(&kept);
    ss_budget_free(&fresh);
  }
}

/* test_bsca_bias.c -- BSCA with an unregularized bias (bsca_bias.c): with
 * B >= n and no maintenance the pair steps keep sum_i y_i alpha_i = 0, never
 * decrease the dual, and reach the optimum of the dual with the equality
 * constraint, certified by the maximal KKT violation computed from the full
 * Gram matrix; the primal-optimal bias is checked against a scan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/budget/budget_train.h"
#include "minitest.h"
#include "testutil.h"

#define BN 70
#define BD 2

void test_bsca_bias_reaches_kkt_optimum(void)
{
  double X[BN * BD], y[BN], norms2[BN];
  tu_make_blobs(X, y, BN, BD, 0.6, 33);
  SsData data;
  ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, BN, BD, BD);
  ss_budget_row_norms2(&data, norms2);
  const SsBudgetKernel kernel = {SS_BUDGET_KERNEL_GAUSSIAN, 0.8, 0, 0};
  const double C = 3.0;
  SsBudgetTrainer tr;
  REQUIRE(ss_budget_trainer_init(&tr, &data, y, norms2, kernel, C, SS_BUDGET_MERGE, BN) == SS_OK);
  static double K[BN * BN];
  for (int i = 0; i < BN; ++i)
    for (int j = 0; j < BN; ++j) {
      double d2 = 0;
      for (int k = 0; k < BD; ++k) d2 += pow(X[i * BD + k] - X[j * BD + k], 2);
      K[i * BN + j] = exp(-kernel.gamma * d2);
    }
  double last = -INFINITY;
  bool monotone = true;
  double gap = INFINITY;
  for (int e = 0; e < 400 && gap > 1e-9; ++e) {
    CHECK_EQ_INT(ss_budget_train_epochs(&tr, SS_BUDGET_SOLVER_BSCA_BIAS, 1, 5), SS_OK);
    double sum_ay = 0, dual = 0;
    double up = -INFINITY, low = INFINITY; /* max over I_up, min over I_low of y_i - f_i */
    for (int i = 0; i < BN; ++i) {
      double f = 0;
      for (int j = 0; j < BN; ++j) f += tr.alpha[j] * y[j] * K[i * BN + j];
      const double v = y[i] - f, a = tr.alpha[i];
      if (y[i] > 0 ? a < C : a > 0) up = fmax(up, v);
      if (y[i] > 0 ? a > 0 : a < C) low = fmin(low, v);
      sum_ay += a * y[i];
      dual += a - 0.5 * a * y[i] * f;
      CHECK(a >= 0 && a <= C);
    }
    CHECK(fabs(sum_ay) < 1e-10 * C * BN);
    if (dual < last - 1e-12 * fabs(last)) monotone = false;
    last = dual;
    gap = up - low;
  }
  CHECK(monotone);
  CHECK(gap <= 1e-9);
  CHECK_EQ_INT(tr.counts.num_maintenance, 0);
  ss_budget_trainer_free(&tr);
}

void test_bsca_bias_primal_bias_minimises_hinge(void)
{
  double f[9] = {0.3, -1.2, 2.0, 0.1, -0.4, 0.9, -2.5, 1.1, 0.0};
  double y[9] = {1, -1, 1, -1, 1, 1, -1, -1, 1};
  double work[18];
  /* unweighted, weighted (a zero weight among them), and all weights zero */
  const double c[3][9] = {{1, 1, 1, 1, 1, 1, 1, 1, 1},
                          {0.5, 3, 1, 0, 2.5, 0.25, 1, 4, 0.75},
                          {0, 0, 0, 0, 0, 0, 0, 0, 0}};
  for (int w = 0; w < 3; ++w) {
    const double b = ss_budget_primal_bias(f, y, w == 0 ? NULL : c[w], 9, work);
    double h_best = INFINITY;
    for (int s = -4000; s <= 4000; ++s) {
      double h = 0, bb = s * 1e-3;
      for (int i = 0; i < 9; ++i) h += c[w][i] * fmax(0, 1 - y[i] * (f[i] + bb));
      h_best = fmin(h_best, h);
    }
    double h = 0;
    for (int i = 0; i < 9; ++i) h += c[w][i] * fmax(0, 1 - y[i] * (f[i] + b));
    CHECK(isfinite(b));
    CHECK(h <= h_best + 1e-12);
  }
  /* one class only: a finite b */
  double yp[3] = {1, 1, 1};
  CHECK(isfinite(ss_budget_primal_bias(f, yp, NULL, 3, work)));
}

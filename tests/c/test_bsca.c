/* test_bsca.c -- the budgeted solvers BSCA and BSGD (budget_train.h): the
 * budget is never exceeded; with B >= n (no maintenance) BSCA reaches the
 * optimum of the dual box QP computed by an independent exact coordinate
 * ascent on the full Gram matrix, and its dual never decreases; a point in
 * the expansion is updated, never duplicated; runs split at epoch boundaries
 * equal one run; BSGD approaches the same optimum from the primal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/budget/budget_train.h"
#include "minitest.h"
#include "testutil.h"

#define N 80
#define D 2

typedef struct Problem {
  double X[N * D], y[N], norms2[N];
  SsData data;
  SsBudgetKernel kernel;
  double C;
} Problem;

static void make_problem(Problem *p, double gamma, double C)
{
  tu_make_blobs(p->X, p->y, N, D, 0.4, 21);
  ss_data_init_dense(&p->data, SS_DTYPE_FLOAT64, p->X, N, D, D);
  ss_budget_row_norms2(&p->data, p->norms2);
  p->kernel = (SsBudgetKernel){SS_BUDGET_KERNEL_GAUSSIAN, gamma, 0, 0};
  p->C = C;
}

static SsStatus new_trainer(SsBudgetTrainer *tr, const Problem *p, SsBudgetStrategy strategy,
                            int64_t B)
{
  return ss_budget_trainer_init(tr, &p->data, p->y, p->norms2, p->kernel, p->C, strategy, B);
}

static double gauss(const Problem *p, int i, int j)
{
  double d2 = 0;
  for (int k = 0; k < D; ++k) d2 += pow(p->X[i * D + k] - p->X[j * D + k], 2);
  return exp(-p->kernel.gamma * d2);
}

/* Reference: exact cyclic dual coordinate ascent with the full gradient,
 * to a projected-gradient violation below 1e-12; returns D in the lambda scale. */
static double reference_dual(const Problem *p, double *alpha)
{
  static double Q[N * N];
  double g[N]; /* g_i = 1 - (Q alpha)_i */
  for (int i = 0; i < N; ++i) {
    alpha[i] = 0;
    g[i] = 1;
    for (int j = 0; j < N; ++j) Q[i * N + j] = p->y[i] * p->y[j] * gauss(p, i, j);
  }
  for (int sweep = 0; sweep < 100000; ++sweep) {
    double viol = 0;
    for (int i = 0; i < N; ++i) {
      double a = fmin(p->C, fmax(0, alpha[i] + g[i] / Q[i * N + i])), delta = a - alpha[i];
      double pg = alpha[i] <= 0 ? fmax(g[i], 0) : alpha[i] >= p->C ? fmin(g[i], 0) : g[i];
      viol = fmax(viol, fabs(pg));
      if (delta == 0) continue;
      alpha[i] = a;
      for (int j = 0; j < N; ++j) g[j] -= delta * Q[j * N + i];
    }
    if (viol < 1e-12) break;
  }
  double s = 0, q = 0;
  for (int i = 0; i < N; ++i) {
    s += alpha[i];
    q += alpha[i] * (1 - g[i]);
  }
  return (s - 0.5 * q) / (p->C * N);
}

void test_bsca_no_budget_reaches_dual_optimum(void)
{
  Problem p;
  make_problem(&p, 0.5, 2.0);
  double alpha_ref[N];
  double D_ref = reference_dual(&p, alpha_ref);
  SsBudgetTrainer tr;
  REQUIRE(new_trainer(&tr, &p, SS_BUDGET_MERGE, N) == SS_OK);
  double prev = -INFINITY, P = 0, Dv = 0;
  for (int e = 0; e < 300; ++e) {
    REQUIRE(ss_budget_train_epochs(&tr, SS_BUDGET_SOLVER_BSCA, 1, 5) == SS_OK);
    ss_budget_objectives(&tr, &P, &Dv, NULL, NULL);
    CHECK(Dv >= prev - 1e-13 * fabs(Dv)); /* monotone without maintenance */
    CHECK(Dv <= P + 1e-12);
    prev = Dv;
  }
  CHECK_EQ_INT(tr.counts.num_maintenance, 0);
  CHECK_REL(Dv, D_ref, 1e-9);
  CHECK_REL(P, D_ref, 1e-6); /* zero duality gap at the optimum */
  double err = 0;
  for (int i = 0; i < N; ++i) err = fmax(err, fabs(tr.alpha[i] - alpha_ref[i]));
  CHECK_CLOSE(err, 0, 1e-5 * p.C);
  /* the expansion is w(alpha): one term per alpha_i > 0, beta = y alpha */
  int nz = 0;
  for (int i = 0; i < N; ++i) {
    if (tr.alpha[i] > 0) {
      nz++;
      REQUIRE(tr.model.slot_of[i] >= 0);
      CHECK_CLOSE(tr.model.beta[tr.model.slot_of[i]], p.y[i] * tr.alpha[i], 1e-12);
    } else {
      CHECK_EQ_INT(tr.model.slot_of[i], -1);
    }
  }
  CHECK_EQ_INT(tr.model.size, nz);
  ss_budget_trainer_free(&tr);
}

void test_budget_never_exceeded(void)
{
  Problem p;
  make_problem(&p, 1.0, 10.0);
  const SsBudgetStrategy strategies[3] = {SS_BUDGET_MERGE, SS_BUDGET_REMOVE, SS_BUDGET_PROJECT};
  int64_t perm[N];
  for (int i = 0; i < N; ++i) perm[i] = (i * 37) % N;
  for (int solver = 0; solver < 2; ++solver)
    for (int s = 0; s < 3; ++s) {
      SsBudgetTrainer tr;
      REQUIRE(new_trainer(&tr, &p, strategies[s], 7) == SS_OK);
      for (int e = 0; e < 5; ++e)
        for (int k = 0; k < N; ++k) {
          if (solver == 0) ss_bsca_steps(&tr, perm, k, k + 1);
          else ss_bsgd_steps(&tr, perm, k, k + 1);
          CHECK(tr.model.size <= 7);
          for (int j = 0; j < tr.model.size; ++j) CHECK(isfinite(tr.model.beta[j]));
          if (mt_current_failed) break;
        }
      CHECK(tr.counts.num_maintenance > 0);
      if (strategies[s] == SS_BUDGET_MERGE) CHECK(tr.counts.num_merges > 0);
      if (strategies[s] == SS_BUDGET_PROJECT) CHECK(tr.counts.num_projections > 0);
      CHECK_EQ_INT(tr.iteration, 5 * N);
      /* BSCA's alpha stays in the box */
      if (solver == 0)
        for (int i = 0; i < N; ++i) CHECK(tr.alpha[i] >= 0 && tr.alpha[i] <= p.C);
      ss_budget_trainer_free(&tr);
    }
}

void test_budget_split_equals_whole(void)
{
  Problem p;
  make_problem(&p, 1.0, 10.0);
  for (int solver = 0; solver < 2; ++solver) {
    SsBudgetTrainer a, b;
    REQUIRE(new_trainer(&a, &p, SS_BUDGET_MERGE, 10) == SS_OK);
    REQUIRE(new_trainer(&b, &p, SS_BUDGET_MERGE, 10) == SS_OK);
    ss_budget_train_epochs(&a, (SsBudgetSolver)solver, 6, 3);
    ss_budget_train_epochs(&b, (SsBudgetSolver)solver, 2, 3);
    ss_budget_train_epochs(&b, (SsBudgetSolver)solver, 4, 3);
    CHECK_EQ_INT(a.model.size, b.model.size);
    CHECK(memcmp(a.model.beta, b.model.beta, (size_t)a.model.size * sizeof(double)) == 0);
    CHECK(memcmp(a.model.points, b.model.points, (size_t)(a.model.size * D) * sizeof(double)) == 0);
    CHECK_EQ_INT(a.counts.num_merges, b.counts.num_merges);
    ss_budget_trainer_free(&a);
    ss_budget_trainer_free(&b);
  }
}

void test_bsgd_approaches_optimum(void)
{
  Problem p;
  make_problem(&p, 0.5, 2.0);
  double alpha_ref[N];
  double D_ref = reference_dual(&p, alpha_ref);
  SsBudgetTrainer tr;
  REQUIRE(new_trainer(&tr, &p, SS_BUDGET_MERGE, N) == SS_OK);
  double P1, P, Dv;
  ss_budget_train_epochs(&tr, SS_BUDGET_SOLVER_BSGD, 1, 1);
  ss_budget_objectives(&tr, &P1, &Dv, NULL, NULL);
  ss_budget_train_epochs(&tr, SS_BUDGET_SOLVER_BSGD, 199, 1);
  ss_budget_objectives(&tr, &P, &Dv, NULL, NULL);
  CHECK(P >= D_ref - 1e-12); /* weak duality */
  CHECK(P - D_ref < 0.1 * (P1 - D_ref));
  CHECK(P - D_ref < 0.05 * D_ref);
  CHECK_EQ_INT(tr.counts.num_maintenance, 0);
  ss_budget_trainer_free(&tr);
}

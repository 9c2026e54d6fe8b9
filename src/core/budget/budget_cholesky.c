/* budget_cholesky.c -- the Cholesky factor of the budgeted expansion's Gram
 * matrix, kept up to date as terms come and go, for budget maintenance by
 * projection (budget_projection.c; docs/budget.rst).
 *
 * The factor is of K + eps I, K_rs = k(z_term[r], z_term[s]) over the p
 * terms in factor order (term[r] is the expansion slot of factor row r; the
 * expansion reorders its slots on removal, the factor keeps its own order).
 * eps = 1e-10 max_j K_jj, raised 100x until a full factorisation succeeds
 * (at most 8 times), keeps it positive definite for duplicate points and
 * zero vectors. Updates, each O(p^2) instead of the O(p^3) of a new
 * factorisation:
 *
 *   append z:  with k_r = k(z_term[r], z), solve L l = k (forward
 *              substitution, O(p d + p^2)); the new row is
 *              [l^T, sqrt(k(z, z) + eps - l^T l)]. The pivot is >= eps in
 *              exact arithmetic; if it is not positive in floating point the
 *              factor is marked invalid and the next projection factors
 *              again from scratch.
 *   remove r:  with L = [L11 0 0; l21^T l22 0; L31 l32 L33], deleting row and
 *              column r leaves [L11 0; L31 L33'] with
 *              L33' L33'^T = L33 L33^T + l32 l32^T, a rank-one update done
 *              with Givens-like rotations, column by column:
 *                rho = hypot(L_kk, x_k), c = rho / L_kk, s = x_k / L_kk,
 *                L_kk = rho,  L_ik = (L_ik + s x_i) / c,  x_i = c x_i - s L_ik.
 *              An update (adding a square) is backward stable.
 *
 * Anything else that moves a point (merging, clearing) marks the factor
 * invalid.
 */
#include "budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool kernel_equal(const SsBudgetKernel *a, const SsBudgetKernel *b)
{
  return a->kind == b->kind && a->gamma == b->gamma && a->coef0 == b->coef0 &&
         a->degree == b->degree;
}

bool ss_budget_cholesky_alloc(SsBudget *budget)
{
  if (budget->chol) return true;
  const int64_t cap = budget->capacity;
  if ((uint64_t)cap > SIZE_MAX / sizeof(double) / (uint64_t)cap) return false;
  SsBudgetCholesky *c = calloc(1, sizeof(SsBudgetCholesky));
  if (!c) return false;
  c->L = malloc((size_t)cap * (size_t)cap * sizeof(double));
  c->term = malloc((size_t)cap * sizeof(int64_t));
  c->row = malloc((size_t)cap * sizeof(int64_t));
  c->work = malloc((size_t)(2 * cap + budget->dimension) * sizeof(double));
  if (!c->L || !c->term || !c->row || !c->work) {
    free(c->L);
    free(c->term);
    free(c->row);
    free(c->work);
    free(c);
    return false;
  }
  budget->chol = c;
  return true;
}

void ss_budget_cholesky_free(SsBudget *budget)
{
  SsBudgetCholesky *c = budget->chol;
  if (!c) return;
  free(c->L);
  free(c->term);
  free(c->row);
  free(c->work);
  free(c);
  budget->chol = NULL;
}

void ss_budget_cholesky_invalidate(SsBudget *budget)
{
  if (budget->chol) budget->chol->valid = false;
}

/* k(z_j, z_l) for expansion slots j, l. */
static double term_kernel(const SsBudget *budget, const SsBudgetKernel *kernel, int64_t j, int64_t l)
{
  const int64_t d = budget->dimension;
  return ss_budget_kernel_value(kernel, ss_budget_dot(budget->points + j * d, budget->points + l * d, d),
                                budget->norms2[j], budget->norms2[l]);
}

/* Cholesky of K + eps I over the slots in term order, into L; false if a
 * pivot is not positive. */
static bool factor(SsBudgetCholesky *c, const SsBudget *budget, int64_t p, double eps)
{
  const int64_t S = budget->capacity;
  double *L = c->L;
  for (int64_t i = 0; i < p; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      double s = term_kernel(budget, &c->kernel, c->term[i], c->term[j]) + (i == j ? eps : 0.0);
      for (int64_t k = 0; k < j; ++k) s -= L[i * S + k] * L[j * S + k];
      if (i == j) {
        if (!(s > 0) || !isfinite(s)) return false;
        L[i * S + i] = sqrt(s);
      } else {
        L[i * S + j] = s / L[j * S + j];
      }
    }
  }
  return true;
}

bool ss_budget_cholesky_build(SsBudget *budget, const SsBudgetKernel *kernel)
{
  if (!ss_budget_cholesky_alloc(budget)) return false;
  SsBudgetCholesky *c = budget->chol;
  const int64_t p = budget->size;
  c->kernel = *kernel;
  c->size = p;
  for (int64_t j = 0; j < p; ++j) c->term[j] = c->row[j] = j;
  double kmax = 0;
  for (int64_t j = 0; j < p; ++j) kmax = fmax(kmax, fabs(term_kernel(budget, kernel, j, j)));
  double eps = 1e-10 * (kmax > 0 && isfinite(kmax) ? kmax : 1.0);
  c->valid = false;
  for (int tries = 0; tries < 8 && !c->valid; ++tries, eps *= 100) {
    c->eps = eps;
    c->valid = factor(c, budget, p, eps);
  }
  return c->valid;
}

bool ss_budget_cholesky_ready(const SsBudget *budget, const SsBudgetKernel *kernel)
{
  const SsBudgetCholesky *c = budget->chol;
  return c && c->valid && c->size == budget->size && kernel_equal(&c->kernel, kernel);
}

void ss_budget_cholesky_append(SsBudget *budget, int64_t j)
{
  SsBudgetCholesky *c = budget->chol;
  if (!c || !c->valid) return;
  const int64_t p = c->size, S = budget->capacity;
  double *L = c->L, *l = L + p * S;
  for (int64_t r = 0; r < p; ++r) {
    double s = term_kernel(budget, &c->kernel, c->term[r], j);
    for (int64_t k = 0; k < r; ++k) s -= L[r * S + k] * l[k];
    l[r] = s / L[r * S + r];
  }
  double pivot = term_kernel(budget, &c->kernel, j, j) + c->eps;
  for (int64_t k = 0; k < p; ++k) pivot -= l[k] * l[k];
  if (!(pivot > 0) || !isfinite(pivot)) {
    c->valid = false;
    return;
  }
  l[p] = sqrt(pivot);
  c->term[p] = j;
  c->row[j] = p;
  c->size = p + 1;
}

void ss_budget_cholesky_remove(SsBudget *budget, int64_t j)
{
  SsBudgetCholesky *c = budget->chol;
  if (!c || !c->valid) return;
  const int64_t p = c->size, S = budget->capacity, r = c->row[j];
  double *L = c->L, *x = c->work;
  /* x = the column r below the diagonal; rows below r move up, column r goes. */
  for (int64_t i = r + 1; i < p; ++i) {
    x[i - r - 1] = L[i * S + r];
    double *dst = L + (i - 1) * S, *src = L + i * S;
    memmove(dst, src, (size_t)r * sizeof(double));                     /* columns < r */
    memmove(dst + r, src + r + 1, (size_t)(i - r) * sizeof(double));   /* r < columns <= i */
    c->term[i - 1] = c->term[i];
    c->row[c->term[i - 1]] = i - 1;
  }
  /* L33' L33'^T = L33 L33^T + x x^T on rows/columns r .. p - 2. */
  for (int64_t k = r; k < p - 1; ++k) {
    const double Lkk = L[k * S + k], xk = x[k - r];
    const double rho = hypot(Lkk, xk), cs = rho / Lkk, sn = xk / Lkk;
    if (!(rho > 0) || !isfinite(rho) || !isfinite(cs)) {
      c->valid = false;
      c->size = p - 1;
      return;
    }
    L[k * S + k] = rho;
    for (int64_t i = k + 1; i < p - 1; ++i) {
      const double v = (L[i * S + k] + sn * x[i - r]) / cs;
      x[i - r] = cs * x[i - r] - sn * v;
      L[i * S + k] = v;
    }
  }
  c->size = p - 1;
}

void ss_budget_cholesky_move(SsBudget *budget, int64_t from, int64_t to)
{
  SsBudgetCholesky *c = budget->chol;
  if (!c || !c->valid) return;
  c->row[to] = c->row[from];
  c->term[c->row[to]] = to;
}

void ss_budget_cholesky_solve(const SsBudget *budget, double *x)
{
  const SsBudgetCholesky *c = budget->chol;
  const int64_t p = c->size, S = budget->capacity;
  const double *L = c->L;
  for (int64_t i = 0; i < p; ++i) {
    double s = x[i];
    for (int64_t k = 0; k < i; ++k) s -= L[i * S + k] * x[k];
    x[i] = s / L[i * S + i];
  }
  for (int64_t i = p - 1; i >= 0; --i) {
    double s = x[i];
    for (int64_t k = i + 1; k < p; ++k) s -= L[k * S + i] * x[k];
    x[i] = s / L[i * S + i];
  }
}

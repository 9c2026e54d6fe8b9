/* budget_projection.c -- budget maintenance by removal and by projection, for
 * any kernel (Wang, Crammer, Vucetic 2012, sections 4.1-4.2; ALGORITHMS.md
 * section 6).
 *
 * Removal drops the term m of smallest |beta_m|; the model loses
 * beta_m phi(z_m), so the weight degradation is WD = beta_m^2 k(z_m, z_m).
 *
 * Projection drops m too but first spreads beta_m phi(z_m) over the remaining
 * points R: the change d of their coefficients minimising
 *
 *     WD(d) = ||beta_m phi(z_m) - sum_{j in R} d_j phi(z_j)||^2
 *           = beta_m^2 k_mm - 2 beta_m k^T d + d^T K d,
 *
 * with K = [k(z_i, z_j)]_{i,j in R} and k = [k(z_j, z_m)]_{j in R}, solves the
 * normal equations K d = beta_m k. K is positive semi-definite; duplicate
 * points or zero vectors (linear kernel) make it singular, so it is factored
 * by Cholesky as K + eps I with eps = 1e-10 max_j K_jj, grown by 100x until
 * the factorisation succeeds (at most 8 times). The degradation is then
 * evaluated with the un-jittered K, and a solution that is not finite or does
 * worse than removal is replaced by removal. Cost O(B^2 d + B^3) per call.
 */
#include "budget.h"

#include <math.h>
#include <stdlib.h>

void ss_budget_remove_smallest(SsBudget *budget, const SsBudgetKernel *kernel,
                               SsBudgetCounts *counts)
{
  const int64_t m = ss_budget_smallest(budget);
  const double a = budget->beta[m], n2 = budget->norms2[m];
  double kmm = ss_budget_kernel_value(kernel, n2, n2, n2);
  double wd = a * a * kmm;
  ss_budget_remove_term(budget, m);
  counts->num_removals++;
  counts->weight_degradation += (wd > 0 && isfinite(wd)) ? wd : 0.0;
}

/* In-place Cholesky of the p x p matrix A + eps I (lower triangle written
 * into L, row-major); 0 on success, -1 if a pivot is not positive. */
static int cholesky(const double *A, double *L, int64_t p, double eps)
{
  for (int64_t i = 0; i < p; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      double s = A[i * p + j] + (i == j ? eps : 0.0);
      for (int64_t k = 0; k < j; ++k) s -= L[i * p + k] * L[j * p + k];
      if (i == j) {
        if (!(s > 0) || !isfinite(s)) return -1;
        L[i * p + i] = sqrt(s);
      } else {
        L[i * p + j] = s / L[j * p + j];
      }
    }
  }
  return 0;
}

/* Solve L L^T x = rhs in place. */
static void cholesky_solve(const double *L, int64_t p, double *x)
{
  for (int64_t i = 0; i < p; ++i) {
    double s = x[i];
    for (int64_t k = 0; k < i; ++k) s -= L[i * p + k] * x[k];
    x[i] = s / L[i * p + i];
  }
  for (int64_t i = p - 1; i >= 0; --i) {
    double s = x[i];
    for (int64_t k = i + 1; k < p; ++k) s -= L[k * p + i] * x[k];
    x[i] = s / L[i * p + i];
  }
}

void ss_budget_project(SsBudget *budget, const SsBudgetKernel *kernel, SsBudgetCounts *counts)
{
  const int64_t m = ss_budget_smallest(budget), d = budget->dimension;
  const int64_t p = budget->size - 1; /* |R| */
  const double a = budget->beta[m];
  if (p < 1 || a == 0) {
    ss_budget_remove_smallest(budget, kernel, counts);
    return;
  }
  if (!budget->work) {
    const int64_t B = budget->budget;
    if ((uint64_t)B > SIZE_MAX / sizeof(double) / (uint64_t)(B + 3) / 2) {
      ss_budget_remove_smallest(budget, kernel, counts);
      return;
    }
    budget->work = malloc((size_t)B * (size_t)(2 * B + 3) * sizeof(double));
    if (!budget->work) { /* no room for the solve: remove instead */
      ss_budget_remove_smallest(budget, kernel, counts);
      return;
    }
  }
  double *K = budget->work, *Lf = K + p * p, *kv = Lf + p * p, *delta = kv + p;
  /* R in order, skipping m: position r is term r < m ? r : r + 1. */
  const double *zm = budget->points + m * d, nm = budget->norms2[m];
  double kmax = 0;
  for (int64_t r = 0; r < p; ++r) {
    const int64_t jr = r < m ? r : r + 1;
    const double *zr = budget->points + jr * d;
    kv[r] = ss_budget_kernel_value(kernel, ss_budget_dot(zr, zm, d), budget->norms2[jr], nm);
    for (int64_t s = 0; s <= r; ++s) {
      const int64_t js = s < m ? s : s + 1;
      double v = ss_budget_kernel_value(kernel, ss_budget_dot(zr, budget->points + js * d, d),
                                        budget->norms2[jr], budget->norms2[js]);
      K[r * p + s] = K[s * p + r] = v;
    }
    if (fabs(K[r * p + r]) > kmax) kmax = fabs(K[r * p + r]);
  }
  const double kmm = ss_budget_kernel_value(kernel, nm, nm, nm);
  const double wd_remove = a * a * kmm;
  double eps = 1e-10 * (kmax > 0 ? kmax : 1.0);
  int ok = -1;
  for (int tries = 0; tries < 8 && ok != 0; ++tries, eps *= 100) ok = cholesky(K, Lf, p, eps);
  double wd = INFINITY;
  if (ok == 0) {
    for (int64_t r = 0; r < p; ++r) delta[r] = a * kv[r];
    cholesky_solve(Lf, p, delta);
    /* WD = a^2 k_mm - 2 a k^T d + d^T K d, with the un-jittered K. */
    double kd = 0, dKd = 0;
    for (int64_t r = 0; r < p; ++r) {
      kd += kv[r] * delta[r];
      double row = 0;
      for (int64_t s = 0; s < p; ++s) row += K[r * p + s] * delta[s];
      dKd += delta[r] * row;
    }
    wd = a * a * kmm - 2 * a * kd + dKd;
    if (wd < 0) wd = 0;
    for (int64_t r = 0; r < p; ++r)
      if (!isfinite(delta[r])) wd = INFINITY;
  }
  if (!isfinite(wd) || !(wd <= wd_remove)) {
    ss_budget_remove_smallest(budget, kernel, counts);
    return;
  }
  for (int64_t r = 0; r < p; ++r) {
    const int64_t jr = r < m ? r : r + 1;
    budget->beta[jr] += delta[r];
  }
  ss_budget_remove_term(budget, m);
  counts->num_projections++;
  counts->weight_degradation += wd;
}

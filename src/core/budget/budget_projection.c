/* budget_projection.c -- budget maintenance by removal and by projection, for
 * any kernel (Wang, Crammer, Vucetic 2012, sections 4.1-4.2; docs/budget.rst).
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
 * points or zero vectors (linear kernel) make it singular, so K + eps I is
 * used, eps = 1e-10 max_j K_jj grown by 100x until the factorisation
 * succeeds. Its Cholesky factor is kept across calls by budget_cholesky.c:
 * updated when a term is appended or removed (O(B d + B^2)), built from
 * scratch (O(B^2 d + B^3)) only on the first call or after a merge, a clear
 * or a failed update. So a maintenance step costs O(B d + B^2): remove m
 * (the downdate leaves the factor of R), B kernel values k, two triangular
 * solves. The degradation is evaluated with the un-jittered K, and a
 * solution that is not finite or does worse than removal is dropped (plain
 * removal).
 */
#include "budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void ss_budget_project(SsBudget *budget, const SsBudgetKernel *kernel, SsBudgetCounts *counts)
{
  const int64_t m = ss_budget_smallest(budget), d = budget->dimension;
  const int64_t p = budget->size - 1; /* |R| */
  const double a = budget->beta[m];
  if (p < 1 || a == 0) {
    ss_budget_remove_smallest(budget, kernel, counts);
    return;
  }
  /* The factor of all p + 1 terms, kept from earlier calls or built now. */
  if (!ss_budget_cholesky_ready(budget, kernel) && !ss_budget_cholesky_build(budget, kernel)) {
    ss_budget_remove_smallest(budget, kernel, counts); /* no memory, or no factor at any jitter */
    return;
  }
  SsBudgetCholesky *c = budget->chol;
  const int64_t cap = budget->capacity;
  double *rhs = c->work + cap, *zm = c->work + 2 * cap;
  const double nm = budget->norms2[m];
  memcpy(zm, budget->points + m * d, (size_t)d * sizeof(double));
  const double kmm = ss_budget_kernel_value(kernel, nm, nm, nm);
  const double wd_remove = a * a * kmm;
  /* Removing m downdates the factor to that of R (budget_cholesky.c). */
  ss_budget_remove_term(budget, m);
  if (!c->valid) { /* the downdate failed: m is gone, nothing projected */
    counts->num_removals++;
    counts->weight_degradation += (wd_remove > 0 && isfinite(wd_remove)) ? wd_remove : 0.0;
    return;
  }
  /* (K + eps I) delta = a k_m in factor order; then
   * WD = a^2 k_mm - 2 a k^T delta + delta^T K delta, with
   * delta^T K delta = ||L^T delta||^2 - eps ||delta||^2. */
  double kd = 0;
  for (int64_t r = 0; r < p; ++r) {
    const int64_t j = c->term[r];
    rhs[r] = ss_budget_kernel_value(kernel, ss_budget_dot(budget->points + j * d, zm, d),
                                    budget->norms2[j], nm);
  }
  double *delta = c->work; /* the first capacity doubles are free again */
  for (int64_t r = 0; r < p; ++r) delta[r] = a * rhs[r];
  ss_budget_cholesky_solve(budget, delta);
  double dKd = 0, dd = 0;
  bool finite = true;
  for (int64_t r = 0; r < p; ++r) {
    kd += rhs[r] * delta[r];
    double s = 0; /* (L^T delta)_r */
    for (int64_t i = r; i < p; ++i) s += c->L[i * cap + r] * delta[i];
    dKd += s * s;
    dd += delta[r] * delta[r];
    finite = finite && isfinite(delta[r]);
  }
  double wd = a * a * kmm - 2 * a * kd + (dKd - c->eps * dd);
  if (wd < 0) wd = 0;
  if (!finite || !isfinite(wd) || !(wd <= wd_remove)) {
    counts->num_removals++;
    counts->weight_degradation += (wd_remove > 0 && isfinite(wd_remove)) ? wd_remove : 0.0;
    return;
  }
  for (int64_t r = 0; r < p; ++r) budget->beta[c->term[r]] += delta[r];
  counts->num_projections++;
  counts->weight_degradation += wd;
}

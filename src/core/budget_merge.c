/* budget_merge.c -- budget maintenance by merging two expansion points, for the
 * Gaussian kernel k(x, x') = exp(-gamma ||x - x'||^2) (Wang, Crammer, Vucetic
 * 2012, section 4.3; Qaadan, Schueler, Glasmachers; ALGORITHMS.md section 6).
 *
 * Two terms a phi(z_m) + b phi(z_j) of the same sign are replaced by one term
 * beta_z phi(z). For the Gaussian kernel the best z lies on the segment
 * z = h z_m + (1 - h) z_j, h in [0, 1]. With kappa = k(z_m, z_j),
 *
 *     ||z_m - z||^2 = (1 - h)^2 ||z_m - z_j||^2,   so  k(z_m, z) = kappa^((1-h)^2),
 *     ||z_j - z||^2 = h^2 ||z_m - z_j||^2,         so  k(z_j, z) = kappa^(h^2).
 *
 * For fixed z the best coefficient is the projection (k(z, z) = 1)
 *
 *     beta_z(h) = <a phi(z_m) + b phi(z_j), phi(z)> = a kappa^((1-h)^2) + b kappa^(h^2),
 *
 * and the weight degradation is what the projection leaves,
 *
 *     WD(h) = ||a phi(z_m) + b phi(z_j) - beta_z phi(z)||^2
 *           = a^2 + b^2 + 2 a b kappa - beta_z(h)^2.
 *
 * So h maximises |beta_z(h)|, a one-dimensional search done by golden section.
 * |beta_z| may have two local maxima on [0, 1] (far apart points: one near
 * each end), so the search first scans a coarse grid, then runs golden
 * section inside the bracket around the best grid point. Since
 * beta_z(1 - h) - beta_z(h) = (a - b)(kappa^(h^2) - kappa^((1-h)^2)), the
 * maximum lies in [0, 1/2] when |a| <= |b| (the merged point sits nearer the
 * heavier term) and in [1/2, 1] otherwise; only that half is scanned.
 *
 * The merge takes m = argmin |beta| and, among the terms of the same sign,
 * the partner j of least WD (each from a coarse search, the winner's h then
 * refined). Cost: O(B d) for the kernel values kappa_j plus O(B) searches.
 * Most partners are far from z_m and need no search: for |a| <= |b| the
 * maximum lies in [0, 1/2], where kappa^((1-h)^2) <= sqrt(kappa) and
 * kappa^(h^2 + (1-h)^2) <= sqrt(kappa), so
 *
 *     beta_z^2 <= a^2 sqrt(kappa) + 2 |a b| sqrt(kappa) + b^2,
 *     WD >= a^2 (1 - sqrt(kappa)) - 2 |a b| (sqrt(kappa) - kappa) =: LB,
 *
 * and a partner whose LB is not below the best WD found so far is skipped.
 * Without a same-sign partner the term is removed (WD = beta_m^2).
 */
#include "budget.h"

#include <math.h>

/** Coarse grid points on the searched half of [0, 1]. */
#define SS_MERGE_GRID 6
/** Bracket width of the partner search; the winner is refined to 1e-10. */
#define SS_MERGE_SELECT_TOL 1e-3
#define SS_MERGE_FINAL_TOL 1e-10

/* |beta_z(h)| for |a|, |b|, with L = log(kappa) <= 0. */
static inline double merged_abs(double aa, double ab, double L, double h)
{
  return aa * exp((1 - h) * (1 - h) * L) + ab * exp(h * h * L);
}

double ss_merge_golden_section(double a, double b, double kappa, double tol, double *beta_z)
{
  const double aa = fabs(a), ab = fabs(b);
  if (!(kappa > 1e-300)) kappa = 1e-300; /* far apart (or underflow): log stays finite */
  if (kappa > 1) kappa = 1;
  const double L = log(kappa);
  /* The half of [0, 1] holding the maximum, then a coarse scan of it. */
  const double lo0 = aa <= ab ? 0.0 : 0.5, step = 0.5 / (SS_MERGE_GRID - 1);
  int best = 0;
  double best_value = -1;
  for (int g = 0; g < SS_MERGE_GRID; ++g) {
    double v = merged_abs(aa, ab, L, lo0 + g * step);
    if (v > best_value) {
      best_value = v;
      best = g;
    }
  }
  double lo = lo0 + (best > 0 ? best - 1 : 0) * step;
  double hi = lo0 + (best < SS_MERGE_GRID - 1 ? best + 1 : SS_MERGE_GRID - 1) * step;
  /* Golden section on [lo, hi] for the maximum. */
  const double r = 0.6180339887498949; /* (sqrt(5) - 1) / 2 */
  double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
  double f1 = merged_abs(aa, ab, L, x1), f2 = merged_abs(aa, ab, L, x2);
  while (hi - lo > tol) {
    if (f1 >= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - r * (hi - lo);
      f1 = merged_abs(aa, ab, L, x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + r * (hi - lo);
      f2 = merged_abs(aa, ab, L, x2);
    }
  }
  double h = 0.5 * (lo + hi), v = merged_abs(aa, ab, L, h);
  /* Keep the best point seen: the grid point can beat the bracket's middle. */
  double hg = lo0 + best * step;
  if (best_value > v) {
    h = hg;
    v = best_value;
  }
  if (beta_z) *beta_z = (a < 0 || (a == 0 && b < 0)) ? -v : v;
  return h;
}

double ss_merge_coefficient(double a, double b, double kappa, double h)
{
  return a * pow(kappa, (1 - h) * (1 - h)) + b * pow(kappa, h * h);
}

double ss_merge_degradation(double a, double b, double kappa, double h)
{
  double bz = ss_merge_coefficient(a, b, kappa, h);
  double wd = a * a + b * b + 2 * a * b * kappa - bz * bz;
  return wd > 0 ? wd : 0.0;
}

double ss_merge_degradation_bound(double a, double b, double kappa)
{
  const double aa = fmin(fabs(a), fabs(b)), ab = fabs(a * b), r = sqrt(kappa);
  return aa * aa * (1 - r) - 2 * ab * (r - kappa);
}

void ss_budget_merge(SsBudget *budget, const SsBudgetKernel *kernel, SsBudgetCounts *counts)
{
  const int64_t m = ss_budget_smallest(budget), d = budget->dimension;
  const double a = budget->beta[m];
  const double *zm = budget->points + m * d;
  const double gamma = kernel->gamma;
  int64_t best_j = -1;
  double best_wd = INFINITY, best_kappa = 0;
  if (a != 0) {
    for (int64_t j = 0; j < budget->size; ++j) {
      const double b = budget->beta[j];
      if (j == m || !((a > 0 && b > 0) || (a < 0 && b < 0))) continue;
      double d2 = budget->norms2[m] + budget->norms2[j] -
                  2 * ss_budget_dot(zm, budget->points + j * d, d);
      double kappa = exp(-gamma * (d2 > 0 ? d2 : 0.0));
      if (ss_merge_degradation_bound(a, b, kappa) >= best_wd) continue;
      double bz;
      (void)ss_merge_golden_section(a, b, kappa, SS_MERGE_SELECT_TOL, &bz);
      double wd = a * a + b * b + 2 * a * b * kappa - bz * bz;
      if (wd < best_wd) {
        best_wd = wd;
        best_j = j;
        best_kappa = kappa;
      }
    }
  }
  if (best_j < 0) { /* beta_m = 0 or no same-sign partner */
    ss_budget_remove_smallest(budget, kernel, counts);
    return;
  }
  const double b = budget->beta[best_j];
  double bz;
  const double h = ss_merge_golden_section(a, b, best_kappa, SS_MERGE_FINAL_TOL, &bz);
  double wd = a * a + b * b + 2 * a * b * best_kappa - bz * bz;
  /* z = h z_m + (1 - h) z_j overwrites z_j; then z_m goes. */
  double *zj = budget->points + best_j * d, n2 = 0;
  for (int64_t k = 0; k < d; ++k) {
    zj[k] = h * zm[k] + (1 - h) * zj[k];
    n2 += zj[k] * zj[k];
  }
  budget->norms2[best_j] = n2;
  budget->beta[best_j] = bz;
  if (budget->origin[best_j] >= 0 && budget->slot_of) budget->slot_of[budget->origin[best_j]] = -1;
  budget->origin[best_j] = -1;
  ss_budget_remove_term(budget, m);
  counts->num_merges++;
  counts->weight_degradation += wd > 0 ? wd : 0.0;
}

/* budget_merge.c -- budget maintenance by merging two expansion points, for the
 * Gaussian kernel k(x, x') = exp(-gamma ||x - x'||^2) (Wang, Crammer, Vucetic
 * 2012, section 4.3; Qaadan, Schueler, Glasmachers; docs/budget.rst).
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
 *           = a^2 + b^2 + 2 a b kappa - beta_z(h)^2
 *           = a^2 (1 - v^2) + b^2 (1 - u^2) + 2 a b (kappa - u v),
 *
 * u = kappa^(h^2), v = kappa^((1-h)^2); the last form, with each bracket from
 * expm1, keeps its precision when WD is tiny beside a^2 + b^2.
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
 * the partner j of least WD. Searching h for each of the B partners would
 * cost about 35 exponentials each, so the partners are screened first: with
 * mu = |a| / (|a| + |b|) (<= 1/2), min_h WD = a^2 r*(mu, kappa), where
 * r*(mu, kappa) is the optimal degradation of (mu, 1 - mu) divided by mu^2
 * (finite as mu -> 0). r* is tabulated once per expansion on a (101 x 101)
 * grid of [0, 1/2] x [0, 1] by the same golden-section search; bilinear
 * interpolation gives it up to a measured bound eps per cell (twice the
 * largest interpolation error found at the cell's centre and edge
 * midpoints), so WD_j is known up to e_j = a^2 eps. Only partners whose lower
 * estimate WD_j - e_j does not exceed the smallest upper estimate
 * min_k (WD_k + e_k) are searched
 * exactly (golden section to 1e-10), and the best of them is merged. Cost:
 * O(B d) for the kernel values kappa_j, one exponential per partner, and a
 * few searches. Without a same-sign partner the term is removed
 * (WD = beta_m^2).
 *
 * The kernel values kappa_j are nearly always there already: m is then the
 * term just appended from a training row (a new term's |beta| is one step's
 * worth), which the step scored against the same terms a moment before, and
 * that score kept its values (SsBudgetKeptRow, budget_rows.c). They are the
 * numbers the screen would compute (the same inner products over the
 * transposed points, in the same order, through the same exp), so the merge
 * takes them, bit for bit the same merge. BSCA with the bias appends a
 * second scored row after the first one's merge, which removed the last
 * term (no term moved) and rewrote one point: that point's value is stale
 * and computed again, alone, by the blocks' own function (kernel_values). The merges
 * that remove the last term record which point they rewrote (merged_term)
 * for that purpose.
 *
 * On the expansion's threads (SsBudget.threads, a long expansion) the
 * kernel values and the estimates run by blocks of terms, each term's
 * results written to its own entries, and the exact searches one partner to
 * a chunk when the screen keeps two or more (it keeps 1.17 a merge on
 * average on a9a, 1.04 on ijcnn1: mostly one search, on the caller); the bound, the gathering
 * of the partners within it and the choice (the least WD, the first in the
 * order of the terms) are serial, so the merge is the same, bit for bit,
 * whatever the threads. One merge is two jobs at most: the screen, and the
 * searches when there are several.
 */
#include "budget.h"

#include <math.h>
#include <stdlib.h>

/** Coarse grid points on the searched half of [0, 1]. */
#define SS_MERGE_GRID 6
/** Bracket width of the exact searches. */
#define SS_MERGE_TOL 1e-10
/** The table of r*(mu, kappa): mu = i / (2 M), kappa = k / K. */
#define SS_MERGE_TABLE_M 100
#define SS_MERGE_TABLE_K 100

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

/* WD(h) without cancellation: with u = kappa^(h^2), v = kappa^((1-h)^2) and
 * u v = kappa^(1 + 2h^2 - 2h),
 *   WD = a^2 (1 - v^2) + b^2 (1 - u^2) + 2 a b (kappa - u v),
 * each bracket from expm1 (L = log kappa <= 0). */
static double degradation_at(double a, double b, double kappa, double L, double h)
{
  const double one_v2 = -expm1(2 * (1 - h) * (1 - h) * L), one_u2 = -expm1(2 * h * h * L);
  const double k_uv = -kappa * expm1((2 * h * h - 2 * h) * L);
  const double wd = a * a * one_v2 + b * b * one_u2 + 2 * a * b * k_uv;
  return wd > 0 ? wd : 0.0;
}

static double clamp_kappa(double kappa)
{
  return kappa > 1 ? 1.0 : (kappa > 1e-300 ? kappa : 1e-300);
}

double ss_merge_degradation(double a, double b, double kappa, double h)
{
  kappa = clamp_kappa(kappa);
  return degradation_at(a, b, kappa, log(kappa), h);
}

double ss_merge_relative_degradation(double mu, double kappa)
{
  /* r* is smooth in mu down to 0; below 1e-5 the search could not resolve h* ~ mu kappa. */
  if (mu < 1e-5) mu = 1e-5;
  kappa = clamp_kappa(kappa);
  const double h = ss_merge_golden_section(mu, 1 - mu, kappa, SS_MERGE_TOL, NULL);
  return degradation_at(mu, 1 - mu, kappa, log(kappa), h) / (mu * mu);
}

/* The interpolated value inside cell (i, k) at fractions (fx, fy). */
static double table_lookup_value(const double *T, int i, int k, double fx, double fy)
{
  const int K = SS_MERGE_TABLE_K;
  const double *r0 = T + i * (K + 1), *r1 = r0 + (K + 1);
  return (1 - fx) * ((1 - fy) * r0[k] + fy * r0[k + 1]) + fx * ((1 - fy) * r1[k] + fy * r1[k + 1]);
}

/* Bilinear interpolation of the table at (mu, kappa), mu in [0, 1/2], kappa
 * in [0, 1]; writes the error bound of its cell to *err. */
static double table_lookup(const double *T, double mu, double kappa, double *err)
{
  const int M = SS_MERGE_TABLE_M, K = SS_MERGE_TABLE_K;
  const double x = mu * 2 * M, y = kappa * K;
  /* Clamped before the conversion: a NaN (mu = inf / inf when two
   * coefficients overflowed) must not reach (int), which is undefined. */
  const int i = x >= M ? M - 1 : x > 0 ? (int)x : 0;
  const int k = y >= K ? K - 1 : y > 0 ? (int)y : 0;
  *err = T[(M + 1) * (K + 1) + i * K + k];
  return table_lookup_value(T, i, k, x - i, y - k);
}

bool ss_merge_table_build(SsBudget *budget)
{
  if (budget->merge_table) return true;
  const int M = SS_MERGE_TABLE_M, K = SS_MERGE_TABLE_K;
  /* (M + 1) x (K + 1) values, then M x K error bounds of the cells */
  double *T = malloc(((size_t)(M + 1) * (K + 1) + (size_t)M * K) * sizeof(double));
  if (!T) return false;
  for (int i = 0; i <= M; ++i)
    for (int k = 0; k <= K; ++k)
      T[i * (K + 1) + k] = ss_merge_relative_degradation((double)i / (2 * M), (double)k / K);
  /* The error bound of a cell: twice the largest interpolation error seen at
   * its centre and edge midpoints, plus the search tolerance's share. */
  double *E = T + (M + 1) * (K + 1);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      static const double probes[5][2] = {{0.5, 0.5}, {0.5, 0}, {0, 0.5}, {1, 0.5}, {0.5, 1}};
      double eps = 0;
      for (int p = 0; p < 5; ++p) {
        const double mu = (i + probes[p][0]) / (2 * M), kappa = (k + probes[p][1]) / K;
        const double r = ss_merge_relative_degradation(mu, kappa);
        eps = fmax(eps, fabs(r - table_lookup_value(T, i, k, probes[p][0], probes[p][1])));
      }
      E[i * K + k] = 2 * eps + 1e-12;
    }
  budget->merge_table = T;
  return true;
}

/* A merge's partner search for term m (coefficient a != 0). The screen,
 * by blocks of SS_BUDGET_BLOCK terms, finds per term j the kernel value
 * kappa[j] = k(z_m, z_j) (-1: not a partner) and, with the table, the
 * estimate lower[j] <= WD_j <= upper_j; per block b, the least upper_j of
 * its partners, block_bound[b] (INFINITY: none), and the list of its
 * partners whose lower estimate does not exceed block_bound[b], at
 * partners[j0 ...] (j0 the block's first term), block_count[b] of them.
 * The least upper bound of all blocks is at most any block's, so these
 * lists hold every partner the merge searches (lower_j <= the bound). A
 * term's results depend on that term alone, and a block's on its terms, so
 * the blocks may run on any thread. The exact searches (golden section to
 * SS_MERGE_TOL) write h[j], bz[j] and wd[j] of the partners listed in
 * partners[0 .. count), one partner to a chunk. */
typedef struct PartnerSearch {
  const SsBudget *budget;
  int64_t m;
  double a, gamma;
  bool screened;
  const double *kept; /* m's kernel values kept by its row's score (budget.h), or NULL */
  int64_t stale;      /* the one of them a merge has made stale since, or -1 */
  double *kappa, *lower, *wd, *h, *bz, *block_bound;
  int64_t *partners, *block_count;
} PartnerSearch;

/* Blocks [begin, end) of the screen: the kernel values of the terms of a's
 * sign (the inner products with the block's terms at once over the
 * transposed points, one nonzero coordinate of z_m at a time -- a training
 * row of a9a has 14 of 123, a merged point the union of its rows' -- then
 * the kernel values as a block, budget_kernel.c), with the table the
 * interval estimate of their degradation, and the block's list. */
/* kappa[j] = k(z_m, z_j) for terms j0 .. j1 - 1: the inner products at
 * once over the transposed points, one nonzero coordinate of z_m at a time,
 * then the Gaussian values as a block (budget_kernel.c). Each value is
 * computed alone, so one term's is the same whatever the range around it. */
static void kernel_values(const PartnerSearch *p, int64_t j0, int64_t j1)
{
  const SsBudget *budget = p->budget;
  const int64_t d = budget->dimension, cap = budget->capacity;
  const double *zm = budget->points + p->m * d;
  double *kappa = p->kappa + j0;
  for (int64_t j = j0; j < j1; ++j) p->kappa[j] = 0;
  for (int64_t k = 0; k < d; ++k)
    if (zm[k] != 0) ss_budget_add_scaled(kappa, budget->columns + k * cap + j0, j1 - j0, zm[k]);
  ss_budget_gaussian_of_dots(kappa, budget->norms2 + j0, j1 - j0, budget->norms2[p->m], p->gamma);
}

static void screen_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* each block writes its own terms' entries */
  const PartnerSearch *p = context;
  const SsBudget *budget = p->budget;
  const double a = p->a;
  for (int64_t b = begin; b < end; ++b) {
    const int64_t j0 = b * SS_BUDGET_BLOCK, j1 = ss_budget_block_end(b, budget->size);
    if (p->kept) { /* m's kernel values from its row's score; kappa[m] is set below */
      for (int64_t j = j0; j < j1; ++j) p->kappa[j] = j < p->m ? p->kept[j] : 0;
      if (p->stale >= j0 && p->stale < j1) kernel_values(p, p->stale, p->stale + 1);
    } else {
      kernel_values(p, j0, j1);
    }
    double bound = INFINITY;
    for (int64_t j = j0; j < j1; ++j) {
      const double bj = budget->beta[j];
      if (j == p->m || !((a > 0 && bj > 0) || (a < 0 && bj < 0))) p->kappa[j] = -1;
      if (!p->screened || p->kappa[j] < 0) continue;
      double eps;
      const double r =
          table_lookup(budget->merge_table, fabs(a) / (fabs(a) + fabs(bj)), p->kappa[j], &eps);
      const double wd = a * a * r, e = a * a * eps;
      p->lower[j] = wd - e;
      if (wd + e < bound) bound = wd + e;
    }
    p->block_bound[b] = bound;
    int64_t count = 0;
    for (int64_t j = j0; j < j1; ++j)
      if (!(p->kappa[j] < 0) && (!p->screened || !(p->lower[j] > bound)))
        p->partners[j0 + count++] = j;
    p->block_count[b] = count;
  }
}

/* Chunks [begin, end): the exact searches of partners[begin .. end). */
static void search_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* each partner writes its own entries */
  const PartnerSearch *p = context;
  for (int64_t c = begin; c < end; ++c) {
    const int64_t j = p->partners[c];
    const double bj = p->budget->beta[j];
    p->h[j] = ss_merge_golden_section(p->a, bj, p->kappa[j], SS_MERGE_TOL, &p->bz[j]);
    p->wd[j] = ss_merge_degradation(p->a, bj, p->kappa[j], p->h[j]);
  }
}

void ss_budget_merge(SsBudget *budget, const SsBudgetKernel *kernel, SsBudgetCounts *counts)
{
  const int64_t m = ss_budget_smallest(budget), d = budget->dimension, size = budget->size;
  const double a = budget->beta[m];
  const double *zm = budget->points + m * d;
  const bool screened = ss_merge_table_build(budget);
  double *scratch = budget->scratch;
  PartnerSearch p = {.budget = budget, .m = m, .a = a, .gamma = kernel->gamma,
                     .screened = screened, .kappa = scratch, .lower = scratch + size,
                     .wd = scratch + 2 * size, .h = scratch + 3 * size, .bz = scratch + 4 * size,
                     .block_bound = scratch + 5 * size, .partners = budget->partners,
                     .block_count = budget->block_scratch};
  p.kept = ss_budget_kept_values(budget, m, kernel->gamma, &p.stale);
  int64_t best_j = -1;
  double best_wd = INFINITY, best_h = 0, best_bz = 0;
  if (a != 0) {
    /* The screen (on the expansion's threads when it is long), the bound,
     * the partners within it gathered in the order of the terms, their
     * searches (one to a chunk: on the threads when there are two or
     * more), then the least degradation, the first in the order of the
     * terms. */
    SsThreadPool *pool = ss_budget_pool(budget->threads, size);
    const int64_t num_blocks = ss_budget_num_blocks(size);
    ss_parallel_for(pool, num_blocks, screen_chunks, &p);
    double bound = INFINITY;
    for (int64_t b = 0; screened && b < num_blocks; ++b)
      if (p.block_bound[b] < bound) bound = p.block_bound[b];
    int64_t count = 0; /* partners[count] is never past the entry it takes */
    for (int64_t b = 0; b < num_blocks; ++b)
      for (int64_t c = 0; c < p.block_count[b]; ++c) {
        const int64_t j = p.partners[b * SS_BUDGET_BLOCK + c];
        if (!screened || !(p.lower[j] > bound)) p.partners[count++] = j;
      }
    ss_parallel_for(pool, count, search_chunks, &p);
    for (int64_t c = 0; c < count; ++c) {
      const int64_t j = p.partners[c];
      if (p.wd[j] < best_wd) {
        best_wd = p.wd[j];
        best_j = j;
        best_h = p.h[j];
        best_bz = p.bz[j];
      }
    }
  }
  if (best_j < 0) { /* beta_m = 0 or no same-sign partner */
    ss_budget_remove_smallest(budget, kernel, counts);
    return;
  }
  const double h = best_h, bz = best_bz, wd = best_wd;
  /* z = h z_m + (1 - h) z_j overwrites z_j; then z_m goes. */
  ss_budget_cholesky_invalidate(budget);
  double *zj = budget->points + best_j * d, n2 = 0;
  for (int64_t k = 0; k < d; ++k) {
    zj[k] = h * zm[k] + (1 - h) * zj[k];
    n2 += zj[k] * zj[k];
  }
  budget->norms2[best_j] = n2;
  const int64_t changes_before = budget->changes;
  ss_budget_point_changed(budget, best_j);
  budget->beta[best_j] = bz;
  if (budget->origin[best_j] >= 0 && budget->slot_of) budget->slot_of[budget->origin[best_j]] = -1;
  budget->origin[best_j] = -1;
  ss_budget_remove_term(budget, m);
  if (m == size - 1) { /* no term moved: a row kept before the merge is stale at best_j only */
    budget->merged_term = best_j;
    budget->merged_from = changes_before;
    budget->merged_to = budget->changes;
  }
  counts->num_merges++;
  counts->weight_degradation += wd > 0 ? wd : 0.0;
}

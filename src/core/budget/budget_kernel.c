/* budget_kernel.c -- the kernel k(x, x') of a budgeted expansion from an
 * inner product and two squared norms (budget.h), one value at a time or a
 * block of Gaussian values at once. The lowest primitive of budget/: the
 * store, the Cholesky factor, merging and projection all use it and it
 * calls nothing.
 *
 * The block form is where BSCA's time goes: scoring a point against the B
 * terms and a merge's partner search are B Gaussian values each. One at a
 * time, each is a sparse inner product (gathers from z_j) and libm's exp,
 * an opaque call. In blocks, the inner products with all terms are
 * contiguous multiply-adds over the transposed points, one nonzero
 * coordinate at a time (ss_budget_add_scaled), and the values come from
 * ss_vexp (common/vexp.h: within 1e-15 relative of exp, no call): both
 * loops are SIMD code (SS_VECTOR_CLONES adds AVX2 and AVX-512 copies).
 */
#include "budget.h"
#include "../common/vexp.h"

#include <math.h>

double ss_budget_kernel_value(const SsBudgetKernel *kernel, double dot, double nx, double nz)
{
  switch (kernel->kind) {
    case SS_BUDGET_KERNEL_GAUSSIAN: {
      double d2 = nx + nz - 2.0 * dot;
      return exp(-kernel->gamma * (d2 < 0 ? 0.0 : d2));
    }
    case SS_BUDGET_KERNEL_POLYNOMIAL: return pow(kernel->gamma * dot + kernel->coef0, kernel->degree);
    case SS_BUDGET_KERNEL_SIGMOID: return tanh(kernel->gamma * dot + kernel->coef0);
    case SS_BUDGET_KERNEL_LINEAR:
    default: return dot;
  }
}

SS_VECTOR_CLONES static void gaussian_of_dots(double *v, const double *norms2, int64_t len,
                                             double nx, double gamma)
{
  for (int64_t j = 0; j < len; ++j) {
    const double d2 = norms2[j] + nx - 2.0 * v[j];
    v[j] = ss_vexp(-gamma * (d2 < 0 ? 0.0 : d2));
  }
}

void ss_budget_gaussian_of_dots(double *v, const double *norms2, int64_t len, double nx, double gamma)
{
  gaussian_of_dots(v, norms2, len, nx, gamma);
}

SS_VECTOR_CLONES static void add_scaled(double *out, const double *column, int64_t len, double x)
{
  for (int64_t l = 0; l < len; ++l) out[l] += x * column[l];
}

void ss_budget_add_scaled(double *out, const double *column, int64_t len, double x)
{
  add_scaled(out, column, len, x);
}

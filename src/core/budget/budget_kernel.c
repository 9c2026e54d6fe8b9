/* budget_kernel.c -- the kernel k(x, x') of a budgeted expansion from an
 * inner product and two squared norms (budget.h). The lowest primitive of
 * budget/: the store, the Cholesky factor, merging and projection all use
 * it and it calls nothing. */
#include "budget.h"

#include <math.h>

double ss_budget_kernel_value(const SsBudgetKernel *kernel, double dot, double nx, double nz)
{
  switch (kernel->kind) {
    case SS_BUDGET_KERNEL_GAUSSIAN: {
      double d2 = nx + nz - 2.0 * dot;
      return exp(-kernel->gamma * (d2 > 0 ? d2 : 0.0));
    }
    case SS_BUDGET_KERNEL_POLYNOMIAL: return pow(kernel->gamma * dot + kernel->coef0, kernel->degree);
    case SS_BUDGET_KERNEL_SIGMOID: return tanh(kernel->gamma * dot + kernel->coef0);
    case SS_BUDGET_KERNEL_LINEAR:
    default: return dot;
  }
}

/* budget_maintain.c -- the budget maintenance policy of BSCA and BSGD
 * (docs/budget.rst): when an expansion holds B + 1 terms, shrink it back to
 * B by merging, removal or projection. The top of the maintenance files:
 * it calls budget_merge.c and budget_projection.c, which work on the store
 * (budget_expansion.c), which keeps the factor (budget_cholesky.c) in step;
 * none of them calls back up. */
#include "budget.h"

void ss_budget_maintain(SsBudget *budget, SsBudgetStrategy strategy,
                        const SsBudgetKernel *kernel, SsBudgetCounts *counts)
{
  if (budget->size <= budget->budget) return;
  counts->num_maintenance++;
  switch (strategy) {
    case SS_BUDGET_MERGE: ss_budget_merge(budget, kernel, counts); break;
    case SS_BUDGET_PROJECT: ss_budget_project(budget, kernel, counts); break;
    case SS_BUDGET_REMOVE:
    default: ss_budget_remove_smallest(budget, kernel, counts); break;
  }
}

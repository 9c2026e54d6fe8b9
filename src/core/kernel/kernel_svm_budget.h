/* kernel_svm_budget.h -- BSCA and BSGD as solvers of the kernel SVM object
 * (kernel_svm_budget.c): the state they keep in SsKernelSvm.state and the
 * operations of their ops tables. Private. The object sits above the
 * budget/ layer, which knows nothing of it (docs/dev/architecture.md). */
#ifndef STOCHSVM_KERNEL_SVM_BUDGET_H
#define STOCHSVM_KERNEL_SVM_BUDGET_H

#include "../budget/budget_train.h"
#include "kernel_internal.h"

/** The state a budgeted solver keeps in SsKernelSvm.state. */
typedef struct SsBudgetSolverState {
  SsBudgetTrainer trainer;
  int64_t *rows;          /**< [capacity] 0, 1, ..., capacity - 1 (rows of the model copy) */
  double solver_seconds;  /**< thread CPU time spent in steps */
  double dual_estimate;   /**< BSCA after budget maintenance: D~ of the last diagnostic, an
                               estimate that is not a dual value (its statistics' dual is
                               NaN); NaN otherwise */
} SsBudgetSolverState;

/** The operations shared by BSCA and BSGD (see SsKernelSolverOps). */
SsStatus ss_budget_solver_start(SsKernelSvm *self);
SsStatus ss_budget_solver_evaluate(SsKernelSvm *self, double *scores, double *norm2,
                                   bool *have_scores);
void ss_budget_solver_free_state(SsKernelSvm *self);
/** Run iterations [t, t_end) of one epoch with @p steps (ss_bsca_steps or
 *  ss_bsgd_steps), timing them and counting kernel evaluations. */
SsStatus ss_budget_solver_run(SsKernelSvm *self, int64_t t, int64_t t_end,
                              void (*steps)(SsBudgetTrainer *, const int64_t *, int64_t, int64_t));
/** The budgeted solver's model is full (B points) and has outgrown its
 *  budget at least once (maintenance has changed it): the run driver's
 *  budget rule may apply. Never with B >= n. */
bool ss_kernel_budget_full(const SsKernelSvm *self);
/** BSCA's estimate D~ of the dual at the last diagnostic when budget
 *  maintenance has changed its model (w~ != w(alpha)), for the run driver's
 *  budget rule (SsRunMeasure.dual_estimate); NaN for every other solver and
 *  while D~ is the true dual, which the statistics report. */
double ss_kernel_budget_dual_estimate(const SsKernelSvm *self);
/** CPU seconds of the calling thread (wall clock where unavailable). */
double ss_budget_thread_seconds(void);

#endif /* STOCHSVM_KERNEL_SVM_BUDGET_H */

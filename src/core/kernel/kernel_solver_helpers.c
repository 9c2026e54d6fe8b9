/* kernel_solver_helpers.c -- what the kernel solvers (sbp.c, kernel_sdca.c,
 * support_list.c, the budgeted adapter kernel_svm_budget.c) read from the
 * SsKernelSvm object: the box C of an example, the effective SBP step eta0,
 * and scores of a kernel expansion on the training rows.
 *
 * Layer: below the object (kernel_svm.c), which dispatches to the solvers;
 * it calls only kernel.c and common/, so no solver calls the object back
 * (docs/dev/architecture.md).
 */
#include "kernel_internal.h"

#include <float.h>

double ss_kernel_svm_box(const SsKernelSvm *self)
{
  /* 1/(lambda n) without overflowing lambda n: for lambda near DBL_MAX the
   * product was inf, C = 0, and the budgeted solvers refused to train
   * (SS_ERR_BAD_ARG). The smallest positive double stands for an underflow. */
  const double C = 1.0 / self->lambda / (double)self->num_data;
  return C > 0 ? C : DBL_TRUE_MIN;
}

double ss_kernel_svm_effective_eta0(const SsKernelSvm *self)
{
  if (self->eta0 > 0) return self->eta0;
  if (!self->has_data) return 0.0;
  double max_diagonal = 0;
  for (int64_t i = 0; i < self->num_data; ++i) {
    if (self->diagonal[i] > max_diagonal) max_diagonal = self->diagonal[i];
  }
  return max_diagonal > 0 ? 1.0 / sqrt(max_diagonal) : 1.0;
}

double ss_kernel_svm_expansion_score(SsKernelSvm *self, const int64_t *rows, const double *coef,
                                     int64_t m, int64_t i)
{
  if (m == 0) return 0.0;
  const SsData *X = &self->data;
  ss_data_scatter_row(X, i, self->zd);
  ss_kernel_row_threads(&self->kernel, X, self->norms2, rows, m, self->zd, self->norms2[i],
                        self->krow, self->threads);
  ss_data_clear_row(X, i, self->zd);
  const double *k = self->krow;
  double s0 = 0, s1 = 0;
  int64_t j = 0;
  for (; j + 2 <= m; j += 2) {
    s0 += coef[j] * k[j];
    s1 += coef[j + 1] * k[j + 1];
  }
  if (j < m) s0 += coef[j] * k[j];
  return s0 + s1;
}

void ss_kernel_svm_expansion_scores(SsKernelSvm *self, const int64_t *rows, const double *coef,
                                    int64_t m, double *scores)
{
  for (int64_t i = 0; i < self->num_data; ++i) {
    scores[i] = ss_kernel_svm_expansion_score(self, rows, coef, m, i);
  }
}

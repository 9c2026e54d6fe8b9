/* kernel_sdca.c -- kernel dual coordinate ascent without bias (Hsieh et al.
 * 2008, kernelized; the paper's SDCA baseline, its equation 4.1).
 *
 * Dual box QP, C = 1/(lambda n), Q_ij = y_i y_j K(x_i, x_j), per-example
 * weights c_i >= 0 (default 1):
 *
 *     max_alpha  D(alpha) = lambda (1'alpha - 1/2 alpha'Q alpha),  0 <= alpha_i <= c_i C
 *     w = sum_i alpha_i y_i phi(x_i)
 *
 * Step on the example i visited at iteration t (epoch permutation):
 *
 *     f_i   = sum_{j: alpha_j > 0} alpha_j y_j K(x_j, x_i)   (one kernel per support vector)
 *     G     = y_i f_i - 1                                    (the partial gradient of -D/lambda)
 *     alpha_i <- clip(alpha_i - G / Q_ii, 0, c_i C)          (exact coordinate maximiser)
 *
 * (Q_ii = 0: alpha_i goes to c_i C if G < 0, to 0 if G > 0.) This is the dual
 * of the weighted primal P(w) = lambda/2 ||w||^2 + 1/n sum_i c_i hinge_i: the
 * conjugate of c_i hinge caps alpha_i at c_i C, and a weight of 2 is the
 * box of an example listed twice (same C). The responses are
 * computed on demand over the support vectors, as in the paper, rather than
 * kept for all n examples. The primal P(w) and D(alpha) give the duality
 * gap, the stopping rule (gap < epsilon) at diagnostics.
 */
#include "kernel_internal.h"

static SsStatus sdca_steps(SsKernelSvm *self, int64_t t, int64_t t_end)
{
  SsSupportList *list = self->state;
  const double C = ss_kernel_svm_box(self);
  double *alpha = self->dual;
  for (; t < t_end; ++t) {
    int64_t i;
    const double f = ss_support_list_visit(self, list, t, &i);
    const double y = self->labels[i];
    const double G = y * f - 1.0;
    const double Q = self->diagonal[i];
    const double old = alpha[i];
    const double Ci = C * ss_kernel_svm_weight(self, i);
    double a;
    if (Q > 0) {
      a = old - G / Q;
      a = a < 0 ? 0 : (a > Ci ? Ci : a);
    } else {
      a = G < 0 ? Ci : (G > 0 ? 0 : old);
    }
    if (a != old) {
      if (!isfinite(a)) {
        self->iteration = t + 1;
        return SS_ERR_NUMERIC;
      }
      alpha[i] = a;
      ss_support_list_set(list, i, a * y);
    }
  }
  self->iteration = t_end;
  return SS_OK;
}

static SsStatus sdca_evaluate(SsKernelSvm *self, double *scores, double *norm2, bool *have_scores)
{
  SsStatus status = ss_support_list_evaluate(self, self->state, 1.0, scores, norm2, have_scores);
  if (status != SS_OK) return status;
  double sum_alpha = 0;
  for (int64_t i = 0; i < self->num_data; ++i) sum_alpha += self->dual[i];
  self->statistics.dual_objective = self->lambda * (sum_alpha - 0.5 * *norm2);
  return SS_OK;
}

SsStatus ss_kernel_sdca_start_from(SsKernelSvm *self, const double *alpha)
{
  if (self->ops != &ss_kernel_sdca_ops || self->state || !alpha) return SS_ERR_BAD_STATE;
  SsStatus status = ss_support_solver_start(self);
  if (status != SS_OK) return status;
  const double C = ss_kernel_svm_box(self);
  for (int64_t i = 0; i < self->num_data; ++i) {
    const double Ci = C * ss_kernel_svm_weight(self, i);
    const double a = alpha[i] < 0 ? 0 : (alpha[i] > Ci ? Ci : alpha[i]);
    if (a > 0) {
      self->dual[i] = a;
      ss_support_list_set(self->state, i, a * self->labels[i]);
    }
  }
  return SS_OK;
}

SsStatus ss_kernel_sdca_adopt(SsKernelSvm *self, const double *alpha)
{
  if (self->ops != &ss_kernel_sdca_ops || !alpha) return SS_ERR_BAD_STATE;
  const int64_t iteration = self->iteration;
  self->ops->free_state(self);
  SsStatus status = ss_kernel_sdca_start_from(self, alpha);
  self->iteration = iteration;
  return status;
}

const SsKernelSolverOps ss_kernel_sdca_ops = {
  .uses_permutation = true,
  .criterion = SS_RUN_RELATIVE_GAP,
  .may_diverge = false,
  .start = ss_support_solver_start,
  .steps = sdca_steps,
  .evaluate = sdca_evaluate,
  .write_model = ss_support_solver_write_model,
  .free_state = ss_support_solver_free_state,
};

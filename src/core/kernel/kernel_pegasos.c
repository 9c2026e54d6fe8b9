/* kernel_pegasos.c -- kernel Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter
 * 2011, the kernelized variant; the paper's Pegasos baseline, no projection).
 *
 * Primal P(w) = lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i <w, phi(x_i)>)
 * with per-example weights c_i >= 0 (default 1), learning rate 1/(lambda t);
 * w_t = 1/(lambda t) sum_j alpha_j y_j phi(x_j) with counts alpha (integers
 * without weights):
 *
 *     for t = 1..T:  i = the example of iteration t (epoch permutation)
 *         if y_i / (lambda t) sum_j alpha_j y_j K(x_j, x_i) < 1:  alpha_i += c_i
 *     w = 1/(lambda T) sum_j alpha_j y_j phi(x_j)
 *
 * (the subgradient of c_i hinge_i is c_i times that of hinge_i). Uniform
 * weights k give the iterates of lambda / k without weights.
 *
 * Each step costs one kernel evaluation per support vector (alpha_j > 0).
 * A run stopped on its cap returns the best model t w_T, t >= 0, on the ray
 * through its last iterate (kernel_ray.c): never one above the zero model's
 * objective.
 */
#include "kernel_internal.h"

static SsStatus pegasos_steps(SsKernelSvm *self, int64_t t, int64_t t_end)
{
  SsSupportList *list = self->state;
  for (; t < t_end; ++t) {
    int64_t i;
    const double f = ss_support_list_visit(self, list, t, &i);
    const double y = self->labels[i];
    const double c = ss_kernel_svm_weight(self, i);
    if (c > 0 && y * f / (self->lambda * (double)(t + 1)) < 1.0) {
      self->dual[i] += c;
      ss_support_list_set(list, i, self->dual[i] * y);
    }
  }
  self->iteration = t_end;
  return SS_OK;
}

/* w_t = 1/(lambda t) sum_k coef[k] K(x_rows[k], .) */
static double pegasos_scale(const SsKernelSvm *self)
{
  return 1.0 / (self->lambda * (double)(self->iteration > 0 ? self->iteration : 1));
}

static SsStatus pegasos_write_model(SsKernelSvm *self)
{
  return ss_support_list_write_model(self, self->state, pegasos_scale(self));
}

static SsStatus pegasos_evaluate(SsKernelSvm *self, double *scores, double *norm2,
                                 bool *have_scores)
{
  const double scale = pegasos_scale(self);
  const SsStatus status = ss_support_list_evaluate(self, self->state, scale, scores, norm2, have_scores);
  if (status == SS_OK && *have_scores) ss_kernel_close_on_ray(self, scores, norm2);
  return status;
}

const SsKernelSolverOps ss_kernel_pegasos_ops = {
  .uses_permutation = true,
  .criterion = SS_RUN_OBJECTIVE_WINDOW,
  .may_diverge = true,
  .start = ss_support_solver_start,
  .steps = pegasos_steps,
  .evaluate = pegasos_evaluate,
  .write_model = pegasos_write_model,
  .free_state = ss_support_solver_free_state,
};

/* perceptron.c -- the online kernel Perceptron (Rosenblatt; the paper's
 * section 4.5 baseline). It optimises no objective: on a mistake the
 * example joins the expansion,
 *
 *     f(x) = sum_j alpha_j y_j K(x_j, x);   if y_i f(x_i) <= 0:  alpha_i += c_i
 *
 * with per-example weights c_i >= 0 (default 1): a weighted example moves
 * the expansion c_i times as far, and a weight of 0 never enters it.
 *
 * visiting the examples in epoch permutations. One pass is the algorithm the
 * paper analyses; further passes may overfit. Each step costs one kernel
 * evaluation per support vector.
 */
#include "kernel_internal.h"

static SsStatus perceptron_steps(SsKernelSvm *self, int64_t t, int64_t t_end)
{
  SsSupportList *list = self->state;
  for (; t < t_end; ++t) {
    int64_t i;
    const double f = ss_support_list_visit(self, list, t, &i);
    const double y = self->labels[i];
    const double c = ss_kernel_svm_weight(self, i);
    if (c > 0 && y * f <= 0) {
      self->dual[i] += c;
      ss_support_list_set(list, i, self->dual[i] * y);
    }
  }
  self->iteration = t_end;
  return SS_OK;
}

static SsStatus perceptron_evaluate(SsKernelSvm *self, double *scores, double *norm2,
                                    bool *have_scores)
{
  return ss_support_list_evaluate(self, self->state, 1.0, scores, norm2, have_scores);
}

const SsKernelSolverOps ss_perceptron_ops = {
  .uses_permutation = true,
  .criterion = SS_RUN_NO_RULE,
  .may_diverge = false,
  .start = ss_support_solver_start,
  .steps = perceptron_steps,
  .evaluate = perceptron_evaluate,
  .write_model = ss_support_solver_write_model,
  .free_state = ss_support_solver_free_state,
};

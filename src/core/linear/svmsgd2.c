/* svmsgd2.c -- SVMSGD2 (Bordes, Bottou, Gallinari, "SGD-QN: Careful
 * quasi-Newton stochastic gradient descent", JMLR 10, 2009, Figure 1;
 * docs/sgdqn.rst). SGD whose regularizer is a special example
 * applied every `skip` iterations, so that a sparse step costs O(nnz).
 *
 * Objective (the object's, svm.h), with the bias b = B w_b of a constant
 * feature B (the bias multiplier):
 *
 *     E(w, b) = lambda/2 (||w||^2 + w_b^2) + 1/n sum_i c_i loss(y_i, <w, x_i> + b).
 *
 * The loss is the object's: hinge, squared hinge max(0, 1 - z)^2 (no factor
 * 1/2: the paper's 1/2 max(0, 1 - z)^2 at lambda is ours at 2 lambda, up to
 * the factor 2 on E), logistic, or any other (svm.h). Iteration t (counted
 * over the object's life) visits example i = perm_e[t mod n] of epoch
 * e = t / n (epochs.c). With g = c_i loss'(y_i, s_i), s_i = <w, x_i> + b,
 * and eta_t = 1 / (lambda (t + t0)):
 *
 *     w   <- w   - eta_t g x_i                     (sparse: O(nnz(x_i)))
 *     w_b <- w_b - r_b eta_t g B                   (r_b: bias learning rate)
 *     if (t + 1) mod skip = 0:                     (the paper's count reaching 0)
 *         w   <- w   - skip/(t + t0) w             (= skip eta_t lambda w: O(d))
 *         w_b <- w_b - r_b skip/(t + t0) w_b
 *
 * i.e. the paper's lines 3 and 6 with count = skip - (t mod skip). The count
 * is a function of t, so training N iterations equals N/2 and then N/2 more
 * bit for bit, and a fresh object given model, bias and iteration number
 * continues the same schedule. skip = 1 is plain SGD with the O(d)
 * shrink at every step (the paper's naive baseline). Shrinks by
 * 1 - skip/(t + t0) stay >= 0 when t0 >= skip, which the default t0 ensures
 * (svm.h, ss_svm_set_t0). The stopping rule and the diagnostics are SGD's
 * (sgd.c).
 */
#include "svm_internal.h"
#include "../common/loss.h"
#include "step_guard.h"

#define SS_STEPS_TEMPLATE "svmsgd2_steps_t.h"
#define SS_STEPS_PREFIX svmsgd2_steps
#include "steps_kinds.h"

SsStepsFunction ss_svmsgd2_steps(const SsDataSource *source)
{
  return svmsgd2_steps_select(source);
}

SsStatus ss_svmsgd2_train(SsSvm *self)
{
  ss_svm_fold_factor(self);
  return ss_run_epochs(self, svmsgd2_steps_select(&self->source));
}

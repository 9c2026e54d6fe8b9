/* sgd.c -- Pegasos-style stochastic gradient descent (VLFeat's SGD;
 * Shalev-Shwartz et al., Pegasos; the math: docs/algorithm.rst).
 *
 * Minimises, with the bias b = B w_b of a constant feature B,
 *
 *     E(w, b) = lambda/2 (||w||^2 + w_b^2) + 1/n sum_i c_i loss(y_i, <w, x_i> + b).
 *
 * Iteration t (counted over the object's whole life, warm start included)
 * visits example i = perm_e[t mod n] of epoch e = t / n, where perm_e is a
 * permutation that depends on (seed, e) only, and with g = c_i loss'(s_i)
 * takes the step on E_i = lambda/2 ||w~||^2 + c_i loss_i:
 *
 *     eta_t = 1 / (lambda (t + t0))                 t0: see ss_svm_set_t0 in svm.h
 *     w    <- (1 - lambda eta_t) w - eta_t g x_i
 *     b    <- (1 - lambda eta_b) b - eta_b g B^2    eta_b = bias_learning_rate * eta_t
 *
 * (the bias line is the w_b step multiplied by B). The shrinkage of w is kept
 * in a scale factor, w = f u: since 1 - lambda eta_t = (t + t0 - 1)/(t + t0),
 *
 *     f <- f (t + t0 - 1)/(t + t0),    u <- u - (eta_t g / f) x_i   (only if g != 0)
 *
 * so an example with zero loss gradient costs one inner product. The bias is
 * a scalar and is updated directly (a second factor would save nothing). The
 * factor is folded into u (u <- f u, f <- 1) at every epoch boundary and
 * whenever f falls below SS_SGD_MIN_FACTOR; both depend on t only, so training
 * N iterations equals N/2 and then N/2 more, bit for bit.
 *
 * Stopping: at every diagnostic (each diagnostic_frequency iterations, counted
 * on t) the scores s_i of all examples are recomputed; training stops when
 * ||s - s_prev|| / n < epsilon, s_prev being the scores of the diagnostic
 * before (VLFeat's rule; it compares the scores at consecutive visits). The
 * cap is max_num_iterations iterations per call.
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <stdlib.h>

/** Fold the factor into u before it gets this small (precision of u). */
#define SS_SGD_MIN_FACTOR 1e-9

#define SS_STEPS_TEMPLATE "sgd_steps_t.h"
#define SS_STEPS_PREFIX sgd_steps
#include "steps_kinds.h"

SsStatus ss_sgd_train(SsSvm *self)
{
  return ss_run_epochs(self, sgd_steps_select(&self->source));
}

SsStepsFunction ss_sgd_steps(const SsDataSource *source)
{
  return sgd_steps_select(source);
}

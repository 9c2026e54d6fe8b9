/* sdca.c -- stochastic dual coordinate ascent (Hsieh et al. 2008; Shalev-Shwartz
 * and Zhang 2013; VLFeat's SDCA; ALGORITHMS.md section 2).
 *
 * The primal is SGD's, with augmented rows x~_i = (x_i, B) and w~ = (w, w_b):
 *
 *     P(w~) = lambda/2 ||w~||^2 + 1/n sum_i c_i loss(y_i, <w~, x~_i>)
 *
 * and its dual, one variable alpha_i per example,
 *
 *     D(alpha) = -lambda/2 ||w~(alpha)||^2 - 1/n sum_i c_i loss*(-alpha_i / c_i, y_i),
 *     w~(alpha) = 1/(lambda n) sum_i alpha_i x~_i.
 *
 * Iteration t visits example i of the epoch's permutation (epochs.c) and
 * maximises D along alpha_i: with s = <w~, x~_i> and
 * A = c_i ||x~_i||^2 / (lambda n), the weighted step is c_i times the
 * unweighted one, delta = c_i U(alpha_i / c_i, s, A, y_i) (loss.c), then
 *
 *     alpha_i <- alpha_i + delta,   w <- w + delta/(lambda n) x_i,   b <- b + delta B^2/(lambda n)
 *
 * (b = B w_b). With B = 0 the bias b is a fixed offset: it enters s, and the
 * dual gains the term -1/n sum_i alpha_i b. Training stops when the duality
 * gap P - D, a bound on the primal suboptimality, falls below epsilon.
 * The dual variables stay in the object: a second train continues.
 */
#include "internal.h"
#include "loss.h"

#include <stdlib.h>
#include <string.h>

void ss_sdca_rebuild_model(SsSvm *self)
{
  const int64_t n = self->source.num_data;
  const double B = self->bias_multiplier, scale = 1.0 / (self->lambda * (double)n);
  memset(self->u, 0, (size_t)self->dimension * sizeof(double));
  self->factor = 1.0;
  double b = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (self->alpha[i] == 0) continue;
    ss_source_accumulate(&self->source, i, self->u, self->alpha[i] * scale);
    b += self->alpha[i] * scale * B * B;
  }
  if (B > 0) self->bias = b;
  self->model_stale = false;
  ss_svm_realise_model(self);
}

/* The coordinate step, with the hinge loss's closed form inlined (the
 * common case); the other losses go through loss.c. */
static inline double ss_sdca_dual_update(SsLoss loss, const SsLossFunctions *custom, double alpha,
                                         double s, double A, double y)
{
  if (loss == SS_LOSS_HINGE) return ss_hinge_dual_update(alpha, s, A, y);
  return ss_loss_dual_update(loss, custom, alpha, s, A, y);
}

#define SS_STEPS_TEMPLATE "sdca_steps_t.h"
#define SS_STEPS_PREFIX sdca_steps
#include "steps_kinds.h"

SsStatus ss_sdca_train(SsSvm *self)
{
  if (self->model_stale) ss_sdca_rebuild_model(self);
  return ss_run_epochs(self, sdca_steps_select(&self->source));
}

/* primal_certificate.c -- a dual lower bound D <= P* for the primal solvers
 * (SGD, SVMSGD2, SGD-QN, RES, LRES), computed from their iterate and the
 * scores of a diagnostic, so that the run driver (run.c) can certify how far
 * the objective is from the optimum instead of guessing it.
 *
 * The primal is SDCA's (sdca.c), with x~_i = (x_i, B) and w~ = (w, w_b):
 *
 *     P(w~) = lambda/2 ||w~||^2 + 1/n sum_i c_i loss(y_i, <w~, x~_i>),
 *     D(alpha) = -lambda/2 ||v(alpha)||^2 - 1/n sum_i c_i loss*(-alpha_i / c_i, y_i),
 *     v(alpha) = 1/(lambda n) sum_i alpha_i x~_i,
 *
 * and weak duality, D(alpha) <= P* <= P(w~), holds for *every* alpha in the
 * domain of the conjugates. The point taken here is the one the optimality
 * conditions pair with w~:
 *
 *     alpha_i = -c_i loss'(y_i, s_i),    s_i = <w~, x~_i> (+ a fixed offset b when B = 0),
 *
 * so that v(alpha) = w~ exactly at the optimum. For a smooth loss (squared
 * hinge, logistic, l2) alpha depends continuously on w~, and the gap P - D
 * goes to 0 as w~ -> w~*. For the hinge and l1 losses alpha is a
 * subgradient (0 or c_i), whose margin points are misassigned: the gap stays
 * positive at the optimum. Their conjugates are linear in alpha on the
 * domain (hinge: c loss*(-beta) = -c beta, beta = y alpha / c in [0, 1]; l1:
 * alpha y with |alpha| <= c), so D(tau alpha) = tau L - tau^2 Q for
 * 0 <= tau <= 1 is a parabola, and its maximum over tau is taken (the
 * subgradient shrunk towards 0, which removes part of the misassignment's
 * excess in ||v||^2). Even so the bound stays far below P*: 6 % at the
 * optimum on one-hot data (n = 400, d = 40), and 40 % of D at an SGD
 * iterate 1.005x above the optimum on near-separable blobs (P* small, a
 * few margin examples weigh much): the run driver does not judge by it
 * (SS_RUN_BOUND_NONE), nor by a custom loss's (its smoothness unknown).
 *
 * The run driver asks for it only when the objective window fires (run.c),
 * a few times per run.
 *
 * Cost: one accumulation alpha_i x_i per row with alpha_i != 0 (the scores
 * are the diagnostic's), about the cost of the scores pass, and d + 1
 * doubles of scratch.
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <stdlib.h>

double ss_svm_primal_certificate(const SsSvm *self, const double *scores)
{
  const int64_t n = self->source.num_data, d = self->dimension;
  const double B = self->bias_multiplier, lambda = self->lambda;
  const double offset = B > 0 ? 0 : self->bias; /* a fixed, unlearned bias */
  double *v = calloc((size_t)d + 1, sizeof(double));
  if (!v) return NAN;

  /* linear: -1/n sum c_i loss*(-alpha_i / c_i) - 1/n sum alpha_i offset */
  double linear = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double c = self->weights ? self->weights[i] : 1.0;
    if (!(c > 0)) continue;
    const double y = self->labels[i];
    const double g = ss_loss_derivative(self->loss, &self->custom_loss, scores[i], y);
    const double alpha = -c * g;
    linear -= c * ss_loss_conjugate(self->loss, &self->custom_loss, g, y) + alpha * offset;
    if (alpha != 0) {
      ss_source_accumulate(&self->source, i, v, alpha);
      v[d] += alpha * B;
    }
  }
  double norm2 = 0;
  for (int64_t k = 0; k <= d; ++k) norm2 += v[k] * v[k];
  free(v);
  const double scale = lambda * (double)n;
  const double L = linear / (double)n, Q = 0.5 * lambda * norm2 / (scale * scale);
  if (self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_L1) {
    const double tau = Q > 0 ? fmin(fmax(L / (2 * Q), 0.0), 1.0) : 1.0;
    return tau * L - tau * tau * Q;
  }
  return L - Q;
}

SsRunBound ss_svm_primal_certificate_kind(const SsSvm *self)
{
  const bool smooth = self->loss == SS_LOSS_HINGE2 || self->loss == SS_LOSS_LOGISTIC || self->loss == SS_LOSS_L2;
  return smooth ? SS_RUN_BOUND_TIGHT : SS_RUN_BOUND_NONE;
}

/* lres.c -- LRES, the limited-memory form of RES (res.c; derivation in
 * docs/res.rst).
 *
 * The minibatch loop is RES's (res_steps.c): the same stochastic gradients on
 * the same minibatch, the same step eps_t = eps0 tau / (tau + t), the same
 * corrected variation rtilde = rhat - delta v, rhat = s(w~_t+1) - s(w~_t),
 * and the same rule: the pair is used only if v^T rtilde > 0, i.e. if the
 * curvature along v exceeds the floor delta (else skipped and counted).
 *
 * RES's matrix after the update satisfies Bhat_t+1 v = rtilde + delta v = rhat
 * (the BFGS part maps v to rtilde, the + delta I adds delta v). LRES keeps the
 * last m accepted pairs (v_k, rhat_k), rho_k = 1 / (v_k^T rhat_k), and applies
 *
 *     dir = (H_t + Gamma I) s_t
 *
 * where H_t is the inverse of the matrix obtained from B^0_t = Bhat_0 / theta_t
 * (Bhat_0 = diag(b_j), res.h) by BFGS updates with the stored pairs, oldest
 * first, by the two-loop recursion in O(m D):
 *
 *     q = s_t
 *     for k = newest .. oldest:   a_k = rho_k v_k^T q;   q -= a_k rhat_k
 *     z = theta_t Bhat_0^{-1} q
 *     for k = oldest .. newest:   b = rho_k rhat_k^T z;  z += (a_k - b) v_k
 *     dir = z + Gamma s_t
 *
 *     theta_t = v^T rhat / (rhat^T Bhat_0^{-1} rhat)   (newest pair)
 *     theta_t = 1                                       (no pair yet)
 *
 * the Shanno-Phua scaling measured in the metric of Bhat_0: with
 * Bhat_0 = b0 I it is the usual H^0 = (v^T rhat / rhat^T rhat) I, and with
 * the data's diagonal it keeps the per-feature scaling of the first steps.
 * Every stored pair has curvature v^T rhat / ||v||^2 > delta, so H_t maps
 * rhat_k to v_k with a "curvature" above delta; with Bhat_0 = b0 I also
 * H^0_t <= 1/delta, as in RES (with a diagonal Bhat_0 this bound holds only
 * in the metric of Bhat_0). Unlike RES the bound lambda_min(B) >= delta is
 * not enforced in the directions the pairs mix (see the docs). Memory
 * 2 m D + m doubles, plus D in the work space for 1 / diag(Bhat_0).
 */
#include "res_steps.h"

/* dir = (H + Gamma I) g by the two-loop recursion over the stored pairs. */
static SsStatus lres_direction(SsSvm *self, SsResWork *work)
{
  const SsResState *res = &self->res;
  const int64_t D = work->D, m = res->memory, k = res->num_pairs;
  const double *V = res->curvature, *R = res->curvature + m * D, *rho = res->curvature + 2 * m * D;
  /* R holds rhat = rtilde + delta v */
  double *q = work->dir, *alpha = work->extra;
  const double *g = work->g;
  for (int64_t j = 0; j < D; ++j) q[j] = g[j];
  for (int64_t i = 0; i < k; ++i) { /* newest first */
    const int64_t slot = (res->newest - i + m) % m;
    const double *v = V + slot * D, *r = R + slot * D;
    double a = 0;
    for (int64_t j = 0; j < D; ++j) a += v[j] * q[j];
    a *= rho[slot];
    alpha[slot] = a;
    for (int64_t j = 0; j < D; ++j) q[j] -= a * r[j];
  }
  const double *inv_b = work->extra + m; /* 1 / diag(Bhat_0) */
  double theta = 1;
  if (k > 0) {
    const double *r = R + res->newest * D;
    double rbr = 0;
    for (int64_t j = 0; j < D; ++j) rbr += r[j] * r[j] * inv_b[j];
    theta = 1.0 / (rbr * rho[res->newest]);
  }
  for (int64_t j = 0; j < D; ++j) q[j] *= theta * inv_b[j];
  for (int64_t i = k - 1; i >= 0; --i) { /* oldest first */
    const int64_t slot = (res->newest - i + m) % m;
    const double *v = V + slot * D, *r = R + slot * D;
    double b = 0;
    for (int64_t j = 0; j < D; ++j) b += r[j] * q[j];
    b = alpha[slot] - rho[slot] * b;
    for (int64_t j = 0; j < D; ++j) q[j] += b * v[j];
  }
  for (int64_t j = 0; j < D; ++j) q[j] += work->gamma * g[j];
  for (int64_t j = 0; j < D; ++j) {
    if (!isfinite(q[j])) return SS_ERR_NUMERIC;
  }
  return SS_OK;
}

/* Store (v, rhat = rtilde + delta v) in the ring, replacing the oldest pair
 * when it is full. vr = v^T rtilde > 0. */
static bool lres_update(SsSvm *self, SsResWork *work, double vr)
{
  SsResState *res = &self->res;
  const int64_t D = work->D, m = res->memory;
  (void)vr;
  /* v^T rhat, summed as ss_svm_set_res_curvature_state sums the stored pair */
  double vrhat = 0;
  for (int64_t j = 0; j < D; ++j) vrhat += work->v[j] * (work->rt[j] + res->delta * work->v[j]);
  if (!(vrhat > 0) || !isfinite(vrhat)) return false;
  res->newest = (res->newest + 1) % m;
  double *v = res->curvature + res->newest * D, *r = res->curvature + (m + res->newest) * D;
  for (int64_t j = 0; j < D; ++j) {
    v[j] = work->v[j];
    r[j] = work->rt[j] + res->delta * work->v[j];
  }
  res->curvature[2 * m * D + res->newest] = 1.0 / vrhat;
  if (res->num_pairs < m) res->num_pairs++;
  return true;
}

/* extra: alpha[m], then 1 / diag(Bhat_0) [D]. */
static SsStatus lres_prepare(SsSvm *self, SsResWork *work)
{
  double *inv_b = work->extra + self->res.memory;
  SsStatus status = ss_res_initial_diagonal(self, inv_b);
  if (status != SS_OK) return status;
  for (int64_t j = 0; j < work->D; ++j) inv_b[j] = 1.0 / inv_b[j];
  return SS_OK;
}

SsStatus ss_lres_train(SsSvm *self)
{
  const int64_t D = self->dimension + 1;
  if (D > INT64_MAX - self->res.memory) return SS_ERR_ALLOC;
  const SsResSolver solver = {lres_direction, lres_update, lres_prepare, self->res.memory + D};
  return ss_res_run(self, &solver);
}

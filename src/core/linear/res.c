/* res.c -- RES, regularized stochastic BFGS (Mokhtari & Ribeiro, "A
 * quasi-Newton method for large scale support vector machines"; the math:
 * docs/res.rst), Algorithm 1.
 *
 * Minimises F(w~) = lambda/2 ||w~||^2 + 1/n sum_i c_i loss(y_i, <w~, x~_i>)
 * over w~ = (w, w_b), x~_i = (x_i, B), for a differentiable loss. Step t on a
 * minibatch of L examples (res_steps.c draws them and computes the two
 * stochastic gradients on the same minibatch):
 *
 *     s_t     = lambda w~_t + 1/L sum_l grad loss_l(w~_t)
 *     w~_t+1  = w~_t - eps_t (Bhat_t^{-1} + Gamma I) s_t,     eps_t = eps0 tau / (tau + t)
 *     v_t     = w~_t+1 - w~_t
 *     rtilde  = s(w~_t+1) - s(w~_t) - delta v_t                (same minibatch)
 *     Bhat_t+1 = Bhat_t + rtilde rtilde^T / (v^T rtilde)
 *                       - Bhat_t v v^T Bhat_t / (v^T Bhat_t v) + delta I
 *
 * Bhat_0 = b0 I with b0 > delta. If v^T rtilde > 0 (Lemma 1 of the paper)
 * every eigenvalue of Bhat_t+1 is >= delta, so Gamma <= eigenvalues of
 * Bhat^{-1} + Gamma I <= Gamma + 1/delta. When v^T rtilde <= 0 (possible when
 * delta exceeds the curvature along v, e.g. on a minibatch where the squared
 * hinge is flat) the update is skipped and counted. delta = Gamma = 0 is
 * plain stochastic BFGS.
 *
 * Cost. Bhat is kept explicitly and updated in O(D^2). The term delta I is
 * a full-rank change, so neither the inverse nor a Cholesky factor of Bhat
 * can follow it by low-rank updates: the direction solves Bhat p = s_t with a
 * fresh Cholesky factorisation, D^3/6 multiply-adds, plus O(D^2) for the
 * solve and the update and O(L nnz) for the gradients. That is cheap for the
 * few hundred features RES is meant for; for large D use LRES (lres.c),
 * O(m D) per step. Should rounding make Bhat lose positive definiteness (the
 * factorisation fails; never observed with delta > 0), Bhat is reset to
 * Bhat_0 and the restart is counted.
 */
#include "res_steps.h"

#include <string.h>

/* dir = (Bhat^{-1} + Gamma I) g, through a Cholesky factor of Bhat in extra. */
static SsStatus res_direction(SsSvm *self, SsResWork *work)
{
  SsResState *res = &self->res;
  const int64_t D = work->D;
  double *G = work->extra;
  memcpy(G, res->curvature, (size_t)(D * D) * sizeof(double));
  if (!ss_res_cholesky(G, D)) {
    double *diag = work->extra + D * D;
    SsStatus status = ss_res_initial_diagonal(self, diag);
    if (status != SS_OK) return status;
    memset(res->curvature, 0, (size_t)(D * D) * sizeof(double));
    for (int64_t k = 0; k < D; ++k) res->curvature[k * D + k] = diag[k];
    res->num_restarts++;
    memcpy(G, res->curvature, (size_t)(D * D) * sizeof(double));
    if (!ss_res_cholesky(G, D)) return SS_ERR_NUMERIC;
  }
  memcpy(work->dir, work->g, (size_t)D * sizeof(double));
  ss_res_cholesky_solve(G, D, work->dir);
  for (int64_t k = 0; k < D; ++k) work->dir[k] += work->gamma * work->g[k];
  return SS_OK;
}

/* Bhat <- Bhat + rt rt^T / vr - Bv (Bv)^T / (v^T B v) + delta I, kept exactly symmetric. */
static bool res_update(SsSvm *self, SsResWork *work, double vr)
{
  SsResState *res = &self->res;
  const int64_t D = work->D;
  double *Bh = res->curvature, *Bv = work->extra + D * D;
  const double *v = work->v, *rt = work->rt;
  double vBv = 0;
  for (int64_t i = 0; i < D; ++i) {
    const double *row = Bh + i * D;
    double sum = 0;
    for (int64_t j = 0; j < D; ++j) sum += row[j] * v[j];
    Bv[i] = sum;
    vBv += v[i] * sum;
  }
  if (!(vBv > 0)) return false; /* Bhat is positive definite and v != 0: only rounding gets here */
  for (int64_t i = 0; i < D; ++i) {
    const double a = rt[i] / vr, c = Bv[i] / vBv;
    for (int64_t j = i; j < D; ++j) {
      double value = Bh[i * D + j] + a * rt[j] - c * Bv[j] + (i == j ? res->delta : 0.0);
      Bh[i * D + j] = value;
      Bh[j * D + i] = value;
    }
  }
  return true;
}

static const SsResSolver res_solver = {res_direction, res_update, NULL, 0};

SsStatus ss_res_train(SsSvm *self)
{
  const int64_t D = self->dimension + 1;
  SsResSolver solver = res_solver;
  if (D > INT64_MAX / (D + 1)) return SS_ERR_ALLOC;
  solver.extra_size = D * D + D;
  return ss_res_run(self, &solver);
}

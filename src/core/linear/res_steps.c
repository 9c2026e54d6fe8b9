/* res_steps.c -- the minibatch loop shared by RES (res.c) and LRES (lres.c).
 *
 * Iteration t counts examples. Epoch e = t / n (permutation perm_e of the n
 * examples) is cut into nb = ceil(n / L) minibatches of consecutive positions,
 * [e n + j L, e n + min((j + 1) L, n)), j = 0 .. nb - 1. The step of a
 * minibatch happens when the epoch driver (epochs.c) reaches its last
 * position, so the driver's cuts (diagnostics, interrupt polls, the end of a
 * train call) never split a step: training N iterations equals N/2 and then
 * N/2 more, bit for bit. The step index of eps_t is k = e nb + j.
 *
 * One step on the minibatch I, over the augmented model w~ = (w, w_b),
 * x~_i = (x_i, B), score s_i = <w~, x~_i>:
 *
 *     g_i    = c_i loss'(y_i, s_i) / |I|                       (at w~_old)
 *     s_old  = lambda w~ + sum_{i in I} g_i x~_i
 *     dir    = (H + Gamma I) s_old                             (the solver's direction)
 *     v      = -eps_k dir,  w~ <- w~ + v,   eps_k = eps0 tau / (tau + k)
 *     g'_i   = c_i loss'(y_i, s'_i) / |I|                      (at w~_new, same I)
 *     rtilde = s_new - s_old - delta v
 *            = (lambda - delta) v + sum_{i in I} (g'_i - g_i) x~_i
 *
 * (the second form of rtilde avoids the cancellation of s_new - s_old).
 *
 * Two safeguards (res.h) wrap the move w~ <- w~ + v: the new point is
 * projected on the ball ||w~||^2 <= 2 F(0) / lambda that holds the
 * minimiser, and while the minibatch objective
 * f_I(w~) = lambda/2 ||w~||^2 + 1/|I| sum_{i in I} c_i loss_i rises above
 * its value at w~_old, eps_k is halved and the move retried (at most
 * SS_RES_MAX_HALVINGS times; then the model stays and the step is counted as
 * rejected). v is the move actually made. Then
 * with vr = v^T rtilde the solver updates its curvature if
 * vr > 1e-10 ||v|| ||rtilde||, else the update is skipped and counted. With
 * B = 0 the bias is a fixed offset: its coordinate has no gradient and no step.
 */
#include "../common/loss.h"
#include "res_steps.h"

#include <stdlib.h>
#include <string.h>

/** Curvature pairs with a cosine v^T rtilde / (||v|| ||rtilde||) below this are skipped. */
#define SS_RES_MIN_COSINE 1e-10
/** A step is accepted if f_B(new) <= f_B(old) + slack |f_B(old)| (rounding). */
#define SS_RES_OBJECTIVE_SLACK 1e-12
/** Halvings of eps_k before a step is given up (2^-60: below any rounding). */
#define SS_RES_MAX_HALVINGS 60

/* loss_grad[j] = c_i loss'(s_i) / cnt for the examples of the minibatch at
 * the model (u, w_b); *loss = 1/cnt sum_j c_j loss(s_j). False if a score
 * is not finite. */
static bool minibatch_loss_gradient(const SsSvm *self, const int64_t *batch, int64_t cnt,
                                    double w_b, double *loss_grad, double *loss)
{
  const double B = self->bias_multiplier;
  const double b = B > 0 ? B * w_b : self->bias;
  double sum = 0;
  for (int64_t j = 0; j < cnt; ++j) {
    const int64_t i = batch[j];
    const double s = ss_source_inner_product(&self->source, i, self->u) + b;
    if (!isfinite(s)) return false;
    const double c = self->weights ? self->weights[i] : 1.0;
    const double y = self->labels[i];
    loss_grad[j] = c * ss_loss_derivative(self->loss, &self->custom_loss, s, y) / (double)cnt;
    sum += c * ss_loss_value(self->loss, &self->custom_loss, s, y);
  }
  *loss = sum / (double)cnt;
  return true;
}

/* out += sum_j a_j x~_{batch[j]} over the D coordinates (the last is B). */
static void accumulate_batch(const SsSvm *self, const int64_t *batch, int64_t cnt, const double *a,
                             double *out)
{
  const int64_t d = self->dimension;
  const double B = self->bias_multiplier;
  for (int64_t j = 0; j < cnt; ++j) {
    if (a[j] == 0) continue;
    ss_source_accumulate(&self->source, batch[j], out, a[j]);
    out[d] += a[j] * B;
  }
}

/* ||w~||^2 of the model the solver works on. */
static double squared_norm(const SsSvm *self)
{
  double sum = self->res.w_b * self->res.w_b;
  for (int64_t j = 0; j < self->dimension; ++j) sum += self->u[j] * self->u[j];
  return sum;
}

/* The squared radius of a ball around 0 that holds the minimiser:
 * lambda/2 ||w~*||^2 <= F(w~*) <= F(0) for a nonnegative loss, so
 * ||w~*||^2 <= 2 F(0) / lambda (Pegasos' argument). +inf for a custom loss,
 * which may be negative. With B = 0 the bias is the fixed offset of F(0). */
static double optimum_radius2(const SsSvm *self)
{
  if (self->loss == SS_LOSS_CUSTOM) return INFINITY;
  const int64_t n = self->source.num_data;
  const double b = self->bias_multiplier > 0 ? 0.0 : self->bias;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double c = self->weights ? self->weights[i] : 1.0;
    sum += c * ss_loss_value(self->loss, &self->custom_loss, b, self->labels[i]);
  }
  const double radius2 = 2.0 * sum / (double)n / self->lambda;
  return isfinite(radius2) && radius2 > 0 ? radius2 : INFINITY;
}

/* w~ <- P(w~_old - eps dir), P the projection on the ball ||w~||^2 <=
 * radius2; v = w~_new - w~_old (v[d] = 0 without a learned bias). */
static void take_step(SsSvm *self, SsResWork *work, double eps, bool learn_bias)
{
  const int64_t D = work->D, d = self->dimension;
  double *u = self->u, *v = work->v;
  for (int64_t j = 0; j < D; ++j) v[j] = -eps * work->dir[j];
  if (!learn_bias) v[d] = 0;
  for (int64_t j = 0; j < d; ++j) u[j] = work->w_old[j] + v[j];
  self->res.w_b = work->w_old[d] + v[d];
  const double norm2 = squared_norm(self);
  if (norm2 > work->radius2) {
    const double shrink = sqrt(work->radius2 / norm2);
    for (int64_t j = 0; j < d; ++j) {
      u[j] *= shrink;
      v[j] = u[j] - work->w_old[j];
    }
    self->res.w_b *= shrink;
    v[d] = self->res.w_b - work->w_old[d];
  }
}

/* One step on the minibatch batch[0 .. cnt) with step index k. */
static SsStatus res_step(SsSvm *self, const int64_t *batch, int64_t cnt, int64_t k)
{
  SsResState *res = &self->res;
  SsResWork *work = res->work;
  const int64_t D = work->D, d = self->dimension;
  const double lambda = self->lambda, delta = res->delta;
  const bool learn_bias = self->bias_multiplier > 0;
  double *u = self->u, *g = work->g, *v = work->v, *rt = work->rt;
  double *lg = work->loss_grad, *lg_new = work->loss_grad_new;

  double loss_old, loss_new;
  if (!minibatch_loss_gradient(self, batch, cnt, res->w_b, lg, &loss_old)) return SS_ERR_NUMERIC;
  const double f_old = 0.5 * lambda * squared_norm(self) + loss_old;
  for (int64_t j = 0; j < d; ++j) g[j] = lambda * u[j];
  g[d] = lambda * res->w_b;
  accumulate_batch(self, batch, cnt, lg, g);
  if (!learn_bias) g[d] = 0;

  SsStatus status = res->solver->direction(self, work);
  if (status != SS_OK) return status;
  memcpy(work->w_old, u, (size_t)d * sizeof(double));
  work->w_old[d] = res->w_b;

  /* The safeguard: halve the step until it does not raise the minibatch
   * objective f_B it descends (dir is a descent direction of f_B). */
  double eps = ss_res_step_size(self, k);
  const double slack = SS_RES_OBJECTIVE_SLACK * fabs(f_old);
  int halvings = 0;
  for (;;) {
    take_step(self, work, eps, learn_bias);
    const bool finite = minibatch_loss_gradient(self, batch, cnt, res->w_b, lg_new, &loss_new);
    const double f_new = finite ? 0.5 * lambda * squared_norm(self) + loss_new : INFINITY;
    if (f_new <= f_old + slack) break;
    if (halvings == SS_RES_MAX_HALVINGS) { /* no usable step along dir: stay at w~_old */
      memcpy(u, work->w_old, (size_t)d * sizeof(double));
      res->w_b = work->w_old[d];
      res->num_rejected++;
      return SS_OK;
    }
    eps *= 0.5;
    halvings++;
  }
  res->num_halvings += halvings;

  /* rtilde = (lambda - delta) v + sum (g'_i - g_i) x~_i. */
  for (int64_t j = 0; j < D; ++j) rt[j] = (lambda - delta) * v[j];
  for (int64_t j = 0; j < cnt; ++j) lg[j] = lg_new[j] - lg[j];
  accumulate_batch(self, batch, cnt, lg, rt);
  if (!learn_bias) rt[d] = 0;

  double vr = 0, vv = 0, rr = 0;
  for (int64_t j = 0; j < D; ++j) {
    vr += v[j] * rt[j];
    vv += v[j] * v[j];
    rr += rt[j] * rt[j];
  }
  if (!isfinite(vr) || !isfinite(vv) || !isfinite(rr)) return SS_ERR_NUMERIC;
  if (vr > SS_RES_MIN_COSINE * sqrt(vv) * sqrt(rr) && vr > 0 && res->solver->update(self, work, vr)) {
    res->num_updates++;
  } else {
    res->num_skips++;
  }
  return SS_OK;
}

static int64_t steps_per_epoch(const SsSvm *self)
{
  const int64_t n = self->source.num_data, L = self->res.minibatch_size;
  return n / L + (n % L != 0);
}

/* The index k of the step of the minibatch that holds iteration t: the
 * next step to be taken (a piece of the run may end within a minibatch,
 * whose step then waits for the piece that holds its last position). */
static int64_t step_index(const SsSvm *self, int64_t t)
{
  const int64_t n = self->source.num_data, L = self->res.minibatch_size;
  return t / n * steps_per_epoch(self) + t % n / L;
}

/* eps_k: eps0 tau / (tau + k), or after a back-off (and unless the caller
 * has set eps0 since) the restarted schedule; its age is kept >= 0 should
 * the step index fall below its start (a larger minibatch size set since
 * counts fewer steps per epoch). */
double ss_res_step_size(const SsSvm *self, int64_t k)
{
  const SsResState *res = &self->res;
  const bool backed_off = self->step_backoffs > 0 && !res->eps0_set;
  const double eps0 = backed_off ? res->eps0 * res->backoff_scale : res->eps0;
  const int64_t age = !backed_off ? k : k > res->backoff_step ? k - res->backoff_step : 0;
  return isinf(res->tau) ? eps0 : eps0 * res->tau / (res->tau + (double)age);
}

/* The k-th step back-off (the run driver's, run.c, through epochs.c), at
 * the default eps0 only: the curvature back at Bhat_0 (RES) or no pairs
 * (LRES), learned from steps that went astray, the bias weight w_b to 0
 * (epochs.c zeroes w), and the step schedule restarted at the present step
 * index with eps0 SS_RES_BACKOFF_SHRINK^k times its default. False (nothing
 * changed) for an eps0 set by the caller, or without memory for Bhat_0. */
bool ss_res_back_off(SsSvm *self, int64_t k)
{
  SsResState *res = &self->res;
  if (res->eps0_set || !res->curvature) return false;
  if (self->solver == SS_SOLVER_RES) {
    const int64_t D = self->dimension + 1;
    double *diag = malloc((size_t)D * sizeof(double));
    if (!diag || ss_res_initial_diagonal(self, diag) != SS_OK) {
      free(diag);
      return false;
    }
    memset(res->curvature, 0, (size_t)(D * D) * sizeof(double));
    for (int64_t j = 0; j < D; ++j) res->curvature[j * D + j] = diag[j];
    free(diag);
  } else {
    res->num_pairs = 0;
    res->newest = res->memory - 1;
  }
  res->w_b = 0;
  res->backoff_scale = pow(SS_RES_BACKOFF_SHRINK, (double)k);
  res->backoff_step = step_index(self, self->iteration);
  return true;
}

/* The SsStepsFunction of RES and LRES: the steps of the minibatches whose
 * last position lies in [t, t_end) (all within the run's epoch). */
static SsStatus res_steps(SsEpochRun *run, int64_t t, int64_t t_end)
{
  SsSvm *self = run->svm;
  SsResState *res = &self->res;
  const int64_t n = self->source.num_data, L = res->minibatch_size;
  const int64_t per_epoch = steps_per_epoch(self);
  const int64_t epoch = run->epoch_start / n;
  const int64_t start = run->epoch_start;
  SsStatus status = SS_OK;

  while (t < t_end) {
    const int64_t j = (t - start) / L;
    const int64_t first = j * L, end = first + L < n ? first + L : n;
    if (end > t_end - start) { /* (start + end may overflow near INT64_MAX) */
      t = t_end; /* the minibatch ends in a later piece: nothing changes before it */
      break;
    }
    const int64_t cnt = end - first;
    memcpy(res->work->batch, run->perm + first, (size_t)cnt * sizeof(int64_t));
    status = res_step(self, res->work->batch, cnt, epoch * per_epoch + j);
    if (status != SS_OK) break;
    t = start + end;
  }
  if (self->bias_multiplier > 0) self->bias = self->bias_multiplier * res->w_b;
  res->synced_bias = self->bias;
  res->synced_B = self->bias_multiplier;
  self->iteration = t;
  return status;
}

SsStatus ss_res_run(SsSvm *self, const SsResSolver *solver)
{
  SsResState *res = &self->res;
  if (self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_L1) return SS_ERR_BAD_ARG;
  /* Bhat_0 needs b0 > delta (res.c). Only a b0 the caller set can fail it:
   * the data's diagonal is delta plus a positive term (lambda > 0), which
   * rounds away next to a huge delta; b0 = delta then keeps every
   * eigenvalue >= delta, and the run is sound. */
  if (!res->curvature && self->solver == SS_SOLVER_RES && res->initial_curvature > 0 &&
      !(res->initial_curvature > res->delta))
    return SS_ERR_BAD_ARG;
  SsStatus status = ss_res_ensure_curvature(self);
  if (status != SS_OK) return status;

  const int64_t D = self->dimension + 1, L = res->minibatch_size;
  if (L > INT64_MAX / 2 || D > (int64_t)(SIZE_MAX / sizeof(double)) / 16 ||
      solver->extra_size > (int64_t)(SIZE_MAX / sizeof(double)) / 2)
    return SS_ERR_ALLOC;
  const int64_t cnt_max = L < self->source.num_data ? L : self->source.num_data;
  if (cnt_max > (int64_t)(SIZE_MAX / sizeof(double)) / 16) return SS_ERR_ALLOC;
  SsResWork work = {.D = D, .b0 = ss_svm_get_res_initial_curvature(self), .gamma = ss_svm_get_res_gamma(self),
                   .radius2 = optimum_radius2(self)};
  double *block = malloc((size_t)(5 * D + 2 * cnt_max + solver->extra_size) * sizeof(double));
  work.batch = malloc((size_t)cnt_max * sizeof(int64_t));
  if (!block || !work.batch) {
    free(block);
    free(work.batch);
    return SS_ERR_ALLOC;
  }
  work.g = block;
  work.dir = block + D;
  work.v = block + 2 * D;
  work.rt = block + 3 * D;
  work.w_old = block + 4 * D;
  work.loss_grad = block + 5 * D;
  work.loss_grad_new = block + 5 * D + cnt_max;
  work.extra = block + 5 * D + 2 * cnt_max;

  /* The bias weight: recomputed when the bias or B were changed by a setter. */
  if (!res->synced || res->synced_bias != self->bias || res->synced_B != self->bias_multiplier) {
    res->w_b = self->bias_multiplier > 0 ? self->bias / self->bias_multiplier : 0;
    res->synced = true;
  }
  if (solver->prepare) status = solver->prepare(self, &work);
  if (status != SS_OK) {
    free(block);
    free(work.batch);
    return status;
  }
  ss_svm_fold_factor(self); /* RES works on w = u directly (factor 1) */
  res->solver = solver;
  res->work = &work;
  status = ss_run_epochs_backing_off(self, res_steps, ss_res_back_off);
  res->solver = NULL;
  res->work = NULL;
  free(block);
  free(work.batch);
  return status;
}

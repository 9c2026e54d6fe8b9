/* res_params.c -- the parameters and the curvature state of RES and LRES
 * (include/stochsvm/res.h): validating setters, getters, and the copy of the
 * curvature in and out of the object for warm starts. The solvers are in
 * res.c and lres.c, their shared minibatch loop in res_steps.c. */
#include "svm_internal.h"
#include "res_steps.h"

#include <stdlib.h>
#include <string.h>

void ss_res_init(SsResState *res)
{
  *res = (SsResState){.minibatch_size = 5, .delta = 1e-3, .gamma = -1.0, .eps0 = SS_RES_DEFAULT_EPS0,
                      .tau = 100.0, .initial_curvature = 0.0, .memory = 10};
}

void ss_res_free(SsResState *res)
{
  free(res->curvature);
  res->curvature = NULL;
}

static bool is_quasi_newton(const SsSvm *self)
{
  return self->solver == SS_SOLVER_RES || self->solver == SS_SOLVER_LRES;
}

/* Forget the curvature (Bhat_0 / no pairs, allocated again when needed). */
static void forget_curvature(SsSvm *self)
{
  ss_res_free(&self->res);
  self->res.num_pairs = 0;
  self->res.newest = 0;
  self->res.num_updates = self->res.num_skips = self->res.num_restarts = 0;
  self->res.num_halvings = self->res.num_rejected = 0;
}

/* ------------------------------------------------------------------------ */
/*                                Parameters                                */
/* ------------------------------------------------------------------------ */

SsStatus ss_svm_set_res_minibatch_size(SsSvm *self, int64_t L)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_res_minibatch_size");
  if (ss_svm_require_solver(self, "set_res_minibatch_size", SS_SOLVERS_QUASI_NEWTON) != SS_OK) return SS_ERR_BAD_STATE;
  if (L < 1)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_res_minibatch_size: L must be >= 1, got %lld", (long long)L);
  self->res.minibatch_size = L;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_res_delta(SsSvm *self, double delta)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_res_delta");
  if (ss_svm_require_solver(self, "set_res_delta", SS_SOLVERS_QUASI_NEWTON) != SS_OK) return SS_ERR_BAD_STATE;
  if (!(delta >= 0) || !isfinite(delta))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_res_delta: delta must be finite and >= 0, got %g", delta);
  self->res.delta = delta;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_res_gamma(SsSvm *self, double gamma)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_res_gamma");
  if (ss_svm_require_solver(self, "set_res_gamma", SS_SOLVERS_QUASI_NEWTON) != SS_OK) return SS_ERR_BAD_STATE;
  if (!(gamma >= 0) || !isfinite(gamma))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_res_gamma: gamma must be finite and >= 0, got %g", gamma);
  self->res.gamma = gamma;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_res_eps0(SsSvm *self, double eps0)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_res_eps0");
  if (ss_svm_require_solver(self, "set_res_eps0", SS_SOLVERS_QUASI_NEWTON) != SS_OK) return SS_ERR_BAD_STATE;
  if (!(eps0 > 0) || !isfinite(eps0))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_res_eps0: eps0 must be finite and > 0, got %g", eps0);
  self->res.eps0 = eps0;
  self->res.eps0_set = true;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_res_tau(SsSvm *self, double tau)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_res_tau");
  if (ss_svm_require_solver(self, "set_res_tau", SS_SOLVERS_QUASI_NEWTON) != SS_OK) return SS_ERR_BAD_STATE;
  if (!(tau > 0)) /* +inf allowed: constant step */
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_res_tau: tau must be > 0, got %g", tau);
  self->res.tau = tau;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_res_initial_curvature(SsSvm *self, double b0)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_res_initial_curvature");
  if (ss_svm_require_solver(self, "set_res_initial_curvature", SS_SOLVERS_QUASI_NEWTON) != SS_OK) return SS_ERR_BAD_STATE;
  if (!(b0 > 0) || !isfinite(b0))
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_res_initial_curvature: b0 must be finite and > 0, got %g", b0);
  self->res.initial_curvature = b0;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_set_lres_memory(SsSvm *self, int64_t m)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_lres_memory");
  if (ss_svm_require_solver(self, "set_lres_memory", SS_SOLVER_BIT(SS_SOLVER_LRES)) != SS_OK) return SS_ERR_BAD_STATE;
  if (m < 1 || m > SS_LRES_MAX_MEMORY)
    return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_lres_memory: m must be in [1, %d], got %lld", SS_LRES_MAX_MEMORY,
                       (long long)m);
  if (m != self->res.memory && self->solver == SS_SOLVER_LRES) forget_curvature(self);
  self->res.memory = m;
  return ss_svm_succeed(self);
}

int64_t ss_svm_get_res_minibatch_size(const SsSvm *self) { return self ? self->res.minibatch_size : 0; }
double ss_svm_get_res_delta(const SsSvm *self) { return self ? self->res.delta : NAN; }
double ss_svm_get_res_gamma(const SsSvm *self)
{
  if (!self) return NAN;
  return self->res.gamma >= 0 ? self->res.gamma : SS_RES_DEFAULT_GAMMA_RATIO / ss_svm_get_res_initial_curvature(self);
}
double ss_svm_get_res_eps0(const SsSvm *self) { return self ? self->res.eps0 : NAN; }
double ss_svm_get_res_tau(const SsSvm *self) { return self ? self->res.tau : NAN; }
int64_t ss_svm_get_lres_memory(const SsSvm *self) { return self ? self->res.memory : 0; }
int64_t ss_svm_get_res_num_curvature_updates(const SsSvm *self) { return self ? self->res.num_updates : 0; }
int64_t ss_svm_get_res_num_curvature_skips(const SsSvm *self) { return self ? self->res.num_skips : 0; }
int64_t ss_svm_get_res_num_curvature_restarts(const SsSvm *self) { return self ? self->res.num_restarts : 0; }
int64_t ss_svm_get_res_num_step_halvings(const SsSvm *self) { return self ? self->res.num_halvings : 0; }
int64_t ss_svm_get_res_num_rejected_steps(const SsSvm *self) { return self ? self->res.num_rejected : 0; }

/* The scalar b0 in force (res.h): the set one, or the mean of the default
 * diagonal, delta + lambda + kappa mean_i c_i ||x~_i||^2 / D; 1 + delta
 * without data or for a custom loss. */
double ss_svm_get_res_initial_curvature(const SsSvm *self)
{
  if (!self) return NAN;
  const SsResState *res = &self->res;
  if (res->initial_curvature > 0) return res->initial_curvature;
  const int64_t n = self->source.num_data;
  const double B2 = self->bias_multiplier * self->bias_multiplier;
  const double unit = ss_loss_curvature_bound(self->loss, 1.0);
  if (n == 0 || !self->row_norms2 || !(unit > 0)) return 1.0 + res->delta;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += (self->weights ? self->weights[i] : 1.0) * (self->row_norms2[i] + B2);
  const double b0 = res->delta + self->lambda + unit * sum / (double)n / (double)(self->dimension + 1);
  return isfinite(b0) ? b0 : 1.0 + res->delta;
}

/* Rows the default diagonal reads: all, or every k-th when n d exceeds this. */
#define SS_RES_DIAGONAL_WORK ((int64_t)1 << 26)

SsStatus ss_res_initial_diagonal(const SsSvm *self, double *diag)
{
  const SsResState *res = &self->res;
  const int64_t n = self->source.num_data, d = self->dimension;
  const double unit = ss_loss_curvature_bound(self->loss, 1.0);
  if (res->initial_curvature > 0 || n == 0 || !(unit > 0)) {
    const double b0 = ss_svm_get_res_initial_curvature(self);
    for (int64_t j = 0; j <= d; ++j) diag[j] = b0;
    return SS_OK;
  }
  double *row = calloc((size_t)d + 1, sizeof(double));
  if (!row) return SS_ERR_ALLOC;
  for (int64_t j = 0; j <= d; ++j) diag[j] = 0;
  const int64_t stride = n > SS_RES_DIAGONAL_WORK / (d + 1) ? n / (SS_RES_DIAGONAL_WORK / (d + 1) + 1) + 1 : 1;
  double total = 0;
  for (int64_t i = 0; i < n; i += stride) {
    const double c = self->weights ? self->weights[i] : 1.0;
    ss_source_accumulate(&self->source, i, row, 1.0);
    for (int64_t j = 0; j < d; ++j) {
      diag[j] += c * row[j] * row[j];
      row[j] = 0;
    }
    diag[d] += c * self->bias_multiplier * self->bias_multiplier;
    total += 1;
  }
  free(row);
  for (int64_t j = 0; j <= d; ++j) {
    diag[j] = res->delta + self->lambda + unit * diag[j] / total;
    if (!isfinite(diag[j])) diag[j] = 1.0 + res->delta;
  }
  return SS_OK;
}

/* ------------------------------------------------------------------------ */
/*                              Curvature state                             */
/* ------------------------------------------------------------------------ */

/* Doubles of the curvature buffer (0 on overflow or for other solvers). */
int64_t ss_res_curvature_buffer_size(const SsSvm *self)
{
  const int64_t D = self->dimension + 1, m = self->res.memory;
  const int64_t cap = SS_LRES_MAX_CURVATURE_DOUBLES;
  if (self->solver == SS_SOLVER_RES) return self->dimension > SS_RES_MAX_DIMENSION ? 0 : D * D;
  if (self->solver == SS_SOLVER_LRES) return D > (cap - m) / (2 * m) ? 0 : 2 * m * D + m;
  return 0;
}

SsStatus ss_res_ensure_curvature(SsSvm *self)
{
  SsResState *res = &self->res;
  if (res->curvature) return SS_OK;
  int64_t size = ss_res_curvature_buffer_size(self);
  if (size == 0) return SS_ERR_ALLOC;
  res->curvature = calloc((size_t)size, sizeof(double));
  if (!res->curvature) return SS_ERR_ALLOC;
  if (self->solver == SS_SOLVER_RES) {
    const int64_t D = self->dimension + 1;
    double *diag = malloc((size_t)D * sizeof(double));
    SsStatus status = diag ? ss_res_initial_diagonal(self, diag) : SS_ERR_ALLOC;
    if (status != SS_OK) {
      free(diag);
      ss_res_free(res);
      return status;
    }
    for (int64_t k = 0; k < D; ++k) res->curvature[k * D + k] = diag[k];
    free(diag);
  }
  res->num_pairs = 0;
  res->newest = self->res.memory - 1; /* the first pair goes to slot 0 */
  return SS_OK;
}

int64_t ss_svm_get_res_curvature_state_size(const SsSvm *self)
{
  if (!self) return 0;
  const int64_t D = self->dimension + 1;
  if (self->solver == SS_SOLVER_RES) return D * D;
  if (self->solver == SS_SOLVER_LRES) return 1 + 2 * self->res.memory * D;
  return 0;
}

SsStatus ss_svm_get_res_curvature_state(const SsSvm *self, double *state)
{
  if (!self || !state) return SS_ERR_BAD_ARG;
  if (!is_quasi_newton(self)) return SS_ERR_BAD_STATE;
  const SsResState *res = &self->res;
  const int64_t D = self->dimension + 1, m = res->memory;
  if (self->solver == SS_SOLVER_RES) {
    if (res->curvature) {
      memcpy(state, res->curvature, (size_t)(D * D) * sizeof(double));
    } else {
      double *diag = malloc((size_t)D * sizeof(double));
      SsStatus status = diag ? ss_res_initial_diagonal(self, diag) : SS_ERR_ALLOC;
      if (status == SS_OK) {
        memset(state, 0, (size_t)(D * D) * sizeof(double));
        for (int64_t k = 0; k < D; ++k) state[k * D + k] = diag[k];
      }
      free(diag);
      return status;
    }
    return SS_OK;
  }
  memset(state, 0, (size_t)(1 + 2 * m * D) * sizeof(double));
  const int64_t k = res->curvature ? res->num_pairs : 0;
  state[0] = (double)k;
  for (int64_t i = 0; i < k; ++i) {
    int64_t slot = (res->newest - k + 1 + i + m) % m;
    memcpy(state + 1 + i * D, res->curvature + slot * D, (size_t)D * sizeof(double));
    memcpy(state + 1 + (m + i) * D, res->curvature + (m + slot) * D, (size_t)D * sizeof(double));
  }
  return SS_OK;
}

/* Is the D x D matrix A (row major) positive definite? Cholesky on a copy. */
static bool positive_definite(const double *A, int64_t D, double *scratch)
{
  memcpy(scratch, A, (size_t)(D * D) * sizeof(double));
  return ss_res_cholesky(scratch, D);
}

SsStatus ss_svm_set_res_curvature_state(SsSvm *self, const double *state)
{
  const SsStatus bad = SS_ERR_BAD_ARG;
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_res_curvature_state");
  if (!state) return ss_svm_fail(self, bad, "set_res_curvature_state: state is NULL");
  if (!is_quasi_newton(self))
    return ss_svm_fail(self, SS_ERR_BAD_STATE,
                       "set_res_curvature_state applies to solvers res and lres, this object's solver is %s",
                       ss_svm_solver_name(self->solver));
  SsResState *res = &self->res;
  const int64_t D = self->dimension + 1, m = res->memory;
  const int64_t size = ss_svm_get_res_curvature_state_size(self);
  for (int64_t k = 0; k < size; ++k) {
    if (!isfinite(state[k]))
      return ss_svm_fail(self, bad, "set_res_curvature_state: state[%lld] must be finite, got %g", (long long)k,
                         state[k]);
  }
  if (self->solver == SS_SOLVER_RES) {
    for (int64_t i = 0; i < D; ++i) {
      for (int64_t j = i + 1; j < D; ++j) {
        double a = state[i * D + j], b = state[j * D + i];
        if (fabs(a - b) > 1e-12 * (fabs(a) + fabs(b)))
          return ss_svm_fail(self, bad, "set_res_curvature_state: the matrix is not symmetric at (%lld, %lld)",
                             (long long)i, (long long)j);
      }
    }
    double *scratch = malloc((size_t)(D * D) * sizeof(double));
    if (!scratch) return ss_svm_fail(self, SS_ERR_ALLOC, "set_res_curvature_state: out of memory");
    bool ok = positive_definite(state, D, scratch);
    free(scratch);
    if (!ok) return ss_svm_fail(self, bad, "set_res_curvature_state: the matrix is not positive definite");
    SsStatus status = ss_res_ensure_curvature(self);
    if (status != SS_OK) return ss_svm_fail(self, status, "set_res_curvature_state: out of memory");
    memcpy(res->curvature, state, (size_t)(D * D) * sizeof(double));
    return ss_svm_succeed(self);
  }
  const double kd = state[0];
  if (!(kd >= 0 && kd <= (double)m) || kd != floor(kd))
    return ss_svm_fail(self, bad, "set_res_curvature_state: the pair count state[0] must be an integer in "
                       "[0, %lld], got %g", (long long)m, kd);
  const int64_t k = (int64_t)kd;
  for (int64_t i = 0; i < k; ++i) {
    const double *v = state + 1 + i * D, *r = state + 1 + (m + i) * D;
    double vr = 0;
    for (int64_t j = 0; j < D; ++j) vr += v[j] * r[j];
    if (!(vr > 0))
      return ss_svm_fail(self, bad, "set_res_curvature_state: pair %lld has v^T r = %g, must be > 0",
                         (long long)i, vr);
  }
  SsStatus status = ss_res_ensure_curvature(self);
  if (status != SS_OK) return ss_svm_fail(self, status, "set_res_curvature_state: out of memory");
  double *rho = res->curvature + 2 * m * D;
  for (int64_t i = 0; i < k; ++i) { /* pair i goes to slot i: oldest first */
    const double *v = state + 1 + i * D, *r = state + 1 + (m + i) * D;
    memcpy(res->curvature + i * D, v, (size_t)D * sizeof(double));
    memcpy(res->curvature + (m + i) * D, r, (size_t)D * sizeof(double));
    double vr = 0;
    for (int64_t j = 0; j < D; ++j) vr += v[j] * r[j];
    rho[i] = 1.0 / vr;
  }
  res->num_pairs = k;
  res->newest = k > 0 ? k - 1 : m - 1;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_reset_res_curvature(SsSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "reset_res_curvature");
  if (ss_svm_require_solver(self, "reset_res_curvature", SS_SOLVERS_QUASI_NEWTON) != SS_OK) return SS_ERR_BAD_STATE;
  forget_curvature(self);
  return ss_svm_succeed(self);
}

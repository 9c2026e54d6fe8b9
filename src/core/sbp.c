/* sbp.c -- the Stochastic Batch Perceptron (Cotter, Shalev-Shwartz, Srebro,
 * ICML 2012; the paper's Algorithm 1, ALGORITHMS.md section 5).
 *
 * Slack-constrained problem over w = sum_i alpha_i y_i phi(x_i):
 *
 *     max_{||w|| <= 1}  f(w) = max_{xi >= 0, 1'xi <= n nu} min_{p in simplex}
 *                               sum_i p_i (y_i <w, phi(x_i)> + xi_i)
 *
 * With the responses c_i = y_i <w, phi(x_i)> kept up to date, a
 * supergradient is y_i phi(x_i) for i drawn uniformly from the covered
 * examples {c_i < gamma}, gamma the water level of c (sbp_gamma.c):
 *
 *     eta_0 = 1 / sqrt(max_i K(x_i, x_i));  alpha = 0, c = 0, r = 0
 *     for t = 1..T:
 *         eta_t = eta_0 / sqrt(t)
 *         gamma = find_gamma(c, n nu);  i ~ uniform{ j : c_j < gamma }
 *         alpha_i += eta_t
 *         r^2 += 2 eta_t c_i + eta_t^2 K(x_i, x_i)          (||w||^2)
 *         c_j += eta_t y_i y_j K(x_i, x_j)  for all j        (n kernel evaluations)
 *         if r > 1: alpha /= r, c /= r, r = 1                (projection on the ball)
 *     alpha_bar, c_bar = averages of alpha^(t), c^(t); gamma = find_gamma(c_bar, n nu)
 *     predictor: sum_i (alpha_bar_i / gamma) y_i K(x_i, .)
 *
 * With an unregularized bias (the paper's section 3.6 and Algorithm 3) the
 * positives' responses are shifted by +b and the negatives' by -b; the
 * water filling returns (gamma, b) with the same number k of covered
 * examples in each class, and i is drawn with probability 1/2 from each
 * class, uniformly among its covered examples (the minimax p puts equal mass
 * on both classes, so the supergradient is also one in b). The predictor's
 * bias is b / gamma.
 *
 * Ties: when floating point leaves no response strictly below the level,
 * the examples at the level are used, and failing those the lowest one.
 * If the averaged margin gamma is not positive (nu too small for the data
 * so far), the averaged iterate is returned without division by gamma.
 */
#include "kernel_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct SbpState {
  double *alpha;     /**< [n] alpha^(t) */
  double *c;         /**< [n] responses c^(t) */
  double *alpha_sum; /**< [n] sum over t of alpha^(t) */
  double *c_sum;     /**< [n] sum over t of c^(t) */
  double *work;      /**< [n] scratch of the water filling */
  double r2;         /**< ||w^(t)||^2 */
  double eta0;
  bool bias;         /**< the bias setting the sums were made with */
} SbpState;

static void sbp_free_state(SsKernelSvm *self)
{
  SbpState *s = self->state;
  if (!s) return;
  free(s->alpha);
  free(s->c);
  free(s->alpha_sum);
  free(s->c_sum);
  free(s->work);
  free(s);
  self->state = NULL;
}

static SsStatus sbp_start(SsKernelSvm *self)
{
  SbpState *s = self->state;
  if (s && s->bias != self->bias_enabled) {
    sbp_free_state(self);
    s = NULL;
  }
  if (self->bias_enabled) {
    bool pos = false, neg = false;
    for (int64_t i = 0; i < self->num_data; ++i) {
      if (self->labels[i] > 0) pos = true;
      else neg = true;
    }
    if (!pos || !neg) return SS_ERR_BAD_DATA;
  }
  if (s) {
    s->eta0 = ss_kernel_svm_effective_eta0(self);
    return SS_OK;
  }
  const size_t n = (size_t)self->num_data;
  s = calloc(1, sizeof(SbpState));
  if (!s) return SS_ERR_ALLOC;
  s->alpha = calloc(n, sizeof(double));
  s->c = calloc(n, sizeof(double));
  s->alpha_sum = calloc(n, sizeof(double));
  s->c_sum = calloc(n, sizeof(double));
  s->work = malloc(n * sizeof(double));
  if (!self->dual) self->dual = calloc(n, sizeof(double));
  self->state = s;
  if (!s->alpha || !s->c || !s->alpha_sum || !s->c_sum || !s->work || !self->dual) {
    sbp_free_state(self);
    return SS_ERR_ALLOC;
  }
  memset(self->dual, 0, n * sizeof(double));
  s->bias = self->bias_enabled;
  s->eta0 = ss_kernel_svm_effective_eta0(self);
  self->iteration = 0;
  return SS_OK;
}

/* The k-th (0-based) index j in [0, n) of class `cls` (0: any) with c_j < level
 * (strict) or c_j <= level. */
static int64_t kth_below(const double *c, const double *y, int64_t n, double cls, double level,
                         bool strict, int64_t k)
{
  for (int64_t j = 0; j < n; ++j) {
    if (cls != 0 && y[j] != cls) continue;
    if (strict ? c[j] < level : c[j] <= level) {
      if (k == 0) return j;
      --k;
    }
  }
  return -1;
}

/* Draw i uniformly among the examples of class cls (0: all) covered at `level`. */
static int64_t sample_covered(const double *c, const double *y, int64_t n, double cls,
                              double level, SsRng *rng)
{
  int64_t strict = 0, loose = 0, lowest = -1;
  for (int64_t j = 0; j < n; ++j) {
    if (cls != 0 && y[j] != cls) continue;
    strict += c[j] < level;
    loose += c[j] <= level;
    if (lowest < 0 || c[j] < c[lowest]) lowest = j;
  }
  if (strict > 0) return kth_below(c, y, n, cls, level, true, (int64_t)ss_rng_below(rng, (uint64_t)strict));
  if (loose > 0) return kth_below(c, y, n, cls, level, false, (int64_t)ss_rng_below(rng, (uint64_t)loose));
  return lowest;
}

/* The levels of responses c: gamma (no bias) or u, v for positives and negatives. */
static void levels(SsKernelSvm *self, SbpState *s, const double *c, double *u, double *v,
                   int64_t *covered)
{
  const int64_t n = self->num_data;
  const double volume = (double)n * self->nu;
  if (!s->bias) {
    memcpy(s->work, c, (size_t)n * sizeof(double));
    *u = *v = ss_sbp_water_level(s->work, n, volume);
    *covered = 0;
    return;
  }
  int64_t p = 0, n_pos = 0;
  for (int64_t j = 0; j < n; ++j) n_pos += self->labels[j] > 0;
  int64_t q = n_pos;
  for (int64_t j = 0; j < n; ++j) {
    if (self->labels[j] > 0) s->work[p++] = c[j];
    else s->work[q++] = c[j];
  }
  ss_sbp_two_levels(s->work, n_pos, s->work + n_pos, n - n_pos, volume, u, v, covered);
}

static SsStatus sbp_steps(SsKernelSvm *self, int64_t t, int64_t t_end)
{
  SbpState *s = self->state;
  const int64_t n = self->num_data;
  const double *y = self->labels;
  double *alpha = s->alpha, *c = s->c, *krow = self->krow;
  for (; t < t_end; ++t) {
    const double eta = s->eta0 / sqrt((double)(t + 1));
    double u, v;
    int64_t covered;
    levels(self, s, c, &u, &v, &covered);
    SsRng rng;
    ss_rng_seed(&rng, self->seed, (uint64_t)t);
    int64_t i;
    if (!s->bias) {
      i = sample_covered(c, y, n, 0, u, &rng);
    } else {
      double cls = (ss_rng_next(&rng) >> 63) ? 1.0 : -1.0;
      i = sample_covered(c, y, n, cls, cls > 0 ? u : v, &rng);
    }

    alpha[i] += eta;
    s->r2 += 2.0 * eta * c[i] + eta * eta * self->diagonal[i];
    ss_data_scatter_row(&self->data, i, self->zd);
    ss_kernel_row_from_scattered(&self->kernel, &self->data, self->norms2, NULL, n, self->zd,
                                 self->norms2[i], krow);
    ss_data_clear_row(&self->data, i, self->zd);
    const double step = eta * y[i];
    for (int64_t j = 0; j < n; ++j) c[j] += step * y[j] * krow[j];
    if (s->r2 > 1.0) {
      const double inv_r = 1.0 / sqrt(s->r2);
      for (int64_t j = 0; j < n; ++j) {
        alpha[j] *= inv_r;
        c[j] *= inv_r;
      }
      s->r2 = 1.0;
    }
    double *alpha_sum = s->alpha_sum, *c_sum = s->c_sum;
    for (int64_t j = 0; j < n; ++j) {
      alpha_sum[j] += alpha[j];
      c_sum[j] += c[j];
    }
    self->num_kernel_evaluations += n;
    if (!isfinite(s->r2)) {
      self->iteration = t + 1;
      return SS_ERR_NUMERIC;
    }
  }
  self->iteration = t_end;
  return SS_OK;
}

static SsStatus sbp_evaluate(SsKernelSvm *self, double *scores, double *norm2, bool *have_scores)
{
  SbpState *s = self->state;
  const int64_t n = self->num_data;
  const double *y = self->labels;
  const double T = (double)self->iteration;
  if (!s || self->iteration == 0) return SS_OK; /* nothing averaged yet: the model stands */
  /* c_bar into scores (scratch), then the levels of the averaged iterate. */
  for (int64_t j = 0; j < n; ++j) scores[j] = s->c_sum[j] / T;
  double u, v;
  int64_t covered;
  levels(self, s, scores, &u, &v, &covered);
  const double gamma = 0.5 * (u + v), b = 0.5 * (v - u);
  const double scale = gamma > 0 ? 1.0 / gamma : 1.0;

  int64_t m = 0;
  double w2 = 0;
  for (int64_t j = 0; j < n; ++j) {
    double a = s->alpha_sum[j] / T;
    self->dual[j] = a * scale;
    w2 += a * scores[j];
    if (a != 0) ++m;
  }
  int64_t *rows = malloc((size_t)(m > 0 ? m : 1) * sizeof(int64_t));
  double *coef = malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
  if (!rows || !coef) {
    free(rows);
    free(coef);
    return SS_ERR_ALLOC;
  }
  m = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (s->alpha_sum[j] != 0) {
      rows[m] = j;
      coef[m] = self->dual[j] * y[j];
      ++m;
    }
  }
  SsStatus status = ss_kernel_model_set_from_rows(&self->model, &self->kernel, &self->data, rows,
                                                  coef, m, s->bias ? b * scale : 0.0);
  free(rows);
  free(coef);
  if (status != SS_OK) return status;
  /* f(x_j) without bias = y_j c_bar_j / gamma; ||w||^2 = sum alpha_bar c_bar / gamma^2. */
  for (int64_t j = 0; j < n; ++j) scores[j] = y[j] * scores[j] * scale;
  *norm2 = w2 * scale * scale;
  *have_scores = true;
  self->statistics.margin = gamma;
  self->statistics.objective = gamma;
  return SS_OK;
}

const SsKernelSolverOps ss_sbp_ops = {
  .uses_permutation = false,
  .start = sbp_start,
  .steps = sbp_steps,
  .evaluate = sbp_evaluate,
  .free_state = sbp_free_state,
};

/* kernel_certificate.c -- a lower bound D <= P* on the kernel SVM's optimum
 * from the training scores of a model: the certificate behind the SBP's
 * window stop (run.c, "certified window"; kernel_svm.c, run_dual_bound).
 *
 * The problem and its dual, box_i = c_i / n (c_i the example's weight):
 *
 *     P(w, b) = lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i (<w, phi(x_i)> + b))
 *     D(a)    = sum_i a_i - 1/(2 lambda) ||v||^2,   v = sum_i a_i y_i phi(x_i),
 *               0 <= a_i <= box_i  (and sum_i a_i y_i = 0 with the bias b)
 *
 * Any feasible a gives D(a) <= P* (weak duality). The bound keeps
 * h_i = y_i <v, phi(x_i)> (so ||v||^2 = sum_i a_i h_i and
 * dD/da_i = 1 - h_i / lambda), each change of one a_i paid with one kernel
 * row (n evaluations):
 *
 *  1. The subgradient choice: a_i = box_i on the margin errors of the model
 *     (y_i f(x_i) < 1), 0 elsewhere; with the bias, the heavier class scaled
 *     down to balance the other (sum_i a_i y_i = 0). One row per error.
 *  2. The best scale tau a, tau <= the largest that keeps tau a in the box
 *     (D is a concave quadratic in tau; h scales with a): free.
 *  3. Greedy coordinate ascent: no bias, Newton steps on the coordinate of
 *     largest projected gradient, clipped to its box; with the bias, the
 *     maximal violating pair (LIBSVM's working set selection 1), two rows
 *     per step, which keeps sum_i a_i y_i = 0. Until the projected
 *     gradients fall below 1e-3 or the rows given run out.
 *  4. The best scale again.
 *
 * Step 1 alone is loose (on the "unscaled" set at C = 1, with the bias:
 * D = 0.551 against P* = 0.578), the ascent closes most of the rest (0.5778
 * within 157 rows); the SBP's own averaged coefficients, tried first, were a
 * far worse start (D = 0.26 at their best scale, before the ascent; they
 * average the early iterates too, the likely cause).
 */
#include "kernel_certificate.h"

#include <stdlib.h>
#include <string.h>

typedef struct Certificate {
  SsKernelSvm *svm;
  double *a, *h, *row;
  int64_t rows_left;
} Certificate;

static double box(const SsKernelSvm *svm, int64_t i)
{
  return ss_kernel_svm_weight(svm, i) / (double)svm->num_data;
}

/* Example i is a margin error of the model of @p scores: step 1's a_i > 0. */
static bool margin_error(const SsKernelSvm *svm, const double *scores, int64_t i)
{
  return svm->labels[i] * (scores[i] + svm->model.bias) < 1;
}

/* a_i += delta, and h follows: one kernel row. False when the budget is spent. */
static bool move(Certificate *c, int64_t i, double delta)
{
  if (c->rows_left <= 0) return false;
  --c->rows_left;
  SsKernelSvm *svm = c->svm;
  const int64_t n = svm->num_data;
  ss_data_scatter_row(&svm->data, i, svm->zd);
  ss_kernel_row_threads(&svm->kernel, &svm->data, svm->norms2, NULL, n, svm->zd, svm->norms2[i],
                        svm->row_flags, c->row, svm->threads);
  ss_data_clear_row(&svm->data, i, svm->zd);
  svm->num_kernel_evaluations += n;
  const double *y = svm->labels;
  const double step = delta * y[i];
  for (int64_t j = 0; j < n; ++j) c->h[j] += step * y[j] * c->row[j];
  c->a[i] += delta;
  return true;
}

/* The best scale of a (and h), capped at @p cap; D(tau a) = tau S - tau^2 Q / (2 lambda). */
static void rescale(Certificate *c, double cap)
{
  const int64_t n = c->svm->num_data;
  double S = 0, Q = 0;
  for (int64_t i = 0; i < n; ++i) {
    S += c->a[i];
    Q += c->a[i] * c->h[i];
  }
  if (!(S > 0) || !(Q > 0)) return;
  const double tau = fmin(c->svm->lambda * S / Q, cap);
  if (!(tau > 0) || !isfinite(tau)) return;
  for (int64_t i = 0; i < n; ++i) {
    c->a[i] *= tau;
    c->h[i] *= tau;
  }
}

/* The largest tau with tau a in the box. */
static double box_cap(const Certificate *c)
{
  double cap = INFINITY;
  for (int64_t i = 0; i < c->svm->num_data; ++i) {
    if (c->a[i] > 0) cap = fmin(cap, box(c->svm, i) / c->a[i]);
  }
  return cap;
}

/* With the bias, the heavier class of a (in the box) scaled down to
 * balance the other: sum_i a_i y_i = 0, up to rounding. Then h of that a
 * afresh, one kernel row per nonzero entry, outside the budget of rows. */
static void make_feasible(Certificate *c)
{
  SsKernelSvm *svm = c->svm;
  const int64_t n = svm->num_data;
  const double *y = svm->labels;
  double sum[2] = {0, 0}; /* the negatives' and the positives' sum of a */
  for (int64_t i = 0; i < n; ++i) sum[y[i] > 0] += c->a[i];
  if (svm->bias_enabled) {
    const double scale[2] = {sum[0] > sum[1] ? sum[1] / sum[0] : 1.0,
                             sum[1] > sum[0] ? sum[0] / sum[1] : 1.0};
    for (int64_t i = 0; i < n; ++i) c->a[i] *= scale[y[i] > 0];
  }
  memset(c->h, 0, (size_t)n * sizeof(double));
  const int64_t budget = c->rows_left;
  c->rows_left = INT64_MAX;
  for (int64_t i = 0; i < n; ++i) {
    const double a = c->a[i];
    if (a == 0) continue;
    c->a[i] = 0;
    move(c, i, a);
  }
  c->rows_left = budget;
}

/* No bias: Newton steps on the coordinate of largest projected gradient. */
static void ascend_single(Certificate *c, double tolerance)
{
  const SsKernelSvm *svm = c->svm;
  const int64_t n = svm->num_data;
  const double lambda = svm->lambda;
  while (c->rows_left > 0) {
    int64_t pick = -1;
    double best = tolerance;
    for (int64_t i = 0; i < n; ++i) {
      const double g = 1 - c->h[i] / lambda;
      const double pg = (g > 0 && c->a[i] < box(svm, i)) || (g < 0 && c->a[i] > 0) ? fabs(g) : 0;
      if (pg > best) {
        best = pg;
        pick = i;
      }
    }
    if (pick < 0 || !(svm->diagonal[pick] > 0)) return;
    const double step = lambda * (1 - c->h[pick] / lambda) / svm->diagonal[pick];
    const double target = fmin(fmax(c->a[pick] + step, 0.0), box(svm, pick));
    if (!move(c, pick, target - c->a[pick])) return;
  }
}

/* With the bias: the maximal violating pair (i up, j down along y), each
 * step moving a_i by y_i t and a_j by -y_j t, t >= 0 the clipped Newton step. */
static void ascend_pairs(Certificate *c, double tolerance)
{
  SsKernelSvm *svm = c->svm;
  const int64_t n = svm->num_data;
  const double lambda = svm->lambda, *y = svm->labels;
  while (c->rows_left >= 2) {
    int64_t i = -1, j = -1;
    double up = -INFINITY, down = INFINITY;
    for (int64_t k = 0; k < n; ++k) {
      /* y_k g_k: moving a_k by y_k t changes D at the rate t y_k g_k */
      const double yg = y[k] * (1 - c->h[k] / lambda);
      const bool can_up = y[k] > 0 ? c->a[k] < box(svm, k) : c->a[k] > 0;
      const bool can_down = y[k] > 0 ? c->a[k] > 0 : c->a[k] < box(svm, k);
      if (can_up && yg > up) {
        up = yg;
        i = k;
      }
      if (can_down && yg < down) {
        down = yg;
        j = k;
      }
    }
    if (i < 0 || j < 0 || !(up - down > tolerance)) return;
    /* K_ij: one more kernel evaluation */
    const double kii = svm->diagonal[i], kjj = svm->diagonal[j];
    ss_data_scatter_row(&svm->data, i, svm->zd);
    double kij = 0;
    ss_kernel_row_from_scattered(&svm->kernel, &svm->data, svm->norms2, &j, 1, svm->zd,
                                 svm->norms2[i], &kij);
    ss_data_clear_row(&svm->data, i, svm->zd);
    ++svm->num_kernel_evaluations;
    const double curvature = kii + kjj - 2 * kij;
    double t = lambda * (up - down) / (curvature > 1e-12 ? curvature : 1e-12);
    t = fmin(t, y[i] > 0 ? box(svm, i) - c->a[i] : c->a[i]);
    t = fmin(t, y[j] > 0 ? c->a[j] : box(svm, j) - c->a[j]);
    if (!(t > 0)) return;
    if (!move(c, i, y[i] * t) || !move(c, j, -y[j] * t)) return;
  }
}

double ss_kernel_dual_bound(SsKernelSvm *self, const double *scores, int64_t max_rows)
{
  const int64_t n = self->num_data;
  Certificate c = {.svm = self, .rows_left = max_rows};
  c.a = malloc((size_t)n * sizeof(double));
  c.h = malloc((size_t)n * sizeof(double));
  c.row = malloc((size_t)n * sizeof(double));
  double bound = NAN;
  if (c.a && c.h && c.row) {
    for (int64_t i = 0; i < n; ++i) c.a[i] = margin_error(self, scores, i) ? box(self, i) : 0.0;
    make_feasible(&c);
    rescale(&c, box_cap(&c));
    /* stop at projected gradients 1e-3 (of dD/da_i = 1 at a = 0) */
    if (self->bias_enabled) ascend_pairs(&c, 1e-3);
    else ascend_single(&c, 1e-3);
    rescale(&c, box_cap(&c));
    double S = 0, Q = 0;
    for (int64_t i = 0; i < n; ++i) {
      S += c.a[i];
      Q += c.a[i] * c.h[i];
    }
    bound = S - Q / (2 * self->lambda);
  }
  free(c.a);
  free(c.h);
  free(c.row);
  return bound;
}

double ss_kernel_dual_bound_cost(const SsKernelSvm *self, const double *scores, int64_t max_rows)
{
  int64_t errors = 0;
  for (int64_t i = 0; i < self->num_data; ++i) errors += margin_error(self, scores, i);
  /* a row per margin error (step 1), max_rows for the ascent, K_ij per pair */
  return (double)self->num_data * (double)(errors + max_rows) + (double)max_rows;
}
